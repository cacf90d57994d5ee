/**
 * `permission.decided` is the gate's own trace event, declared here: what the gate records, and
 * what an old trace (`permission.decision`) holds, read by its Schema.
 */
import { Trace } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as OldTraces from "../../executor/test/fixtures/oldTraces.ts"
import { Decided } from "../src/index.ts"

describe("permission.decided, the gate's own event", () => {
  it("the decisions of an old trace (permission.decision) read as Decided once upgraded", () => {
    const old = OldTraces.lines("edges.jsonl").filter(
      (line) => (line as { type: string }).type === "permission.decision"
    )
    expect(old).toHaveLength(2)
    const read = old.map((line) => Schema.decodeUnknownSync(Decided.Decided)(Trace.upgrade(line)))
    expect(read.map((d) => [d.type, d.tool_use_id, d.decision, d.allowed])).toStrictEqual([
      ["permission.decided", "c1", "allow", true],
      ["permission.decided", "c2", "ask", true]
    ])
    expect(read.every(Decided.event.is)).toBe(true)
  })

  it("an event its Schema refuses is recorded as the trace's ~unencodable note, never thrown", () => {
    const entry = Decided.event.entry({
      type: "permission.decided",
      tool_use_id: "c1",
      name: "read",
      decision: "maybe"
    } as never)
    expect(entry).toMatchObject({
      type: "trace.annotated",
      key: Trace.unencodable,
      value: { event_type: "permission.decided" }
    })
  })
})
