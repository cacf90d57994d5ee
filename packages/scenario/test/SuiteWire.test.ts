/**
 * A suite entry as plain data, as a worker sends it: a verdict or an invalid file survives
 * structured clone and JSON, and comes back reporting exactly as before; anything else is refused.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Report, ScenarioFile, Suite } from "../src/index.ts"

const shipped = (path: string) => fileURLToPath(new URL(`../../../apps/cli/scenarios/${path}`, import.meta.url))

describe("Suite.toWire and fromWire", () => {
  it.effect("verdicts of every kind and an invalid file: the same report lines after the trip", () =>
    Effect.gen(function* () {
      const files = ["es/salmorejo.json", "plan/replan-once.json", "regress/catalogo.json"].map(shipped)
      const entries: Array<Suite.Entry> = []
      for (const file of files) {
        const parsed = ScenarioFile.parse(file, readFileSync(file, "utf8"))
        if (Result.isFailure(parsed)) throw new Error(parsed.failure.message)
        entries.push(Result.succeed(yield* Suite.run(parsed.success, file)))
      }
      const broken = ScenarioFile.parse("broken.json", `{"format":1,"kind":"conversation","turns":[{}]}`)
      if (Result.isSuccess(broken)) throw new Error("broken.json decoded")
      entries.push(Result.fail(broken.failure))
      expect(entries.map((e) => Result.isSuccess(e))).toEqual([true, true, true, false])
      for (const entry of entries) {
        for (const trip of [structuredClone, (u: unknown) => JSON.parse(JSON.stringify(u))]) {
          const back = Suite.fromWire(trip(Suite.toWire(entry)))
          if (back === undefined) throw new Error("refused its own wire form")
          if (Result.isSuccess(entry) && Result.isSuccess(back)) {
            expect(Report.json(back.success)).toBe(Report.json(entry.success))
            expect(Report.verdict(back.success)).toBe(Report.verdict(entry.success))
          } else if (Result.isFailure(entry) && Result.isFailure(back)) {
            expect(back.failure._tag).toBe("InvalidScenario")
            expect(Report.invalid(back.failure)).toBe(Report.invalid(entry.failure))
            expect(Report.invalidJson(back.failure, "fixed")).toBe(Report.invalidJson(entry.failure, "fixed"))
          } else {
            throw new Error("a verdict came back as an invalid file, or the other way round")
          }
        }
      }
    })
  )

  it("what is not an entry is refused", () => {
    for (const junk of [null, 1, "x", [], {}, { verdict: {} }, { invalid: { file: "f", path: 1, problem: "p" } }]) {
      expect(Suite.fromWire(junk)).toBeUndefined()
    }
  })
})
