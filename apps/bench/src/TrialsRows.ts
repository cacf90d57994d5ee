/**
 * Rows 15a and 15b (issue 23): trials against an instant fake, timed as one wall-clock run
 * each. One live case (a file to read, the text `done` to pass), a model that answers `done` at
 * once (`Model.fromReply`), its layer built anew per trial, 8 trials at once.
 *
 * - 15a: `Trials.run` of the case, 10,000 trials, nothing written.
 * - 15b: `CaseSet.run` of the same case, 10,000 trials with a report folder (a temp folder on
 *   Node's file system), one trial in ten failing (its model answers `not done`): each trial
 *   traced in memory and journaled as it ends, the failing ones' traces written to their own
 *   files (the default, `traces: "failing"`).
 *
 * Run these rows alone with `pnpm bench --only trials`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Message, Model } from "@agent-harness/executor"
import { ScenarioFile, Variant } from "@agent-harness/scenario"
import { CaseSet, Trials } from "@agent-harness/trials"
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer, Result } from "effect"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import type * as Table from "./Table.ts"

/** How many trials each row runs. */
export const count = 10_000

/** How many trials run at once. */
const concurrency = 8

const file = "cases/bench.json"

const live = (): ScenarioFile.Live => {
  const decoded = ScenarioFile.decode(file, {
    format: 1,
    kind: "live",
    name: "bench",
    user: "Say done.",
    files: { "a.txt": "hello" },
    pass: [{ text: "done" }],
    threshold: { minPassRate: 1 }
  })
  if (Result.isFailure(decoded) || decoded.success.kind !== "live") throw new Error("bench: the live case is invalid")
  return decoded.success
}

/** An instant fake: every trial's model answers `done` at once (the layer is built per trial). */
const model = Layer.effect(
  Model.Model,
  Effect.sync(() => Model.fromReply(() => Effect.succeed([Message.text("done")])))
)

/** The instant fake of 15b: trial i answers `not done` when i is a multiple of 10, else `done`. */
const tenthFails = (at: CaseSet.TrialAt) =>
  Layer.effect(
    Model.Model,
    Effect.sync(() => Model.fromReply(() => Effect.succeed([Message.text(at.index % 10 === 0 ? "not done" : "done")])))
  )

const label = (what: string, seconds: number) =>
  `${what}: ${count.toLocaleString("en-US")} trials against an instant fake, ${concurrency} at once (${Math.round((seconds * 1e6) / count)} µs each)`

const trialsRow = async (): Promise<Table.Row> => {
  const started = performance.now()
  const report = await Effect.runPromise(Trials.run(live(), file, { trials: count, model, concurrency }))
  const seconds = (performance.now() - started) / 1000
  check(report.rate.passes === count && report.met, `all ${count} trials pass (${report.rate.passes} did)`)
  return {
    id: "15a",
    label: label("`Trials.run`", seconds),
    value: `${seconds.toFixed(2)} s`,
    target: "< 10 s",
    met: seconds < 10
  }
}

const caseSetRow = async (): Promise<Table.Row> => {
  const folder = mkdtempSync(join(tmpdir(), "harness-bench-trials-"))
  try {
    const started = performance.now()
    const one: CaseSet.Case = { live: live(), file, digest: "0".repeat(64), reserved: false }
    const report = await Effect.runPromise(
      CaseSet.run([one], {
        trials: count,
        variants: [Variant.defaultVariant],
        model: tenthFails,
        modelName: "bench:instant",
        concurrency,
        folder
      }).pipe(Effect.provide(NodeServices.layer))
    )
    const seconds = (performance.now() - started) / 1000
    const passes = report.cases[0]?.rate.passes ?? 0
    check(passes === count - count / 10, `9 in 10 journaled trials pass (${passes} of ${count} did)`)
    const lines = readFileSync(join(folder, "journal.jsonl"), "utf8").trimEnd().split("\n").length
    check(lines === count + 1, `the journal holds a header and ${count} trials (${lines} lines)`)
    const traces = readdirSync(join(folder, "traces")).length
    check(traces === count / 10, `a trace file per failing trial (${traces})`)
    return {
      id: "15b",
      label: label("`CaseSet.run`, one in ten failing, journaled, failing traces written, in a temp folder", seconds),
      value: `${seconds.toFixed(2)} s`,
      target: "< 10 s",
      met: seconds < 10
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/** Rows 15a and 15b, one run each. */
export const measure = async (_settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => [
  await trialsRow(),
  await caseSetRow()
]
