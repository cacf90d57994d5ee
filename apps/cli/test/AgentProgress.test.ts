import { Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AgentProgress from "../src/agent/Progress.ts"

describe("AgentProgress", () => {
  it("a line per update: the tool, how far, the message; a server's escapes are made visible", () => {
    expect(
      AgentProgress.line({
        type: "call.progressed",
        turn: 1,
        tool_use_id: "c1",
        name: "web__fetch",
        progress: 3,
        total: 10,
        message: "downloading"
      })
    ).toBe("  … web__fetch 3/10 downloading")
    expect(AgentProgress.line({ type: "call.progressed", turn: 1, tool_use_id: "c1", progress: 0.5 })).toBe(
      "  … c1 0.5"
    )
    const hostile = AgentProgress.line({
      type: "call.progressed",
      turn: 1,
      tool_use_id: "c1",
      name: "x",
      progress: 1,
      message: "\u001b[2J\u001b]0;owned\u0007\u202e\nnext"
    })
    for (const c of ["\u001b", "\u0007", "\u202e", "\n"]) expect(hostile).not.toContain(c)
    expect(hostile.startsWith("  … x 1 ")).toBe(true)
  })

  it("tee writes progress events and passes every event to the trace it wraps", async () => {
    const written: Array<string> = []
    const events = await Effect.runPromise(
      Effect.gen(function* () {
        const memory = yield* Trace.memory
        const tee = AgentProgress.tee(memory.trace, (text) => void written.push(text))
        yield* tee.record({ type: "call.progressed", turn: 2, tool_use_id: "c9", name: "t", progress: 1, total: 2 })
        yield* tee.record({ type: "model.requested", turn: 2, messages: 3 })
        return yield* memory.events
      })
    )
    expect(written).toEqual(["  … t 1/2\n"])
    expect(events.map((e) => e.type)).toEqual(["call.progressed", "model.requested"])
  })
})
