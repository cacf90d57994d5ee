/**
 * Fault injection, for real: the soak child (a journaled conversation full of appends and
 * writes over a durable environment) is killed with SIGKILL at random instants and restarted
 * on the same journal, at least 200 times over the suite.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Soak from "../src/local/Soak.ts"
import * as SoakChild from "../src/local/SoakChild.ts"
import * as SoakConversation from "../src/local/SoakConversation.ts"

/** A soak, and the report of each run as it came. */
const runWithReports = (options: Omit<Soak.Options, "onRun">) =>
  Effect.gen(function* () {
    const reports: Array<Soak.RunReport> = []
    const summary = yield* Soak.run({ ...options, onRun: (report) => Effect.sync(() => void reports.push(report)) })
    return { summary, reports }
  })

describe("the crash-safety soak", () => {
  it.live(
    "after 320 SIGKILLs no append ran twice, every unfinished call was reported outcome unknown, finished calls replayed",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 80,
          killsPerRun: 4,
          seed: 1000
        })
        expect(summary.bundleError).toBeUndefined()
        expect(summary.violations).toEqual([])
        expect(summary.runs).toBe(80)
        // Every planned kill lands (the child holds in the call it was planned in).
        expect(summary.kills).toBe(320)
        expect(reports.every((r) => r.kills === r.planned)).toBe(true)
        expect(summary.duplicated).toBe(0)
        // Every call the journals hold as started and never finished was reported outcome
        // unknown by the last child, and kills landed mid-call.
        expect(summary.unknown).toBe(summary.unfinished)
        expect(summary.unknown).toBeGreaterThan(0)
        expect(summary.replayed).toBeGreaterThan(0)
        expect(reports.map((r) => r.run).sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1))
        expect(reports.every((r) => r.starts === r.kills + 1)).toBe(true)
        expect(JSON.parse(Soak.summaryJson(summary))).toEqual({
          runs: summary.runs,
          kills: summary.kills,
          duplicated: 0,
          unknown: summary.unknown,
          replayed: summary.replayed
        })
      }),
    600_000
  )

  it("the child's arguments: a journal, a folder, a seed, then --no-journal and --hold-at K in any order", () => {
    expect(SoakChild.parseArgs(["j.db", "env", "7"])).toEqual({ journal: "j.db", envdir: "env", seed: 7 })
    expect(SoakChild.parseArgs(["j.db", "env", "7", "--hold-at", "12", "--no-journal"])).toEqual({
      journal: undefined,
      envdir: "env",
      seed: 7,
      holdAt: 12
    })
    for (const bad of [
      ["j.db", "env"],
      ["j.db", "env", "x"],
      ["j.db", "env", "7", "--hold-at"],
      ["j.db", "env", "7", "--hold-at", "-1"],
      ["j.db", "env", "7", "--hold-at", "1.5"],
      ["j.db", "env", "7", "--no-journal", "--no-journal"],
      ["j.db", "env", "7", "--bogus"]
    ]) {
      expect(SoakChild.parseArgs(bad)).toBeUndefined()
    }
  })

  it("the conversation is the same at every start, full of appends and writes with unique ids", () => {
    const one = SoakConversation.calls(SoakConversation.conversation(7))
    expect(SoakConversation.calls(SoakConversation.conversation(7))).toEqual(one)
    expect(new Set(one.map((c) => c.id)).size).toBe(one.length)
    expect(one.filter((c) => c.name === "append").length).toBeGreaterThan(one.length / 2)
    expect(one.some((c) => c.name === "write")).toBe(true)
    for (const call of one) {
      if (call.name === "append") expect(call.input.content).toBe(`[${call.id}]\n`)
      else expect(call.input.content).not.toMatch(SoakConversation.appendMark)
    }
  })

  it.live(
    "the soak finds what it is for: without the journal, a restart runs appends again, and that is counted",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 4,
          killsPerRun: 3,
          seed: 2000,
          withoutJournal: true,
          keepFailed: false
        })
        // Without the journal a child runs its whole conversation in a few milliseconds, often
        // before a loaded driver has read its first line: the kills must land all the same.
        expect(summary.kills).toBe(12)
        expect(reports.map((r) => [r.kills, r.starts])).toEqual([
          [3, 4],
          [3, 4],
          [3, 4],
          [3, 4]
        ])
        expect(summary.duplicated).toBeGreaterThan(0)
        expect(summary.unknown).toBe(0)
        expect(Soak.passed(summary)).toBe(false)
        expect(summary.violations.some((v) => /a\d+ ran [2-9] times/.test(v))).toBe(true)
        expect(summary.violations.some((v) => v.includes("folder is kept"))).toBe(false)
      }),
    120_000
  )

  it.live(
    "kills at fixed points (no random instants): every kill finds the child holding in its planned call",
    () =>
      Effect.gen(function* () {
        const { summary, reports } = yield* runWithReports({
          runs: 2,
          killsPerRun: 2,
          seed: 3000,
          randomInstants: false
        })
        expect(summary.violations).toEqual([])
        expect(summary.kills).toBe(4)
        expect(summary.held).toBe(4)
        expect(summary.duplicated).toBe(0)
        expect(reports.every((r) => r.starts === 3)).toBe(true)
      }),
    120_000
  )
})
