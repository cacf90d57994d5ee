/**
 * `pnpm bench [--quick]`: every row of issue 6 in one process run, printed as a Markdown table
 * and written to `apps/bench/RESULTS.md`.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, totalmem } from "node:os"
import { fileURLToPath } from "node:url"
import * as AdapterRows from "./AdapterRows.ts"
import * as ColdStartRows from "./ColdStartRows.ts"
import * as DiffRows from "./DiffRows.ts"
import * as DurableRows from "./DurableRows.ts"
import * as ExecuteRows from "./ExecuteRows.ts"
import * as IdempotencyRows from "./IdempotencyRows.ts"
import * as LoopRows from "./LoopRows.ts"
import * as McpRows from "./McpRows.ts"
import * as Measure from "./Measure.ts"
import * as MemoryRows from "./MemoryRows.ts"
import * as ParallelRows from "./ParallelRows.ts"
import * as PlannerRows from "./PlannerRows.ts"
import * as ScenarioRows from "./ScenarioRows.ts"
import * as StreamRows from "./StreamRows.ts"
import * as TelemetryRows from "./TelemetryRows.ts"
import * as Table from "./Table.ts"
import * as TreeRows from "./TreeRows.ts"
import * as TrialsRows from "./TrialsRows.ts"
import * as ViewerRows from "./ViewerRows.ts"

const settings = process.argv.includes("--quick") ? Measure.quick : Measure.full
// `pnpm bench --only GROUP [--quick]`: one group of rows alone, printed only (with its summary line).
const alone: Readonly<Record<string, (settings: Measure.Settings) => Promise<ReadonlyArray<Table.Row>>>> = {
  execute: async (s) => (await ExecuteRows.measure(s)).rows,
  cold: ColdStartRows.measure,
  mcp: McpRows.measure,
  durable: async (s) => DurableRows.measure(s, (await ExecuteRows.measure(s)).a),
  parallel: ParallelRows.measure,
  tree: TreeRows.measure,
  stream: StreamRows.measure,
  trials: TrialsRows.measure
}
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
const group = only === undefined ? undefined : alone[only]
if (group !== undefined) {
  const rows = await group(settings)
  console.log(`${Table.markdown(rows)}\n\n${Table.summary(rows)}`)
  process.exit(0)
}
// `pnpm bench --only telemetry [--quick]`: rows 1–2 (for A), then row 16, printed only.
if (only === "telemetry") {
  const { a } = await ExecuteRows.measure(settings)
  console.log(Table.markdown(await TelemetryRows.measure(settings, a)))
  process.exit(0)
}
if (only !== undefined) {
  console.error(
    `pnpm bench --only: ${JSON.stringify(only)} is no group; one of ${[...Object.keys(alone), "telemetry"].join(", ")}`
  )
  process.exit(2)
}
const started = performance.now()
const step = async <A>(name: string, run: () => Promise<A>): Promise<A> => {
  const at = performance.now()
  const out = await run()
  console.error(`${name}: ${((performance.now() - at) / 1000).toFixed(1)} s`)
  return out
}

const execute = await step("rows 1–2", () => ExecuteRows.measure(settings))
const rows: Array<Table.Row> = [...execute.rows]
const loop = await step("row 3", () => LoopRows.measure(settings, execute.a))
rows.push(...loop)
rows.push(...(await step("row 4", () => ScenarioRows.measure(settings))))
rows.push(...(await step("row 5", () => DiffRows.measure(settings))))
rows.push(...(await step("row 6", () => MemoryRows.measure(settings))))
rows.push(...(await step("row 7", () => PlannerRows.measure(settings, execute.a))))
rows.push(...(await step("row 7 (journal)", () => IdempotencyRows.measure(settings, execute.a))))
rows.push(...(await step("row 8", () => ViewerRows.measure(settings))))
rows.push(...(await step("row 9", () => ColdStartRows.measure(settings))))
// Row 10 compares with row 3's loop per call (its first row: the median is its ratio × A).
const loopPerCall = (loop[0]?.ratio ?? Number.NaN) * execute.a
rows.push(...(await step("row 10", () => AdapterRows.measure(settings, loopPerCall))))
rows.push(...(await step("row 11", () => DurableRows.measure(settings, execute.a))))
rows.push(...(await step("row 12", () => ParallelRows.measure(settings))))
rows.push(...(await step("row 13", () => TreeRows.measure(settings))))
rows.push(...(await step("row 14", () => StreamRows.measure(settings))))
rows.push(...(await step("row 15", () => TrialsRows.measure(settings))))
rows.push(...(await step("row 16", () => TelemetryRows.measure(settings, execute.a))))
rows.push(...(await step("row 17", () => McpRows.measure(settings))))
const seconds = (performance.now() - started) / 1000

const cpu = cpus()[0]?.model ?? "unknown CPU"
const machine = `${availableParallelism()} × ${cpu}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${process.platform}-${process.arch}`
const text = [
  `${settings.quick ? "Quick run" : "Run"} of ${new Date().toISOString().slice(0, 10)} on ${machine}; ${seconds.toFixed(0)} s.`,
  `${settings.rounds} shuffled rounds per group; each figure is the median over the rounds of the per-round median.`,
  `A = ${Table.ns(execute.a)} per call, timed one call per sample like every single-call row; the timer alone costs ${Table.ns(execute.floor)} that way.`,
  "",
  Table.markdown(rows),
  "",
  Table.summary(rows)
].join("\n")
console.log(text)
if (!settings.quick) {
  // The full run is the one the docs show: RESULTS.md, and the blocks between the markers in
  // docs/performance.md and the bench's own README.
  const results = fileURLToPath(new URL("../RESULTS.md", import.meta.url))
  writeFileSync(results, `# Latest results\n\n${text}\n`)
  const readmes = ["../README.md", "../../../docs/performance.md"].map((path) =>
    fileURLToPath(new URL(path, import.meta.url))
  )
  const start = "<!-- results:start -->"
  const end = "<!-- results:end -->"
  for (const readme of readmes) {
    const current = readFileSync(readme, "utf8")
    const from = current.indexOf(start)
    const to = current.indexOf(end)
    if (from >= 0 && to > from) {
      writeFileSync(readme, `${current.slice(0, from + start.length)}\n${text}\n${current.slice(to)}`)
    }
  }
  // The repository's formatter owns Markdown too (`pnpm format:check`): lay the tables out its way.
  spawnSync("biome", ["format", "--write", results, ...readmes], { stdio: "ignore" })
}
