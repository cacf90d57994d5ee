/**
 * Row 12: `harness test` on every core. The 10,000 generated scenarios of row 4, run by the
 * built CLI (`bin/harness.js test DIR`, built as it is published) with `--workers 1` (this
 * process alone) and with `--workers N`, N the cores (this process and N − 1 worker threads),
 * interleaved; each figure is the median wall-clock time of the whole command, and the row is
 * the ratio of one worker's time to all's. Both runs must report every scenario passed, with the
 * same output.
 */
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import * as ScenarioRows from "./ScenarioRows.ts"
import * as Table from "./Table.ts"

const cliDir = fileURLToPath(new URL("../../cli/", import.meta.url))
const bin = `${cliDir}bin/harness.js`

/** One run of `harness test DIR --json --workers N`: its wall-clock milliseconds and its output. */
const timed = (dir: string, workers: number): { readonly millis: number; readonly stdout: string } => {
  const at = performance.now()
  const ran = spawnSync(process.execPath, [bin, "test", dir, "--json", "--workers", String(workers)], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
  const millis = performance.now() - at
  check(ran.status === 0, `harness test --workers ${workers} exits 0 (got ${ran.status ?? ran.signal}: ${ran.stderr})`)
  return { millis, stdout: ran.stdout }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** The fewest cores the row's target means anything on: with 2, one thread's start and heap outweigh what it takes off. */
export const minCores = 4

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const cores = availableParallelism()
  if (cores < minCores) {
    return [
      {
        id: "12",
        label: `\`harness test\` on every core: not run on ${cores} cores (threads pay off only with spare cores; the code path is tested in apps/cli/test/TestWorkers*.test.ts)`,
        value: "—",
        target: `≥ 0.7 × cores, on ≥ ${minCores} cores`,
        notHere: `${cores} cores, the row needs ≥ ${minCores}`
      }
    ]
  }
  const built = spawnSync(process.execPath, [`${cliDir}build.ts`], { encoding: "utf8" })
  check(built.status === 0, `the CLI builds (${built.stderr})`)
  const dir = ScenarioRows.writeScenarios()
  try {
    timed(dir, 1) // fills Node's compile cache and the file cache
    const rounds = settings.quick ? 1 : 3
    const one: Array<number> = []
    const all: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      const alone = timed(dir, 1)
      const spread = timed(dir, cores)
      check(spread.stdout === alone.stdout, "harness test prints the same with one worker and with every core")
      const passed = alone.stdout.split("\n").filter((line) => line.includes(`"passed":true`)).length
      check(passed === ScenarioRows.count, `all ${ScenarioRows.count} scenarios pass (${passed} did)`)
      one.push(alone.millis)
      all.push(spread.millis)
    }
    const ratio = median(one) / median(all)
    const target = Math.round(cores * 0.7 * 10) / 10
    return [
      {
        id: "12",
        label: `\`harness test\`, the built CLI, ${ScenarioRows.count.toLocaleString("en-US")} scenarios: one worker ${(median(one) / 1000).toFixed(2)} s ÷ every core (${cores} workers) ${(median(all) / 1000).toFixed(2)} s (median of ${rounds}, interleaved)`,
        value: `×${Table.times(ratio)}`,
        target: `≥ ${target} (0.7 × ${cores} cores)`,
        met: ratio >= target
      }
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
