/**
 * Conversation scenarios that declare MCP servers (`mcp`): decoding, mounting through the
 * `Mounter` service (here a fake one: the scenario package speaks no MCP), the refusal without
 * one, mount failures, and capture keeping the declarations.
 */
import { Trace } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Toolset } from "@agent-harness/tool-schema"
import { Effect, Result } from "effect"
import { Capture, Conversation, Mounter, type ScenarioFile, Suite } from "../src/index.ts"
import { decodeConversation, type Json, oneFileDisk, problemOf } from "./fixtures/files.ts"
import { fakeMounter, serverTools } from "./fixtures/mounter.ts"

const FILE = "cases/mcp.json"

const conversation = (mcp: unknown, extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  mcp,
  turns: [
    {
      reply: [
        { type: "tool_use", id: "c1", name: "fx__echo", input: {} },
        { type: "tool_use", id: "c2", name: "fx__echo", input: { text: "hi" } },
        { type: "tool_use", id: "c3", name: "fx__fail", input: {} }
      ],
      expect: [
        { type: "tool_result", tool_use_id: "c1", is_error: true, content: "not executed: missing field 'text'" },
        { type: "tool_result", tool_use_id: "c2", is_error: false, content: "echo: hi" },
        { type: "tool_result", tool_use_id: "c3", is_error: true, content: "the server said no" }
      ]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done" },
  ...extra
})

const declared = { command: "node", args: ["fixture.mjs"], prefix: "fx" }
const fixture = [declared]

const decode = (json: Json): ScenarioFile.Conversation => decodeConversation(FILE, json)

const invalid = (json: Json): string => problemOf(FILE, json)

describe("mcp declarations: decoding", () => {
  it("a server to start and a server to reach decode, with their options", () => {
    const mcp = [
      { command: "node", args: ["a.mjs"], env: { A: "1" }, cwd: "servers", prefix: "fx", callTimeoutMs: 5000 },
      { url: "http://127.0.0.1:8931/mcp", prefix: "web" }
    ]
    assert.deepStrictEqual(decode(conversation(mcp)).file.mcp, mcp)
  })

  it("each bad declaration is named by its JSON path", () => {
    assert.strictEqual(
      invalid(conversation([{ prefix: "fx" }])),
      `mcp[0]: needs "command" (a server to start) or "url" (a server to reach)`
    )
    assert.strictEqual(
      invalid(conversation([{ command: "node", url: "http://127.0.0.1:1/mcp", prefix: "fx" }])),
      `mcp[0].url: a server is started ("command") or reached ("url"), not both`
    )
    assert.strictEqual(
      invalid(conversation([{ url: "http://127.0.0.1:1/mcp", args: ["x"], prefix: "fx" }])),
      `mcp[0].args: only a server that is started ("command") takes "args"`
    )
    assert.strictEqual(
      invalid(conversation([{ url: "file:///etc/passwd", prefix: "fx" }])),
      `mcp[0].url: expected an http:// or https:// URL, got "file:///etc/passwd"`
    )
    assert.strictEqual(
      invalid(conversation([{ command: "node", prefix: "f.x" }])),
      `mcp[0].prefix: expected 1 to 32 letters, digits, '_' or '-', got "f.x"`
    )
    assert.strictEqual(invalid(conversation([{ command: "node" }])), "mcp[0].prefix: missing")
    assert.strictEqual(
      invalid(conversation([{ command: "node", prefix: "fx", timeoutMs: 5 }])),
      "mcp[0].timeoutMs: unexpected field"
    )
    assert.strictEqual(
      invalid(conversation([{ command: "", prefix: "fx" }])),
      `mcp[0].command: expected a value with a length of at least 1, got ""`
    )
    assert.strictEqual(
      invalid(conversation([{ command: "node", prefix: "fx", callTimeoutMs: 0 }])),
      "mcp[0].callTimeoutMs: expected a value greater than or equal to 1, got 0"
    )
  })

  it("two servers with one prefix, and a scripted tool under a prefix, are refused", () => {
    assert.strictEqual(
      invalid(conversation([...fixture, { url: "http://127.0.0.1:1/mcp", prefix: "fx" }])),
      "mcp[1].prefix: 'fx' is already the prefix of mcp[0]: give each server its own"
    )
    assert.strictEqual(
      invalid(conversation(fixture, { tools: { fx__echo: { results: [{ ok: "x" }] } } })),
      `tools.fx__echo: a scripted tool cannot be named under the prefix of mcp[0] ('fx__'): that is where the server's tools are mounted`
    )
  })
})

describe("mcp declarations: running", () => {
  it.effect("the servers are mounted for the run, their tools called like any other, then stopped", () =>
    Effect.gen(function* () {
      const fake = fakeMounter()
      const verdict = yield* Conversation.run(decode(conversation(fixture)), FILE).pipe(
        Effect.provideService(Mounter.Mounter, fake.mounter)
      )
      assert.deepStrictEqual(verdict.failures, [])
      assert.isTrue(verdict.passed)
      assert.deepStrictEqual(fake.asked, [{ declaration: declared, file: FILE }])
      assert.deepStrictEqual(fake.closed, ["fx"])
    })
  )

  it.effect("without a Mounter: a failed verdict that says so, and nothing runs", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(decode(conversation(fixture)), FILE)
      assert.isFalse(verdict.passed)
      assert.deepStrictEqual(verdict.outcome, { stop: "diverged", files: {}, turns: 0 })
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.message]),
        [["mcp", `mcp: ${Mounter.missing(1)}`]]
      )
    })
  )

  it.effect("a server that cannot be mounted fails the verdict naming its declaration; the others are stopped", () =>
    Effect.gen(function* () {
      const fake = fakeMounter({ failing: "gone" })
      const mcp = [...fixture, { command: "no-such-server", prefix: "gone" }]
      const verdict = yield* Conversation.run(decode(conversation(mcp)), FILE).pipe(
        Effect.provideService(Mounter.Mounter, fake.mounter)
      )
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.message),
        ["mcp[1] (gone): MCP server 'no-such-server': could not start"]
      )
      assert.strictEqual(verdict.outcome.turns, 0)
      assert.deepStrictEqual(fake.closed, ["fx"])
    })
  )

  it.effect("two servers that mount one tool name: a failed verdict naming both", () =>
    Effect.gen(function* () {
      // Prefix `a` with a tool `b__echo`, and prefix `a__b` with a tool `echo`: both `a__b__echo`.
      const fake = fakeMounter({
        tools: (prefix) =>
          prefix === "a" ? Toolset.make(...serverTools("a__b").tools) : Toolset.make(...serverTools(prefix).tools)
      })
      const mcp = [
        { command: "one", prefix: "a" },
        { command: "two", prefix: "a__b" }
      ]
      const verdict = yield* Conversation.run(decode(conversation(mcp)), FILE).pipe(
        Effect.provideService(Mounter.Mounter, fake.mounter)
      )
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.message),
        [
          "mcp[1] (a__b): its tool 'a__b__echo' has the name of a tool of mcp[0]: choose prefixes that do not start one with the other"
        ]
      )
    })
  )
})

describe("mcp declarations: Suite.load", () => {
  const file = "servers/mcp.json"
  /** A file system holding only that file. */
  const disk = oneFileDisk(conversation(fixture))

  it.effect("refuses a file that declares servers when no Mounter is provided (exit 2 in the CLI)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Suite.load(file))
      assert.strictEqual(error.message, `${file}: mcp: ${Mounter.missing(1)}`)
    }).pipe(Effect.provide(disk))
  )

  it.effect("loads it when one is", () =>
    Effect.gen(function* () {
      const scenario = yield* Suite.load(file)
      assert.strictEqual(scenario.kind, "conversation")
    }).pipe(Effect.provide(disk), Effect.provideService(Mounter.Mounter, fakeMounter().mounter))
  )
})

describe("mcp declarations: capture", () => {
  const record = (json: Json, mounter: Mounter.Shape) =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(Trace.Trace, memory.trace),
        Effect.provideService(Mounter.Mounter, mounter)
      )
      return (yield* memory.events).map(Trace.line).join("\n")
    })

  it.effect("a captured run keeps the declarations as mounted (cwd absolute) and replays with a Mounter", () =>
    Effect.gen(function* () {
      const fake = fakeMounter()
      const trace = yield* record(conversation(fixture), fake.mounter)
      const captured = yield* Capture.checked("t.jsonl", trace).pipe(
        Effect.provideService(Mounter.Mounter, fake.mounter)
      )
      const mounted = { command: "node", args: ["fixture.mjs"], prefix: "fx", cwd: "/abs/." }
      assert.deepStrictEqual(captured.mcp, [mounted])
      // The replay mounted the captured declaration.
      assert.deepStrictEqual(fake.asked.at(-1)?.declaration, mounted)
    })
  )

  it.effect("without a Mounter the capture is refused: it cannot be checked to replay", () =>
    Effect.gen(function* () {
      const trace = yield* record(conversation(fixture), fakeMounter().mounter)
      const error = yield* Effect.flip(Capture.checked("t.jsonl", trace))
      assert.match(
        error.message,
        /the captured scenario does not replay under the variant 'fixed': mcp: declares an MCP server/
      )
    })
  )

  it("an mcp annotation that is not a list is refused, naming its line", () => {
    const lines = JSON.stringify({ type: "trace.annotated", key: "mcp", value: { command: "node" } })
    const captured = Capture.capture("t.jsonl", lines)
    assert.strictEqual(
      Result.isFailure(captured) ? captured.failure.message : "captured",
      `t.jsonl: line 1: value: mcp must be a list of MCP server declarations, got {"command":"node"}`
    )
  })
})
