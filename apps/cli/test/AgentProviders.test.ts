/**
 * `harness agent` against providers that misbehave, and over the OpenAI Responses API: the CLI
 * spawned against the loopback fake provider (`@agent-harness/ai-sdk/testing`; no network but
 * 127.0.0.1). `--model openai-responses:…` runs tool turns end to end over `/v1/responses`; a
 * provider that never answers is bounded by `--request-timeout` (retried, then a failure that
 * names the timeout); tool-call arguments nested 10,000 deep are answered `not executed`, never
 * a stack trace.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as Providers from "../src/agent/Providers.ts"
import { agent as runAgent, freshRoots, providerEnv } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** A few CLI runs per test (one of them waits out four timeouts and three backoffs), on a loaded 2-core machine. */
const SPAWNS = { timeout: 180_000 }

const temp = tempFolder("agent-providers")
afterAll(() => temp.remove())

const start = fakeProviders()

/** The environment of a run: no key nor base URL of the machine's, the test's key instead. */
const env = (): NodeJS.ProcessEnv => providerEnv({ OPENAI_API_KEY: "test-key" })

const rootWith = freshRoots(temp, "")

const agent = (fake: FakeProvider.Fake, model: string, args: ReadonlyArray<string>) =>
  runAgent({ fake, model, args, env: env(), timeout: 120_000 })

type Item = Readonly<Record<string, unknown>>
const inputOf = (request: FakeProvider.Recorded | undefined): ReadonlyArray<Item> => {
  const json = request?.json
  const input = typeof json === "object" && json !== null ? (json as { readonly input?: unknown }).input : undefined
  return Array.isArray(input) ? input : []
}

describe("Providers.requestTimeoutMs", () => {
  it("reads 90s, 2m, 500ms, 1.5h and a bare number of seconds; refuses zero, more than a day and words, naming the flag", () => {
    const ms = (text: string) => Result.getOrThrow(Providers.requestTimeoutMs(text))
    assert.deepStrictEqual(
      ["90s", "2m", "500ms", "1.5h", "30", " 10 min "].map(ms),
      [90_000, 120_000, 500, 5_400_000, 30_000, 600_000]
    )
    for (const bad of ["0s", "0", "25h", "soon", "-5s", "1e3s", "", "10 parsecs"]) {
      const parsed = Providers.requestTimeoutMs(bad)
      assert.isTrue(Result.isFailure(parsed), bad)
      if (Result.isFailure(parsed))
        expect(parsed.failure).toContain(`--request-timeout ${JSON.stringify(bad)}: expected`)
    }
    const resolved = Providers.resolve("openai:m", undefined, { OPENAI_API_KEY: "k" }, "90s")
    assert.deepStrictEqual(Providers.modelOptions(Result.getOrThrow(resolved)), { requestTimeout: 90_000 })
    assert.deepStrictEqual(
      Providers.modelOptions(Result.getOrThrow(Providers.resolve("openai:m", undefined, { OPENAI_API_KEY: "k" }))),
      {}
    )
  })
})

describe("harness agent over the OpenAI Responses API", () => {
  it(
    "--model openai-responses: reads, appends, answers; every request passes the Responses API's checks",
    SPAWNS,
    async () => {
      const fake = await start({
        responses: [
          FakeProvider.reply([Message.toolUse("call_r", "read", { path: "list.txt" })]),
          FakeProvider.reply([
            Message.text("Adding eggs."),
            Message.toolUse("call_a", "append", { path: "list.txt", content: "eggs\n" })
          ]),
          FakeProvider.reply([Message.text("Eggs added.")], { usage: { input: 40, output: 4 } })
        ]
      })
      const root = rootWith("bread, milk\n")
      const r = await agent(fake, "openai-responses:test-model", [
        "--root",
        root,
        "--allow",
        "append",
        "Add eggs to list.txt"
      ])
      assert.strictEqual(r.code, 0, r.stderr)
      assert.strictEqual(readFileSync(join(root, "list.txt"), "utf8"), "bread, milk\neggs\n")
      expect(r.lines).toContain("  ok    call_r: bread, milk")
      expect(r.lines).toContain("  ok    call_a: appended 5 characters to list.txt")
      expect(r.lines.slice(-3)).toStrictEqual(["final answer: Eggs added.", "stop: end", "tokens: 60 in, 14 out"])
      const requests = fake.requestsTo("responses")
      assert.strictEqual(requests.length, 3)
      assert.deepStrictEqual(
        requests.map((request) => request.problems),
        [[], [], []]
      )
      const last = inputOf(requests[2])
      expect(last.filter((item) => item.type === "function_call_output")).toStrictEqual([
        { type: "function_call_output", call_id: "call_r", output: "bread, milk\n" },
        { type: "function_call_output", call_id: "call_a", output: "appended 5 characters to list.txt" }
      ])
      expect(last.filter((item) => item.type === "function_call").map((item) => item.call_id)).toStrictEqual([
        "call_r",
        "call_a"
      ])
    }
  )
})

describe("harness agent against a provider that misbehaves", () => {
  it(
    "--request-timeout: a provider that never answers is aborted each time, retried, then the run fails naming the timeout (exit 1)",
    SPAWNS,
    async () => {
      const fake = await start({
        openai: [FakeProvider.hang(), FakeProvider.hang(), FakeProvider.hang(), FakeProvider.hang()]
      })
      // 2 s: long enough for each request to reach the fake (which counts it) on a loaded machine
      // before it is aborted; without the flag the default (10 minutes) outlasts the run's limit.
      const r = await agent(fake, "openai:test-model", ["--root", rootWith("x\n"), "--request-timeout", "2s", "hi"])
      assert.strictEqual(r.code, 1, r.stderr)
      expect(r.stderr).toContain(
        "harness agent: the model failed: model call 1: openai.chat gave no complete reply within the request timeout of 2 s, after 4 attempts"
      )
      assert.strictEqual(fake.requestsTo("openai").length, 4)
    }
  )

  it(
    "a hang then a reply: the retry's reply is used; a --request-timeout that is not a duration is exit 2, nothing sent",
    SPAWNS,
    async () => {
      const fake = await start({ openai: [FakeProvider.hang(), FakeProvider.reply([Message.text("Here.")])] })
      // 5 s: the retry's whole reply arrives well within it on a loaded machine; without the flag
      // the hang would last the default 10 minutes, past the run's limit.
      const r = await agent(fake, "openai:test-model", ["--root", rootWith("x\n"), "--request-timeout", "5s", "hi"])
      assert.strictEqual(r.code, 0, r.stderr)
      expect(r.lines).toContain("final answer: Here.")
      assert.strictEqual(fake.requestsTo("openai").length, 2)

      const bad = await agent(fake, "openai:test-model", ["--root", rootWith("x\n"), "--request-timeout", "soon", "hi"])
      assert.strictEqual(bad.code, 2, bad.stderr)
      expect(bad.stderr).toContain(
        `harness agent: --request-timeout "soon": expected a duration greater than zero and at most a day, such as 90s, 2m or 500ms`
      )
      assert.strictEqual(fake.requests.length, 2)
    }
  )

  it(
    "tool-call arguments nested 10,000 deep: not executed (the model reads why), the run goes on, no stack trace",
    SPAWNS,
    async () => {
      const deep = `{"path":${"[".repeat(10_000)}${"]".repeat(10_000)}}`
      const fake = await start({
        openai: [
          FakeProvider.reply([Message.toolUse("call_d", "read", deep)]),
          FakeProvider.reply([Message.text("Sorry.")])
        ]
      })
      const r = await agent(fake, "openai:test-model", ["--root", rootWith("x\n"), "hi"])
      assert.strictEqual(r.code, 0, r.stderr)
      expect(r.stdout).toContain("[arguments not read: nested more than 64 levels deep]")
      expect(r.lines).toContain("  error call_d: not executed: input must be an object")
      expect(r.lines).toContain("final answer: Sorry.")
      expect(r.stderr).not.toContain("RangeError")
      expect(r.stderr).not.toContain("Maximum call stack")
      assert.deepStrictEqual(
        fake.requests.map((request) => request.problems),
        [[], []]
      )
    }
  )
})
