/**
 * Row 9: the installed CLI's cold start. The CLI is built as it is published (`apps/cli`'s
 * `build.ts`: one bundle, subcommands in their own chunks) and `bin/harness.js run <the Spanish
 * salmorejo scenario>` is timed as a whole process against a bare `node -e 0`, the three cases
 * interleaved in the same run, each figure the median of the runs. And `bin/harness.js mcp serve
 * --tools files --root <a folder>` ready: from its spawn to its answer of `tools/list` (after
 * `initialize` and `notifications/initialized`, all three written at once on its stdin), as row
 * 17a counts a server's start; the answer is checked to list the read tool, and the server to
 * exit 0 when its stdin ends. The compile cache of Node is warmed by a first untimed start, as
 * it is for a user from the second command on. Peak memory is the child's own `VmHWM`, read in
 * a separate pass (a preloaded module reports it at exit), so the timed runs carry no
 * instrumentation.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
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

/**
 * The child's peak resident memory in MiB, reported by the child itself at exit: `VmHWM` of
 * `/proc/self/status`, the high-water mark of the memory the program has had since its `exec`.
 * Not `maxRSS` (`getrusage`): Linux carries the memory of the process that forked the child over
 * its `exec` into that figure, so a child of this bench, whose own heap has grown by the earlier
 * rows, reported the bench's size rather than its own (93 MiB in a full run, 54 MiB alone).
 */
const peakMiB = (args: ReadonlyArray<string>): number => {
  const report = [
    "import { readFileSync } from 'node:fs'",
    "process.on('exit', () => process.stderr.write('VmHWM=' + /VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1] + '\\n'))"
  ].join("\n")
  const ran = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(report)}`, ...args], {
    encoding: "utf8"
  })
  const kb = Number(/VmHWM=(\d+)/.exec(ran.stderr ?? "")?.[1])
  check(ran.status === 0 && Number.isFinite(kb), `the CLI reports its peak memory (${ran.stderr})`)
  return kb / 1024
}

/** The handshake and the listing, as a client sends them. */
const handshake = [
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0.0.0" } }
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1, method: "tools/list" }
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join("")

/** Milliseconds from spawning `harness mcp serve` over `root` to its answer of `tools/list`. */
const ready = (root: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const at = performance.now()
    const child = spawn(process.execPath, [bin, "mcp", "serve", "--tools", "files", "--root", root], {
      stdio: ["pipe", "pipe", "ignore"]
    })
    let answered: number | undefined
    let listed = false
    let buffer = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        const message = JSON.parse(line) as { readonly id?: unknown; readonly result?: { readonly tools?: unknown } }
        if (message.id !== 1) continue
        answered = performance.now() - at
        listed = Array.isArray(message.result?.tools) && JSON.stringify(message.result.tools).includes('"name":"read"')
        child.stdin.end()
      }
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code === 0 && answered !== undefined && listed) resolve(answered)
      else
        reject(
          new Error(`harness mcp serve answers tools/list with the read tool and exits 0 (got ${code}, ${listed})`)
        )
    })
    child.stdin.write(handshake)
  })

const median = (values: Array<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const built = spawnSync(process.execPath, [`${cliDir}build.ts`], { encoding: "utf8" })
  check(built.status === 0, `the CLI builds (${built.stderr})`)
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "bench-cold-"))
  try {
    fs.writeFileSync(nodePath.join(root, "notes.md"), "hello\n")
    wall(command) // fills Node's compile cache
    await ready(root)
    const runs = settings.quick ? 7 : 31
    const bare: Array<number> = []
    const cli: Array<number> = []
    const serve: Array<number> = []
    for (let i = 0; i < runs; i++) {
      bare.push(wall(["-e", "0"]))
      cli.push(wall(command))
      serve.push(await ready(root))
    }
    const memory = median(Array.from({ length: settings.quick ? 3 : 7 }, () => peakMiB(command)))
    const ratio = median(cli) / median(bare)
    const serveRatio = median(serve) / median(bare)
    return [
      {
        id: "9",
        label: `\`harness run\` of one scenario, the built CLI, whole process: ${median(cli).toFixed(0)} ms, \`node -e 0\` ${median(bare).toFixed(0)} ms (median of ${runs}, interleaved)`,
        value: `×${Table.times(ratio)}`,
        target: "≤ 3 × node -e 0",
        met: ratio <= 3
      },
      {
        id: "9",
        label: `\`harness mcp serve --tools files\` ready (its answer to \`tools/list\`, as row 17a): ${median(serve).toFixed(0)} ms, \`node -e 0\` ${median(bare).toFixed(0)} ms (median of ${runs}, interleaved)`,
        value: `×${Table.times(serveRatio)}`,
        target: "≤ 3 × node -e 0",
        met: serveRatio <= 3
      },
      {
        id: "9",
        label: "the same run's peak memory (`VmHWM`: since its `exec`, not `maxRSS`, which counts the forking bench)",
        value: `${memory.toFixed(0)} MiB`,
        target: "≤ 80 MiB",
        met: memory <= 80
      }
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
