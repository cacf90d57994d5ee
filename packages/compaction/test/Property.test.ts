/**
 * The protocol holds after any compaction: 100,000 random histories (seeded), each with a
 * random target, through every strategy and a chain of all three, and through `compact` with a
 * random window. Checked on every result: `pairingProblem` finds nothing; the last `keepLast`
 * turns are left as they are; every original tool_use id is either kept with its result or
 * removed with it (and listed as removed); an elided result keeps its `is_error`; the estimate
 * never grows; and `compact` fails with `CannotCompact` only when the floor (system messages,
 * the first user message with the note, the last turn) is over the window.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Message } from "@agent-harness/executor"
import { Compaction } from "../src/index.ts"
import { run } from "./cases.ts"
import * as Generate from "./generate.ts"

const histories = 100_000
const batches = 4

describe("compaction never breaks the protocol (100,000 seeded random histories)", () => {
  for (let batch = 0; batch < batches; batch++) {
    const seed = 0x5eed + batch
    it(`seed ${seed}: ${histories / batches} histories × each strategy, a chain of them, and compact with the default`, () => {
      expect(run(seed, histories / batches)).toBeUndefined()
    })
  }

  it("the generator is seeded: the same seed gives the same histories", () => {
    const a = Generate.prng(7)
    const b = Generate.prng(7)
    expect(Array.from({ length: 20 }, () => Generate.history(a))).toEqual(
      Array.from({ length: 20 }, () => Generate.history(b))
    )
  })

  it("the generator's histories are well formed, and include long results, errors, reasoning and no-call turns", () => {
    const random = Generate.prng(11)
    const all = Array.from({ length: 500 }, () => Generate.history(random))
    for (const h of all) expect(Compaction.pairingProblem(h)).toBeUndefined()
    const blocks = all
      .flat()
      .flatMap(
        (m): ReadonlyArray<Message.ReplyBlock | Message.ToolResultBlock> =>
          typeof m.content === "string" ? [] : m.content
      )
    expect(blocks.some((b) => b.type === "tool_result" && b.content.length >= 1000)).toBe(true)
    expect(blocks.some((b) => b.type === "tool_result" && b.is_error)).toBe(true)
    expect(blocks.some((b) => b.type === "reasoning")).toBe(true)
    expect(
      all.some((h) => h.some((m) => m.role === "assistant" && m.content.every((b) => b.type !== "tool_use")))
    ).toBe(true)
    expect(all.some((h) => h.filter((m) => m.role === "assistant").length >= 7)).toBe(true)
  })
})
