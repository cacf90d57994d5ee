/**
 * Long and large calls to a mounted server, with real children: progress travels from the
 * server's `notifications/progress` to `Progress.report` (and the loop's trace); calls to two
 * servers in one turn do not wait for each other; a call too large to send is not sent, an
 * answer too large to read is said to be, at once, and the connection goes on.
 */
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Execute, Loop, Message, Model, type Outcome, Progress, Trace } from "@agent-harness/executor"
import { RetrySafety } from "@agent-harness/idempotency"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { MessageSize, Mount } from "../src/index.ts"

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const progressServer = Mount.stdio(process.execPath, [fixture("progress-server.ts")])
// A loaded 2-core machine: starting Node with the SDK can take seconds.
const slow = { timeout: 120_000 }
const connectTimeout = 60_000

const mountIn = async (entries: ReadonlyArray<Mount.Entry>) => {
  const scope = Scope.makeUnsafe()
  const all = await Effect.runPromise(
    Mount.mountAll(entries.map((entry) => ({ ...entry, options: { connectTimeout, ...entry.options } }))).pipe(
      Scope.provide(scope)
    )
  )
  return { all, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const run = (
  toolset: Toolset.Toolset<Tool.Any>,
  name: string,
  input: unknown,
  reporter?: Progress.Reporter
): Promise<Outcome.Outcome> =>
  Effect.runPromise(
    Execute.execute(toolset, { id: `call-${name}`, name, input }).pipe(
      Effect.provideService(Execute.Middleware, Mount.outcomes),
      reporter === undefined ? (e) => e : Effect.provideService(Progress.Reporter, reporter)
    )
  )

const seen = (outcome: Outcome.Outcome) => ({
  tag: outcome._tag,
  failure: outcome._tag === "Failed" ? outcome.failure._tag : undefined,
  safety: RetrySafety.of(undefined, outcome).reason,
  content: outcome.content
})

/** A model that makes the calls given in its first turn and ends in its second. */
const twoTurns = (calls: ReadonlyArray<Message.ReplyBlock>) => {
  const replies = [calls, [Message.text("done")]]
  return Model.layer(Model.fromReply(() => Effect.succeed(replies.shift() ?? [Message.text("done")])))
}

describe("Mount: progress", slow, () => {
  it("a call carries a progress token when someone listens, and none otherwise", async () => {
    const { all, close } = await mountIn([{ server: progressServer, options: { prefix: "p" } }])
    try {
      expect((await run(all.toolset, "p__token", {})).content).toBe("none")
      const token = (await run(all.toolset, "p__token", {}, () => Effect.void)).content
      expect(token).toMatch(/^agent-harness-\d+$/)
    } finally {
      await close()
    }
  })

  it("each notifications/progress of the server reaches Progress.report with the call's id", async () => {
    const { all, close } = await mountIn([{ server: progressServer, options: { prefix: "p" } }])
    try {
      const updates: Array<[string, Progress.Update]> = []
      const outcome = await run(all.toolset, "p__steps", { n: 3 }, (id, update) =>
        Effect.sync(() => void updates.push([id, update]))
      )
      expect(outcome.content).toBe("counted to 3")
      expect(updates).toEqual([
        ["call-p__steps", { progress: 1, total: 3, message: "step 1" }],
        ["call-p__steps", { progress: 2, total: 3, message: "step 2" }],
        ["call-p__steps", { progress: 3, total: 3, message: "step 3" }]
      ])
    } finally {
      await close()
    }
  })

  it("in the loop, each update is a tool.progress trace event; the model never sees it", async () => {
    const { all, close } = await mountIn([{ server: progressServer, options: { prefix: "p" } }])
    try {
      const program = Effect.gen(function* () {
        const { trace, events } = yield* Trace.memory
        const result = yield* Loop.run({
          toolset: all.toolset,
          messages: [Message.user("count")]
        }).pipe(
          Effect.provide(twoTurns([Message.toolUse("c1", "p__steps", { n: 2 })])),
          Effect.provideService(Trace.Trace, trace)
        )
        return { result, events: yield* events }
      })
      const { result, events } = await Effect.runPromise(program)
      expect(events.filter((e) => e.type === "call.progressed")).toEqual([
        {
          type: "call.progressed",
          turn: 1,
          tool_use_id: "c1",
          name: "p__steps",
          progress: 1,
          total: 2,
          message: "step 1"
        },
        {
          type: "call.progressed",
          turn: 1,
          tool_use_id: "c1",
          name: "p__steps",
          progress: 2,
          total: 2,
          message: "step 2"
        }
      ])
      expect(JSON.stringify(result.messages)).not.toContain("step 1")
    } finally {
      await close()
    }
  })
})

describe("Mount: calls of one turn to two servers", slow, () => {
  it("do not wait for each other (3 s each: well under 6 s); results in call order", async () => {
    const { all, close } = await mountIn([
      { server: progressServer, options: { prefix: "a" } },
      { server: progressServer, options: { prefix: "b" } }
    ])
    try {
      expect(all.toolset.tools.map((tool) => tool.lane)).toContain("mcp:a")
      expect(new Set(all.toolset.tools.map((tool) => tool.lane))).toEqual(new Set(["mcp:a", "mcp:b"]))
      const calls = [
        Message.toolUse("a1", "a__slow", { ms: 3000, tag: "a1" }),
        Message.toolUse("b1", "b__slow", { ms: 3000, tag: "b1" }),
        Message.toolUse("a2", "a__slow", { ms: 1, tag: "a2" })
      ]
      const started = performance.now()
      const result = await Effect.runPromise(
        Loop.run({ toolset: all.toolset, messages: [Message.user("wait")] }).pipe(Effect.provide(twoTurns(calls)))
      )
      const elapsed = performance.now() - started
      expect(result.turns[0]?.outcomes.map((o) => [o.id, o.content])).toEqual([
        ["a1", "done a1"],
        ["b1", "done b1"],
        ["a2", "done a2"]
      ])
      // One after the other, the three would take over 6 s; side by side about 3 s (a loaded machine: loose).
      expect(elapsed).toBeGreaterThanOrEqual(3000)
      expect(elapsed).toBeLessThan(5800)
    } finally {
      await close()
    }
  })
})

describe("Mount: sizes agree both ways (MessageSize.maxBytes)", slow, () => {
  it("a call over the limit is not sent (nothing ran), an answer over it is unknown at once; the next call works", async () => {
    const { all, close } = await mountIn([{ server: progressServer, options: { prefix: "fx", callTimeout: 60_000 } }])
    try {
      const tools = all.toolset
      const huge = "x".repeat(MessageSize.maxBytes + 1000)
      const started = performance.now()
      const refused = seen(await run(tools, "fx__echo", { text: huge }))
      expect(refused).toMatchObject({ tag: "Refused", safety: "did_not_run" })
      expect(refused.content).toMatch(
        /^the call was not sent to the MCP server 'fixture': its message is \d+ bytes \(10\.0 MiB\), more than the limit of 10485760 bytes \(10\.0 MiB\); nothing ran/
      )
      expect((await run(tools, "fx__calls", {})).content).toBe("0")
      expect((await run(tools, "fx__echo", { text: "after" })).content).toBe("after")
      // Just under the limit is sent, and answered.
      const under = "y".repeat(MessageSize.maxBytes - 1000)
      const answered = await run(tools, "fx__echo", { text: under })
      expect(answered._tag).toBe("Succeeded")
      expect(answered.content.startsWith("yyyy")).toBe(true)
      const big = seen(await run(tools, "fx__big", { bytes: MessageSize.maxBytes + 2000 }))
      expect(big).toMatchObject({ tag: "Failed", failure: "OutcomeUnknown", safety: "outcome_unknown" })
      expect(big.content).toMatch(
        /^the MCP server 'fixture' answered with a message of \d+ bytes \(10\.0 MiB\), more than the limit of 10485760 bytes \(10\.0 MiB\), so it was not read; whether the call ran is unknown$/
      )
      // At once, not after the 60 s timeout; and the connection is not poisoned.
      expect(performance.now() - started).toBeLessThan(45_000)
      expect((await run(tools, "fx__echo", { text: "still here" })).content).toBe("still here")
      expect(all.mounted[0]?.status()).toStrictEqual({ _tag: "Running" })
    } finally {
      await close()
    }
  })
})
