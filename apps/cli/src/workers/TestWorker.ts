/**
 * A `harness test` worker thread: runs the files its parent sends (`TestWorkers.serve`), as
 * `ScenarioCommands.runFiles` does in the parent, under the variant the parent names, over the
 * CLI's `ScenarioServices`. Started by `TestWorkers.run`; does nothing when loaded elsewhere.
 *
 * @since 0.1.0
 */
import { parentPort, workerData } from "node:worker_threads"
import { Variant } from "@agent-harness/scenario"
import { Effect } from "effect"
import * as ScenarioCommands from "../engine/Local.ts"
import * as ScenarioServices from "../scenarios/ScenarioServices.ts"
import * as TestWorkers from "./TestWorkers.ts"

const named: unknown = (workerData as { readonly variant?: unknown } | null)?.variant
const variants: Readonly<Record<string, Variant.Variant>> = Variant.byName
const variant = typeof named === "string" ? variants[named] : undefined

if (parentPort !== null && variant !== undefined) {
  Effect.runFork(
    TestWorkers.serve(parentPort, (jobs, each) => ScenarioCommands.runFiles(jobs, variant, each)).pipe(
      Effect.provide(ScenarioServices.layer)
    )
  )
} else if (parentPort !== null) {
  throw new Error(`harness test worker: unknown variant ${JSON.stringify(named)}`)
}
