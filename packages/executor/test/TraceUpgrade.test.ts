/**
 * Old traces still read: every line the harness wrote before the one event grammar (real files,
 * written by 0.1's own code) is, once `Trace.upgrade`d, an event of today's vocabulary; what
 * is already new, or not an event at all, goes through unchanged, and nothing makes it throw.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { Trace } from "../src/index.ts"
import * as OldTraces from "./fixtures/oldTraces.ts"

const decode = Schema.decodeUnknownResult(Trace.Event)
const grammar = /^[a-z]+\.[a-z]+ed$/

/** The events the permission gate and a provider adapter declare (their tests read these lines). */
const edgeTypes: ReadonlySet<string> = new Set(["permission.decided", "model.retried"])

const loopFiles = ["salmorejo.jsonl", "incident-before.jsonl", "showcase.jsonl", "edges.jsonl"] as const

describe("Trace.upgrade", () => {
  it("every line of every old loop trace decodes as an Event of today once upgraded, and not before", () => {
    const seen = new Set<string>()
    for (const name of loopFiles) {
      for (const [i, line] of OldTraces.lines(name).entries()) {
        const upgraded = Trace.upgrade(line)
        const type = (upgraded as { readonly type: string }).type
        seen.add((line as { readonly type: string }).type)
        // The showcase holds what a newer harness may write (`usage` and `retry` events, a
        // `thinking` block): kept as they are, and only the names are checked.
        if (type === "usage" || type === "retry") {
          expect(upgraded).toBe(line)
          continue
        }
        expect(type, `${name} line ${i + 1}`).toMatch(grammar)
        // The edges' events are declared by the edges, and read by their Schemas there.
        if (name === "showcase.jsonl" || edgeTypes.has(type)) continue
        const decoded = decode(upgraded)
        assert(
          Result.isSuccess(decoded),
          `${name} line ${i + 1}: ${String(Result.isFailure(decoded) && decoded.failure)}`
        )
        // `model.failed` kept its name; every other old line needs the upgrade.
        if (Trace.renamed.has((line as { readonly type: string }).type))
          assert(Result.isFailure(decode(line)), `${name} line ${i + 1} is an old line`)
      }
    }
    // The files hold every old type of the loop and its edges.
    expect([...seen].filter((type) => Trace.renamed.has(type)).sort()).toStrictEqual(
      [...Trace.renamed.keys()].filter((type) => !type.startsWith("session.")).sort()
    )
  })

  it("an old call's `call: { id, name, input }` becomes tool_use_id, name, input", () => {
    const call = OldTraces.lines("salmorejo.jsonl").find((line) => (line as { type: string }).type === "call")
    expect(Trace.upgrade(call)).toStrictEqual({
      type: "call.started",
      turn: 1,
      tool_use_id: "t1",
      name: "read",
      input: { paths: ["recipes/salmorejo.txt", "list.txt"] }
    })
  })

  it("a plan session's old lines: session.start, step.started's call_id, session.unencodable, session.result", () => {
    const upgraded = OldTraces.lines("session.jsonl").map(Trace.upgrade) as ReadonlyArray<Record<string, unknown>>
    expect(upgraded[0]?.type).toBe("session.started")
    expect(upgraded.at(-1)?.type).toBe("session.recorded")
    const started = upgraded.filter((line) => line.type === "step.started")
    expect(started.length).toBeGreaterThan(0)
    for (const line of started) {
      expect(line.tool_use_id).toMatch(/\/step-\d+-\d+$/)
      expect(line).not.toHaveProperty("call_id")
    }
    const [unencodable] = OldTraces.lines("session-unencodable.jsonl").map(Trace.upgrade)
    expect(unencodable).toStrictEqual({
      type: "trace.annotated",
      key: Trace.unencodable,
      value: { rendering: '{"goal":"g","max_steps":1.5}', error: 'Expected an integer\n  at ["max_steps"]' }
    })
  })

  it("a line of today, another harness's event, a value that is not an event: unchanged", () => {
    const today = JSON.parse(Trace.line({ type: "model.requested", turn: 1, messages: 2 }))
    expect(Trace.upgrade(today)).toBe(today)
    for (const value of [null, 3, "start", [{ type: "start" }], { type: 7 }, { type: "usage" }, {}]) {
      expect(Trace.upgrade(value)).toBe(value)
    }
    expect(
      Trace.upgrade(Trace.upgrade({ type: "call", turn: 1, call: { id: "c", name: "n", input: 1 } }))
    ).toStrictEqual({ type: "call.started", turn: 1, tool_use_id: "c", name: "n", input: 1 })
  })

  it("hostile input never throws: a throwing getter, a proxy, an old call whose call is not an object", () => {
    const getter = Object.defineProperty({}, "type", {
      enumerable: true,
      get() {
        throw new Error("no reading me")
      }
    })
    expect(Trace.upgrade(getter)).toBe(getter)
    const proxy = new Proxy(
      { type: "call" },
      {
        ownKeys() {
          throw new Error("no keys")
        }
      }
    )
    expect(Trace.upgrade(proxy)).toBe(proxy)
    expect(Trace.upgrade({ type: "call", turn: 1, call: "c1" })).toStrictEqual({
      type: "call.started",
      turn: 1,
      call: "c1"
    })
  })

  it("every event type written today is <noun>.<past participle>, and none is an old name", () => {
    for (const member of Trace.Event.members) {
      const type = member.fields.type.literal
      expect(type).toMatch(grammar)
      expect(Trace.renamed.has(type)).toBe(false)
    }
  })
})
