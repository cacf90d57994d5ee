/**
 * `harness agent --token-budget N / --cost-budget USD` end to end against the loopback fake
 * provider (the Anthropic wire, which requires `max_tokens`): the run stops before the call that
 * could pass the budget (stop token_budget or cost_budget, exit 1, the calls before it all
 * answered), the provider is sent the per-reply cap the worst case counts, and bad budget flags
 * exit 2 naming the flag before anything is sent.
 */
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { agent as runAgent, freshRoots, providerEnv } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 240_000 }
const temp = tempFolder("agent-budgets")
afterAll(() => temp.remove())
const start = fakeProviders()
const rootWith = freshRoots(temp, "bread, milk\n")

const agent = (fake: FakeProvider.Fake, model: string, args: ReadonlyArray<string>) =>
  runAgent({ fake, model, args, env: providerEnv({ ANTHROPIC_API_KEY: "test-key" }) })

/** Reads of list.txt, each reporting the usage given. */
const reads = (n: number, usage: { readonly input: number; readonly output: number }) =>
  Array.from({ length: n }, (_, i) =>
    FakeProvider.reply([Message.toolUse(`toolu_${i}`, "read", { path: "list.txt" })], { usage })
  )

const errors = (r: { readonly stderr: string }): string =>
  r.stderr
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("harness agent: warn: "))
    .join("\n")

describe("harness agent with a budget", () => {
  it("--token-budget: stops before the call that could pass it; every call made was answered", SPAWNS, async () => {
    const fake = await start({ anthropic: reads(30, { input: 2000, output: 100 }) })
    const root = rootWith()
    const r = await agent(fake, "anthropic:test-model", [
      "--root",
      root,
      "--token-budget",
      "20000",
      "--max-output-tokens",
      "1000",
      "--no-stream",
      "--max-turns",
      "30",
      "read the list"
    ])
    assert.strictEqual(r.code, 1, r.stderr)
    const sent = fake.requestsTo("anthropic")
    assert.isAbove(sent.length, 1)
    assert.isBelow(sent.length, 30)
    // The provider was sent the cap the worst case counts.
    for (const request of sent) {
      const json = request.json as { readonly max_tokens?: unknown }
      assert.strictEqual(json.max_tokens, 1000)
    }
    assert.include(r.stdout, "stop: token_budget")
    const spent = r.lines.find((line) => line.startsWith("spent: "))
    assert.strictEqual(
      spent,
      `spent: ${(2000 * sent.length).toLocaleString("en-US")} tokens in, ${(100 * sent.length).toLocaleString("en-US")} out (budget: 20,000 tokens)`
    )
    assert.include(errors(r), "stopped before a model call that could pass --token-budget")
  })

  it("--cost-budget: priced by --price, or the shipped table; a model without a price is refused", SPAWNS, async () => {
    const fake = await start({ anthropic: reads(30, { input: 2000, output: 100 }) })
    const root = rootWith()
    const unknown = await agent(fake, "anthropic:test-model", ["--root", root, "--cost-budget", "0.05", "hi"])
    assert.strictEqual(unknown.code, 2)
    assert.include(errors(unknown), "--cost-budget needs a price: none is known for anthropic:test-model")
    assert.strictEqual(fake.requestsTo("anthropic").length, 0)
    const priced = await agent(fake, "anthropic:test-model", [
      "--root",
      root,
      "--cost-budget",
      "0.05",
      "--price",
      "input=3,output=15",
      "--max-output-tokens",
      "1000",
      "--no-stream",
      "--max-turns",
      "30",
      "hi"
    ])
    assert.strictEqual(priced.code, 1, priced.stderr)
    assert.include(priced.stdout, "stop: cost_budget")
    const n = fake.requestsTo("anthropic").length
    const cost = (n * (2000 * 3 + 100 * 15)) / 1e6
    assert.isAtMost(cost, 0.05)
    assert.include(priced.stdout, `$${cost.toFixed(4)} (budget: $0.05)`)
  })

  it("bad budget flags exit 2 naming the flag; nothing is sent", SPAWNS, async () => {
    const fake = await start({ anthropic: [] })
    const root = rootWith()
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--token-budget", "0"], "--token-budget 0: expected a whole number of tokens of at least 1"],
      [["--cost-budget", "-1"], "--cost-budget -1: expected an amount in USD above 0"],
      [["--price", "input=3"], '--price "input=3": '],
      [["--max-output-tokens", "0", "--token-budget", "10"], "--max-output-tokens 0"]
    ]
    for (const [flags, says] of cases) {
      const r = await agent(fake, "anthropic:test-model", ["--root", root, ...flags, "hi"])
      assert.strictEqual(r.code, 2, `${flags.join(" ")}: ${r.stderr}`)
      assert.include(errors(r), says)
    }
    assert.strictEqual(fake.requestsTo("anthropic").length, 0)
  })

  it(
    "--context-window: old tool results elided before each call near the window, every call kept with its result",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [...reads(12, { input: 100, output: 10 }), FakeProvider.reply([Message.text("done")])]
      })
      const root = rootWith(`${"a long line of the list\n".repeat(200)}`)
      const r = await agent(fake, "anthropic:test-model", [
        "--root",
        root,
        "--context-window",
        "6000",
        "--no-stream",
        "--max-turns",
        "20",
        "read the list"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      assert.include(r.stdout, "stop: end")
      const sent = fake.requestsTo("anthropic").map((request) => JSON.stringify(request.json))
      assert.strictEqual(sent.length, 13)
      assert.isTrue(sent.some((body) => body.includes("[elided by compaction: ")))
      // The last request still answers every tool_use with its tool_result.
      const last = fake.requestsTo("anthropic").at(-1)?.json as {
        readonly messages: ReadonlyArray<{ readonly content: unknown }>
      }
      const blocks = last.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as ReadonlyArray<{
        readonly type: string
        readonly id?: string
        readonly tool_use_id?: string
      }>
      const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b.id)
      const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
      assert.deepStrictEqual(results, uses)
    }
  )

  it(
    "--summarize: old turns summarized by the model, each summary's call counted in the run's spend",
    SPAWNS,
    async () => {
      /** The summarizer's requests: no tools, and the summarizer's instructions as the system prompt. */
      const isSummary = (json: unknown): boolean =>
        JSON.stringify(json).includes("Summarize this part of the conversation")
      const fake = await start({
        anthropic: [
          ...reads(12, { input: 100, output: 10 }),
          FakeProvider.reply([Message.text("done")], { usage: { input: 100, output: 10 } })
        ],
        answer: (_route, json) =>
          isSummary(json)
            ? FakeProvider.reply([Message.text("the list was read eight times")], {
                usage: { input: 700, output: 30 }
              })
            : undefined
      })
      const root = rootWith(`${"a long line of the list\n".repeat(200)}`)
      const r = await agent(fake, "anthropic:test-model", [
        "--root",
        root,
        "--context-window",
        "6000",
        "--summarize",
        "--token-budget",
        "1000000",
        "--max-output-tokens",
        "500",
        "--no-stream",
        "--max-turns",
        "20",
        "read the list"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      assert.include(r.stdout, "stop: end")
      const bodies = fake.requestsTo("anthropic").map((request) => JSON.stringify(request.json))
      const summaries = bodies.filter((body) => isSummary(JSON.parse(body)))
      assert.isAbove(summaries.length, 0)
      // The summarizer is offered no tools; the agent's later calls carry the summary.
      for (const body of summaries) assert.notInclude(body, '"tools"')
      assert.isTrue(
        bodies.some((body) => !isSummary(JSON.parse(body)) && body.includes("the list was read eight times"))
      )
      assert.isTrue(bodies.some((body) => body.includes("summarized by compaction]")))
      // The spent line counts the 13 agent calls and every summary.
      assert.strictEqual(bodies.length - summaries.length, 13)
      const n = (x: number) => x.toLocaleString("en-US")
      const input = 13 * 100 + summaries.length * 700
      const output = 13 * 10 + summaries.length * 30
      assert.include(
        r.stdout.split("\n").find((line) => line.includes("spent:")) ?? "",
        `spent: ${n(input)} tokens in, ${n(output)} out`
      )
    }
  )

  it("--summarize without --context-window is refused before anything is sent", SPAWNS, async () => {
    const fake = await start({ anthropic: [FakeProvider.reply([Message.text("done")])] })
    const r = await agent(fake, "anthropic:test-model", ["--root", rootWith(), "--summarize", "hi"])
    assert.strictEqual(r.code, 2)
    assert.include(r.stderr, "--summarize compacts near --context-window")
    assert.strictEqual(fake.requestsTo("anthropic").length, 0)
  })
})
