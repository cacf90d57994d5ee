/**
 * The invariants know the loop's stop reasons through the executor's one `StopReason` Schema:
 * the same list, the same answer for anything else (hostile values included).
 */
import { StopReason } from "@agent-harness/executor"
import { describe, expect, it } from "@effect/vitest"
import { Invariants } from "../src/index.ts"

describe("Invariants.stopReasons", () => {
  it("is the StopReason Schema's list", () => {
    expect(Invariants.stopReasons).toBe(StopReason.StopReason.literals)
    for (const reason of StopReason.StopReason.literals) expect(Invariants.isStopReason(reason)).toBe(true)
  })

  it("refuses what the Schema refuses, never throwing", () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error("trap")
        },
        getPrototypeOf: () => {
          throw new Error("trap")
        }
      }
    )
    for (const u of ["diverged", "END", "", null, undefined, 0, ["end"], { stop: "end" }, hostile]) {
      expect(Invariants.isStopReason(u)).toBe(false)
      expect(StopReason.is(u)).toBe(false)
    }
  })
})
