/**
 * `harness agent` end to end: the CLI spawned against the loopback fake provider
 * (`@agent-harness/ai-sdk/testing`, Anthropic Messages and OpenAI Chat Completions wire formats;
 * no network but 127.0.0.1), over a real folder. A policy that allows reading and appending; the
 * default policy without a terminal denying an append (the model reads why); a missing key (exit
 * 2, nothing sent); a trace captured into a scenario that replays; an MCP server mounted behind
 * the same gate; a bad policy; the turn cap and a model failure.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { agentArgs, agent as runAgent, freshRoots, providerEnv } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { harness, harnessAsync } from "./fixtures/harness.ts"
import { demoDir, type Json, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** Several CLI runs per test, on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }

const temp = tempFolder("agent")
afterAll(() => temp.remove())

const start = fakeProviders()

/** The environment of a run: no key nor base URL of the machine's, these instead. */
const envWith = providerEnv

/** A fresh folder holding `list.txt`. */
const rootWith = freshRoots(temp, "bread, milk\n")

const agent = (fake: FakeProvider.Fake, provider: string, args: ReadonlyArray<string>, key = "ANTHROPIC_API_KEY") =>
  runAgent({ fake, model: `${provider}:test-model`, args, env: envWith({ [key]: "test-key" }) })

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const list = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])
/** The messages of the n-th request (none when there is no such request). */
const messagesOf = (requests: ReadonlyArray<FakeProvider.Recorded>, n: number): ReadonlyArray<Json> => {
  const json = requests[n]?.json
  return list(isRecord(json) ? json.messages : undefined).filter(isRecord)
}

/**
 * stderr without the provider's warnings (`harness agent: warn: …`, such as the Anthropic SDK's
 * about an unknown model's output limit, which the fake's model id is).
 */
const errors = (r: { readonly stderr: string }): string =>
  r.stderr
    .split("\n")
    .filter((line) => !line.startsWith("harness agent: warn: "))
    .join("\n")

const denial = "not executed: denied: this call needs someone's approval, and no one could be asked"

describe("harness agent", () => {
  it(
    "Anthropic: a policy that allows reading and appending; reasoning dimmed, results sent back by id; --trace captures and replays",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.reasoning("The list first."),
            Message.toolUse("toolu_1", "read", { path: "list.txt" })
          ]),
          FakeProvider.reply([Message.toolUse("toolu_2", "append", { path: "list.txt", content: "eggs\n" })]),
          FakeProvider.reply([Message.text("Eggs added.")])
        ]
      })
      const root = rootWith()
      const policy = temp.write("allow-append.json", {
        rules: [{ tool: ["read", "append"], decision: "allow" }],
        default: "deny"
      })
      const trace = temp.path("anthropic.jsonl")
      const r = await agent(fake, "anthropic", [
        "--root",
        root,
        "--policy",
        policy,
        "--trace",
        trace,
        "Add eggs to list.txt"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
      expect(r.lines).toContain("[user] Add eggs to list.txt")
      expect(r.lines).toContain("model thinks: The list first.")
      expect(r.lines).toContain(`model calls toolu_1 read({"path":"list.txt"})`)
      expect(r.lines).toContain("  ok    toolu_1: bread, milk")
      expect(r.lines).toContain("  ok    toolu_2: appended 5 characters to list.txt")
      expect(r.lines.slice(-3)).toStrictEqual(["final answer: Eggs added.", "stop: end", "tokens: 30 in, 15 out"])
      // Over the wire: the thinking block went back with its signature, each result under its call's id.
      const requests = fake.requestsTo("anthropic")
      assert.strictEqual(requests.length, 3)
      for (const request of requests) assert.deepStrictEqual(request.problems, [])
      const second = messagesOf(requests, 1)
      assert.deepStrictEqual(list(second[1]?.content)[0], {
        type: "thinking",
        thinking: "The list first.",
        signature: "fake-signature-1"
      })
      expect(list(second[2]?.content)[0]).toMatchObject({
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "bread, milk\n"
      })
      // The trace becomes a scenario that replays the run offline, reasoning, policy and files kept.
      const out = temp.path("anthropic-captured.json")
      const captured = harness(["capture", trace, "--out", out])
      assert.strictEqual(captured.code, 0, captured.stderr)
      const scenario = JSON.parse(readFileSync(out, "utf8")) as Json
      assert.deepStrictEqual(scenario.files, { "list.txt": "bread, milk\n" })
      assert.deepStrictEqual(scenario.policy, {
        rules: [{ tool: ["read", "append"], decision: "allow" }],
        default: "deny"
      })
      const turns = list(scenario.turns).filter(isRecord)
      expect(list(turns[0]?.reply)[0]).toStrictEqual({
        type: "reasoning",
        text: "The list first.",
        provider_metadata: { anthropic: { signature: "fake-signature-1" } }
      })
      const replay = harness(["run", out])
      assert.strictEqual(replay.code, 0, replay.stdout + replay.stderr)
    }
  )

  it(
    "OpenAI Chat Completions: the default policy without a terminal denies the append, and the model reads why",
    SPAWNS,
    async () => {
      const fake = await start({
        openai: [
          FakeProvider.reply([Message.toolUse("call_1", "append", { path: "list.txt", content: "eggs\n" })]),
          FakeProvider.reply([Message.text("I was not allowed to change list.txt.")])
        ]
      })
      const root = rootWith()
      const trace = temp.path("openai.jsonl")
      const r = await agent(
        fake,
        "openai",
        ["--root", root, "--trace", trace, "Add eggs to list.txt"],
        "OPENAI_API_KEY"
      )
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\n")
      expect(r.lines).toContain(`  error call_1: ${denial}`)
      const requests = fake.requestsTo("openai")
      assert.strictEqual(requests.length, 2)
      const sent = messagesOf(requests, 1).find((m) => m.role === "tool")
      assert.strictEqual(sent?.tool_call_id, "call_1")
      expect(String(sent?.content)).toContain(denial)
      // From the live failure to a regression test: capture, the denial pinned, and it replays.
      const out = temp.path("openai-captured.json")
      assert.strictEqual(harness(["capture", trace, "--out", out]).code, 0)
      const scenario = JSON.parse(readFileSync(out, "utf8")) as Json
      assert.deepStrictEqual(scenario.policy, {
        rules: [{ annotations: { readOnly: true }, decision: "allow" }],
        default: { decision: "ask", reason: "the tool is not read-only" }
      })
      expect(list(list(scenario.turns).filter(isRecord)[0]?.expect)[0]).toStrictEqual({
        type: "tool_result",
        tool_use_id: "call_1",
        content: denial,
        is_error: true
      })
      assert.strictEqual(harness(["run", out]).code, 0)
      // The criterion: the append should have been asked about and run. Written so, it fails.
      const criterion = readFileSync(out, "utf8")
        .replace(`"content": "${denial}"`, `"content": "appended 5 characters to list.txt"`)
        .replace(`"is_error": true`, `"is_error": false`)
      writeFileSync(temp.path("criterion.json"), criterion)
      const failing = harness(["run", temp.path("criterion.json")])
      assert.strictEqual(failing.code, 1)
      expect(failing.stdout).toContain(`seen:     call_1 is_error=true "${denial}"`)
    }
  )

  it("a missing API key exits 2 naming the variable, and nothing is sent", SPAWNS, async () => {
    const fake = await start({ anthropic: [FakeProvider.reply([Message.text("never")])] })
    const root = rootWith()
    const none = await harnessAsync([...agentArgs(fake), "--root", root, "hi"], envWith({}))
    assert.strictEqual(none.code, 2)
    assert.strictEqual(
      none.stderr,
      "harness agent: no API key for anthropic: set ANTHROPIC_API_KEY; nothing was sent\n"
    )
    const empty = await harnessAsync(
      [...agentArgs(fake, "openai-responses:test-model"), "--root", root, "hi"],
      envWith({ OPENAI_API_KEY: "" })
    )
    assert.strictEqual(empty.code, 2)
    assert.strictEqual(
      empty.stderr,
      "harness agent: no API key for openai-responses: set OPENAI_API_KEY (it is empty); nothing was sent\n"
    )
    assert.strictEqual(fake.requests.length, 0)
  })

  it(
    "an MCP server's tools join the toolset, behind the same gate; its own read-only hint is not believed",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("m1", "calculator__divide", { a: 6, b: 3 }),
            Message.toolUse("m2", "calculator__calls", {})
          ]),
          FakeProvider.reply([Message.text("6 / 3 = 2.")])
        ]
      })
      const server = join(scenariosDir, "mcp", "calculator.mjs")
      const r = await agent(fake, "anthropic", [
        "--root",
        rootWith(),
        "--mcp",
        `node '${server}'`,
        "--deny",
        "calculator__calls",
        "--trace",
        temp.path("mcp.jsonl"),
        "What is 6 / 3?"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      // divide says it is read-only, but the server is not trusted: the default policy asks, and
      // with no one to ask the call is denied (the model reads why), never run on the server's word.
      expect(r.lines).toContain(
        "  error m1: not executed: denied: this call needs someone's approval, and no one could be asked"
      )
      expect(r.stderr).toContain("not trusted, so the annotations it claims")
      expect(r.lines).toContain(`  error m2: not executed: denied: --deny "calculator__calls"`)
      const tools = list(isRecord(fake.requests[0]?.json) ? fake.requests[0]?.json.tools : undefined)
        .filter(isRecord)
        .map((tool) => tool.name)
      expect(tools).toStrictEqual([
        "read",
        "list",
        "search",
        "write",
        "append",
        "calculator__divide",
        "calculator__calls"
      ])
      // The capture mounts the server again (as it was mounted) to replay, behind the same policy.
      const out = temp.path("mcp-captured.json")
      const captured = harness(["capture", temp.path("mcp.jsonl"), "--out", out])
      assert.strictEqual(captured.code, 0, captured.stderr)
      const scenario = JSON.parse(readFileSync(out, "utf8")) as Json
      assert.deepStrictEqual(scenario.mcp, [
        { command: "node", args: [server], cwd: resolve(demoDir), prefix: "calculator" }
      ])
      assert.strictEqual(harness(["run", out]).code, 0)
    }
  )

  it(
    "bad usage exits 2 before anything is sent: a policy file, a glob, an --mcp line, a server, the model",
    SPAWNS,
    async () => {
      const fake = await start({})
      const root = rootWith()
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["--policy", temp.write("bad-decision.json", { rules: [{ decision: "maybe" }] })],
          `harness agent: --policy ${temp.path("bad-decision.json")}: rules[0].decision: expected "allow", "ask" or "deny", got "maybe"`
        ],
        [
          ["--policy", temp.write("twice.json", `{ "default": "deny", "default": "allow" }`)],
          `harness agent: --policy ${temp.path("twice.json")}: default: duplicate key "default": it is already on line 1 of this object (JSON keeps only the last)`
        ],
        [
          ["--policy", temp.path("no-such-policy.json")],
          `harness agent: --policy ${temp.path("no-such-policy.json")}: cannot be read`
        ],
        [["--deny", "[z-a]"], `harness agent: --deny "[z-a]": not a glob that compiles: the range 'z-a' is backwards`],
        [
          ["--mcp", "node 'unclosed"],
          `harness agent: --mcp "node 'unclosed": a ' opened at character 6 is never closed`
        ],
        [["--mcp", "no-such-command-anywhere"], "harness agent: --mcp: MCP server 'no-such-command-anywhere'"],
        [
          ["--mcp-url", "file:///etc/passwd"],
          `harness agent: --mcp-url "file:///etc/passwd": expected an http:// or https:// URL`
        ],
        [["--max-turns", "0"], "harness agent: --max-turns 0: expected a whole number of at least 1"],
        [["--trace", join(root, "t.jsonl")], `harness agent: --trace ${join(root, "t.jsonl")}: it is in --root`],
        [
          ["--trace", temp.path("same.db"), "--journal", temp.path("same.db")],
          `harness agent: --trace ${temp.path("same.db")}: it is also the --journal file; give each its own`
        ],
        [
          ["--policy", temp.write("kept.json", { default: "deny" }), "--trace", temp.path("kept.json")],
          `--trace ${temp.path("kept.json")}: it is the --policy file (${temp.path("kept.json")}), which it would overwrite; nothing was run or written`
        ]
      ]
      for (const [args, message] of cases) {
        const r = await agent(fake, "anthropic", ["--root", root, ...args, "hi"])
        assert.strictEqual(r.code, 2, `${args.join(" ")}: ${r.stderr}`)
        expect(r.stderr.startsWith(message), `${args.join(" ")}: ${r.stderr}`).toBe(true)
        assert.strictEqual(r.stdout, "", args.join(" "))
      }
      const file = await agent(fake, "anthropic", ["--root", join(root, "list.txt"), "hi"])
      assert.strictEqual(file.code, 2)
      assert.strictEqual(
        file.stderr,
        `harness agent: --root ${join(root, "list.txt")}: it is a regular file, not a folder\n`
      )
      const model = await harnessAsync(["agent", "--model", "gemini:x", "--root", root, "hi"], envWith({}))
      assert.strictEqual(model.code, 2)
      expect(model.stderr).toContain(
        `--model "gemini:x": expected PROVIDER:MODEL, with PROVIDER one of anthropic, openai, openai-responses`
      )
      assert.strictEqual(fake.requests.length, 0)
    }
  )

  it("the turn cap and a model failure exit 1, saying so", SPAWNS, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("toolu_1", "read", { path: "list.txt" })]),
        FakeProvider.error(400, { message: "prompt is too long" })
      ]
    })
    const root = rootWith()
    const capped = await agent(fake, "anthropic", ["--root", root, "--max-turns", "1", "hi"])
    assert.strictEqual(capped.code, 1)
    expect(capped.lines.slice(-2)).toStrictEqual(["stop: turn_cap", "tokens: 10 in, 5 out"])
    assert.strictEqual(errors(capped), "harness agent: the model did not finish within 1 model calls (--max-turns)\n")
    const failed = await agent(fake, "anthropic", ["--root", root, "hi"])
    assert.strictEqual(failed.code, 1)
    assert.strictEqual(
      errors(failed),
      "harness agent: the model failed: model call 1: anthropic.messages refused the request (HTTP 400): prompt is too long\n"
    )
  })

  it("--journal sits behind the gate: a denied call never reaches it, an allowed one runs once", SPAWNS, async () => {
    const append = () => [
      FakeProvider.reply([Message.toolUse("toolu_a", "append", { path: "list.txt", content: "eggs\n" })]),
      FakeProvider.reply([Message.text("done")])
    ]
    const fake = await start({ anthropic: [...append(), ...append(), ...append()] })
    const root = rootWith()
    const journal = ["--journal", temp.path("calls.sqlite")]
    const denied = await agent(fake, "anthropic", ["--root", root, ...journal, "Add eggs"])
    assert.strictEqual(denied.code, 0, denied.stderr)
    expect(denied.lines).toContain(`  error toolu_a: ${denial}`)
    // Had the denied call been journaled as started, its id would now be an outcome unknown.
    const allowed = await agent(fake, "anthropic", ["--root", root, ...journal, "--allow", "append", "Add eggs"])
    assert.strictEqual(allowed.code, 0, allowed.stderr)
    expect(allowed.lines).toContain("  ok    toolu_a: appended 5 characters to list.txt")
    // The same call id again: the journal replays it, the file is appended to once.
    const again = await agent(fake, "anthropic", ["--root", root, ...journal, "--allow", "append", "Add eggs"])
    assert.strictEqual(again.code, 0, again.stderr)
    expect(again.lines).toContain("  ok    toolu_a: appended 5 characters to list.txt")
    assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
  })

  it("--untrusted-output marks tool output and tells the model; the capture replays it", SPAWNS, async () => {
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("toolu_r", "read", { path: "list.txt" })]),
        FakeProvider.reply([Message.text("bread and milk")])
      ]
    })
    const trace = temp.path("untrusted.jsonl")
    const r = await agent(fake, "anthropic", [
      "--root",
      rootWith(),
      "--untrusted-output",
      "--trace",
      trace,
      "What is on the list?"
    ])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(r.lines).toContain("  ok    toolu_r: <untrusted_tool_output>")
    const first = fake.requestsTo("anthropic")[0]?.json
    expect(JSON.stringify(isRecord(first) ? first.system : undefined)).toContain("<untrusted_tool_output>")
    const out = temp.path("untrusted-captured.json")
    assert.strictEqual(harness(["capture", trace, "--out", out]).code, 0)
    assert.strictEqual((JSON.parse(readFileSync(out, "utf8")) as Json).untrustedOutput, true)
    assert.strictEqual(harness(["run", out]).code, 0)
  })

  it(
    "the worked path of docs/real-models.md: a live overwrite, captured, the criterion fails, the policy fix passes",
    SPAWNS,
    async () => {
      const fake = await start({
        anthropic: [
          FakeProvider.reply([Message.toolUse("toolu_01", "read", { path: "list.txt" })]),
          FakeProvider.reply([
            Message.text("I'll add eggs."),
            Message.toolUse("toolu_02", "write", { path: "list.txt", content: "eggs\n" })
          ]),
          FakeProvider.reply([Message.text("Done: eggs are on the list.")])
        ]
      })
      const shop = rootWith()
      const live = temp.path("live.jsonl")
      const r = await agent(fake, "anthropic", [
        "--root",
        shop,
        "--allow",
        "write",
        "--trace",
        live,
        "Add eggs to list.txt"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(shop, "list.txt"), "utf8"), "eggs\n")
      const file = temp.path("no-overwrite.json")
      assert.strictEqual(harness(["capture", live, "--out", file]).code, 0)
      // The criterion: the write must not run, the list must stay as it was.
      const scenario = JSON.parse(readFileSync(file, "utf8")) as Json
      const turns = list(scenario.turns).filter(isRecord)
      const expected = list(turns[1]?.expect).filter(isRecord)[0]
      assert.deepStrictEqual(expected, {
        type: "tool_result",
        tool_use_id: "toolu_02",
        content: "wrote 5 characters to list.txt",
        is_error: false
      })
      Object.assign(expected ?? {}, { is_error: true, content: "not executed: denied: lists are only appended to" })
      scenario.name = "the list is never overwritten"
      ;(scenario.outcome as Json).files = { "list.txt": "bread, milk\n" }
      writeFileSync(file, JSON.stringify(scenario, null, 2))
      const failing = harness(["run", file])
      assert.strictEqual(failing.code, 1)
      assert.strictEqual(
        failing.stdout,
        [
          "FAIL the list is never overwritten (diverged, 3 model calls)",
          "    turn 2, tool_use_id toolu_02: a different observation",
          `      expected: toolu_02 is_error=true "not executed: denied: lists are only appended to"`,
          `      seen:     toolu_02 is_error=false "wrote 5 characters to list.txt"`,
          ""
        ].join("\n")
      )
      // The fix: the policy denies writes (the file the agent is run with, and the scenario's copy).
      const policy = scenario.policy as Json
      assert.deepStrictEqual(list(policy.rules)[0], { tool: "write", decision: "allow", reason: `--allow "write"` })
      policy.rules = [
        { tool: "write", decision: "deny", reason: "lists are only appended to" },
        ...list(policy.rules).slice(1)
      ]
      writeFileSync(file, JSON.stringify(scenario, null, 2))
      const passing = harness(["run", file])
      assert.strictEqual(passing.stdout, "PASS the list is never overwritten (end, 3 model calls)\n")
    }
  )
})
