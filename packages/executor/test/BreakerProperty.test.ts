/**
 * The repeated-call breaker on random runs, against a run without it and a naive count:
 * - off (no breaker, or one that never trips), a run is exactly the run without it;
 * - `tell`: the same calls run and the same turns happen; an observation differs only by the
 *   catalogue's line, and has it exactly when its call is at least the `after`-th identical call
 *   within the window;
 * - `stop`: the run is the run without it up to the first turn holding such a call, where it stops
 *   with `repeated_call` (every call of that turn answered); no later call runs.
 */
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { type Breaker, Loop, Message, Outcome } from "../src/index.ts"
import { scripted } from "./scripted.ts"

/** Fresh tools per run: `get` answers by its input, `fail` always fails alike, `count` never repeats. */
const makeTools = () => {
  const ran: Array<string> = []
  const Get = Tool.make("get", {
    description: "Gets a key",
    parameters: Schema.Struct({ key: Schema.String, deep: Schema.optionalKey(Schema.Struct({ n: Schema.Finite })) }),
    run: ({ key }) => {
      ran.push(`get ${key}`)
      return key === "x" ? "found x" : Effect.fail({ message: `no key '${key}'` })
    }
  })
  const Fail = Tool.make("fail", {
    description: "Always fails",
    parameters: Schema.Struct({}),
    run: () =>
      Effect.suspend(() => {
        ran.push("fail")
        return Effect.fail({ message: "it failed" })
      })
  })
  let n = 0
  const Count = Tool.make("count", {
    description: "Counts",
    parameters: Schema.Struct({}),
    run: () => {
      ran.push("count")
      n++
      return `count ${n}`
    }
  })
  return { toolset: Toolset.make(Get, Fail, Count), ran }
}

/** A few inputs, some equal up to key order, one with a cycle, one with an unknown field. */
const inputs: ReadonlyArray<() => readonly [string, unknown]> = [
  () => ["get", { key: "x" }],
  () => ["get", { key: "y" }],
  () => ["get", { key: "x", deep: { n: 1 } }],
  () => ["get", { deep: { n: 1 }, key: "x" }],
  () => ["get", { key: "x", extra: true }],
  () => {
    const input: Record<string, unknown> = { key: "x" }
    input.self = input
    return ["get", input]
  },
  () => ["fail", {}],
  () => ["count", {}],
  () => ["nope", { key: "x" }]
]

/** A script: per turn, which inputs are called (the last turn answers with text). */
const scriptArb = fc.array(fc.array(fc.nat({ max: inputs.length - 1 }), { maxLength: 4 }), {
  minLength: 1,
  maxLength: 8
})

const breakerArb: fc.Arbitrary<Breaker.Breaker> = fc.record({
  after: fc.integer({ min: 2, max: 4 }),
  window: fc.integer({ min: 1, max: 4 }),
  action: fc.constantFrom("tell" as const, "stop" as const)
})

const replies = (script: ReadonlyArray<ReadonlyArray<number>>) => [
  ...script.map((turn, t) =>
    turn.map((which, c) => {
      const [name, input] = (inputs[which] as () => readonly [string, unknown])()
      return Message.toolUse(`t${t}c${c}`, name, input)
    })
  ),
  [Message.text("done")]
]

const play = (script: ReadonlyArray<ReadonlyArray<number>>, breaker: Breaker.Breaker | undefined) => {
  const { toolset, ran } = makeTools()
  const model = scripted(replies(script))
  const options = { toolset, messages: [Message.user("go")], maxTurns: 20 }
  return Effect.runPromise(
    Loop.run(breaker === undefined ? options : { ...options, breaker }).pipe(Effect.provide(model.layer))
  ).then((result) => ({ result, ran, requests: model.requests.length }))
}

/** Sorted-keys JSON, or `undefined` for a cycle: the naive canonical text. */
const naive = (u: unknown, open: ReadonlyArray<unknown> = []): string | undefined => {
  if (typeof u !== "object" || u === null) return JSON.stringify(u)
  if (open.includes(u)) return undefined
  const parts: Array<string> = []
  for (const key of Object.keys(u).sort()) {
    const inner = naive((u as Record<string, unknown>)[key], [...open, u])
    if (inner === undefined) return undefined
    parts.push(`${JSON.stringify(key)}:${inner}`)
  }
  return `{${parts.join(",")}}`
}

/**
 * For every call of a run without the breaker, in order: how many identical calls (this one
 * included) fall within the window, counted the slow way.
 */
const counts = (result: Loop.RunResult, breaker: Breaker.Breaker): ReadonlyArray<ReadonlyArray<number>> => {
  const seen: Array<{ readonly turn: number; readonly key: string }> = []
  return result.turns.map((turn) => {
    const calls = Message.toolUses(turn.reply)
    return turn.outcomes.map((outcome, i) => {
      const call = calls[i] as Message.ToolUseBlock
      const input = naive(call.input)
      if (input === undefined) return 0
      const key = JSON.stringify([call.name, input, outcome._tag === "Succeeded", outcome.content])
      seen.push({ turn: turn.turn, key })
      return seen.filter((s) => s.key === key && s.turn > turn.turn - breaker.window).length
    })
  })
}

describe("the breaker on random runs", () => {
  it("off, or never tripping, a run is the run without it; on, nothing passes `after` without its effect", async () => {
    await fc.assert(
      fc.asyncProperty(scriptArb, breakerArb, async (script, breaker) => {
        const plain = await play(script, undefined)
        const off = await play(script, undefined)
        expect(off.result).toEqual(plain.result)
        const on = await play(script, breaker)
        const tally = counts(plain.result, breaker)
        const firstTrip = tally.findIndex((turn) => turn.some((count) => count >= breaker.after))
        if (firstTrip === -1) {
          // Never tripped: exactly the same run.
          expect(on.result).toEqual(plain.result)
          expect(on.ran).toEqual(plain.ran)
          return
        }
        if (breaker.action === "stop") {
          expect(on.result.stop).toBe("repeated_call")
          expect(on.result.turns).toEqual(plain.result.turns.slice(0, firstTrip + 1))
          // The history up to the tripping turn's results, every call of it answered.
          expect(on.result.messages).toEqual(plain.result.messages.slice(0, 1 + 2 * (firstTrip + 1)))
          expect(on.requests).toBe(firstTrip + 1)
          const ranThen = on.result.turns.reduce(
            (n, turn) => n + turn.outcomes.filter((o) => o._tag !== "NotExecuted").length,
            0
          )
          expect(on.ran).toEqual(plain.ran.slice(0, ranThen))
          return
        }
        expect(on.result.stop).toBe(plain.result.stop)
        expect(on.ran).toEqual(plain.ran)
        expect(on.result.turns.length).toBe(plain.result.turns.length)
        for (const [t, turn] of on.result.turns.entries()) {
          for (const [i, outcome] of turn.outcomes.entries()) {
            const before = plain.result.turns[t]?.outcomes[i]
            const count = tally[t]?.[i] ?? 0
            const line = MessageCatalog.english.repeatedCall(count, breaker.window)
            expect(outcome).toEqual(
              count >= breaker.after ? { ...before, content: `${before?.content}\n${line}` } : before
            )
          }
          // What the model read after the turn is what the turn holds.
          if (turn.outcomes.length > 0) {
            expect(on.result.messages[2 + 2 * t]).toEqual(Message.user(turn.outcomes.map(Outcome.toToolResult)))
          }
        }
      }),
      { numRuns: 300 }
    )
  })
})
