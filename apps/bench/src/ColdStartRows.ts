/**
 * Row 9: the installed CLI's cold start. The CLI is built as it is published (`apps/cli`'s
 * `build.ts`: one bundle, subcommands in their own chunks) and `bin/harness.js run <the Spanish
 * salmorejo scenario>` is timed as a whole process against a bare `node -e 0`, the two
 * interleaved in the same run, each figure the median of the runs. The compile cache of Node is
 * warmed by a first untimed start, as it is for a user from the second command on. Peak memory
 * is the child's own `maxRSS`, read in a separate pass (a preloaded module reports it at exit),
 * so the timed runs carry no instrumentation.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const cliDir = fileURLToPath(new URL("../../cli/", import.meta.url))
const bin = `${cliDir}bin/harness.js`
const scenario = `${cliDir}scenarios/es/salmorejo.json`
const command = [bin, "run", scenario]

const wall = (args: ReadonlyArray<string>): number => {
  const at = performance.now()
  const ran = spawnSync(process.execPath, args, { stdio: "ignore" })
  const millis = performance.now() - at
  check(ran.status === 0, `${args.join(" ")} exits 0 (got ${ran.status ?? ran.signal})`)
  return millis
}

/** The child's peak resident memory in MiB, reported by the child itself at exit. */
const peakMiB = (args: ReadonlyArray<string>): number => {
  const report = "process.on('exit',()=>process.stderr.write('maxRSS='+process.resourceUsage().maxRSS+'\\n'))"
  const ran = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(report)}`, ...args], {
    encoding: "utf8"
  })
  const kb = Number(/maxRSS=(\d+)/.exec(ran.stderr ?? "")?.[1])
  check(ran.status === 0 && Number.isFinite(kb), `the CLI reports its peak memory (${ran.stderr})`)
  return kb / 1024
}

const median = (values: Array<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const built = spawnSync(process.execPath, [`${cliDir}build.ts`], { encoding: "utf8" })
  check(built.status === 0, `the CLI builds (${built.stderr})`)
  wall(command) // fills Node's compile cache
  const runs = settings.quick ? 7 : 31
  const bare: Array<number> = []
  const cli: Array<number> = []
  for (let i = 0; i < runs; i++) {
    bare.push(wall(["-e", "0"]))
    cli.push(wall(command))
  }
  const memory = median(Array.from({ length: settings.quick ? 3 : 7 }, () => peakMiB(command)))
  const ratio = median(cli) / median(bare)
  return [
    {
      id: "9",
      label: `\`harness run\` of one scenario, the built CLI, whole process: ${median(cli).toFixed(0)} ms, \`node -e 0\` ${median(bare).toFixed(0)} ms (median of ${runs}, interleaved)`,
      value: `×${Table.times(ratio)}`,
      target: "≤ 4 × node -e 0",
      met: ratio <= 4
    },
    {
      id: "9",
      label: "the same run's peak memory (maxRSS)",
      value: `${memory.toFixed(0)} MiB`,
      target: "≤ 80 MiB",
      met: memory <= 80
    }
  ]
}
