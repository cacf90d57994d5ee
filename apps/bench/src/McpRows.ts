/**
 * Row 17 (issue 27): `harness mcp serve --tools files` against the official
 * `@modelcontextprotocol/server-filesystem` on the same folder, both over stdio and both driven
 * the same way by the official SDK's `Client` (its `StdioClientTransport`). The CLI is the built
 * one (`apps/cli`'s `build.ts`, `bin/harness.js`, which turns on Node's compile cache), as a
 * user installs it.
 *
 * - 17a, start: from spawning the server to the answer of `tools/list` (the handshake,
 *   `initialize` and `notifications/initialized`, then the listing), a fresh process each time.
 * - 17b, per call: one `tools/call` of a read of the same small file (`read` / `read_text_file`),
 *   the round trip as the client sees it, timed over a batch of calls after a warm-up.
 *
 * Before timing, each side is checked to do what the row says: the same folder, `tools/list`
 * lists the read tool, the read returns the file's content. Rounds interleave the two servers
 * (which goes first alternates); each figure is the median over the rounds, and the ratios are
 * taken within the run. Run alone: `pnpm bench --only mcp [--quick]`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const cliDir = fileURLToPath(new URL("../../cli/", import.meta.url))
const harnessBin = `${cliDir}bin/harness.js`
const officialBin = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url)
)

/** The file both servers read. */
const content = "# notes\n\n- water the plants\n- call the plumber\n"

/** One server: how it starts over a folder, and how its read tool is called for the file. */
interface Side {
  readonly name: string
  readonly args: (root: string) => ReadonlyArray<string>
  readonly tool: string
  readonly input: (root: string) => Record<string, unknown>
}

const harness: Side = {
  name: "harness",
  args: (root) => [harnessBin, "mcp", "serve", "--tools", "files", "--root", root],
  tool: "read",
  input: () => ({ path: "notes.md" })
}

const official: Side = {
  name: "official",
  args: (root) => [officialBin, root],
  tool: "read_text_file",
  input: (root) => ({ path: nodePath.join(root, "notes.md") })
}

/** A connected client of a freshly spawned server, and how long it took to list its tools. */
const start = async (side: Side, root: string): Promise<{ readonly client: Client; readonly listedMs: number }> => {
  const at = performance.now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...side.args(root)],
    stderr: "ignore"
  })
  const client = new Client({ name: "bench", version: "0.0.0" })
  await client.connect(transport)
  const listed = await client.listTools()
  const listedMs = performance.now() - at
  check(
    listed.tools.some((tool) => tool.name === side.tool),
    `${side.name}: tools/list lists ${side.tool} (${listed.tools.map((tool) => tool.name).join(", ")})`
  )
  return { client, listedMs }
}

/** The text of a read, checked to be the file's content. */
const read = async (client: Client, side: Side, root: string): Promise<void> => {
  const result = await client.callTool({ name: side.tool, arguments: side.input(root) })
  const blocks = (result as { readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }> })
    .content
  const text = blocks?.[0]?.type === "text" ? blocks[0].text : undefined
  if (text !== content || result.isError === true) {
    check(false, `${side.name}: ${side.tool} returns the file's content (got ${JSON.stringify(result).slice(0, 200)})`)
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const built = spawnSync(process.execPath, [`${cliDir}build.ts`], { encoding: "utf8" })
  check(built.status === 0, `the CLI builds (${built.stderr})`)
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "bench-mcp-"))
  try {
    fs.writeFileSync(nodePath.join(root, "notes.md"), content)
    const sides = [harness, official]
    // Checked, and Node's compile cache filled, before anything is timed.
    for (const side of sides) {
      const { client } = await start(side, root)
      await read(client, side, root)
      await client.close()
    }
    const rounds = settings.quick ? 5 : 15
    const calls = settings.quick ? 100 : 400
    const warm = 50
    const startMs = new Map<string, Array<number>>(sides.map((side) => [side.name, []]))
    const callUs = new Map<string, Array<number>>(sides.map((side) => [side.name, []]))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse()
      for (const side of order) {
        const { client, listedMs } = await start(side, root)
        startMs.get(side.name)?.push(listedMs)
        for (let i = 0; i < warm; i++) await read(client, side, root)
        const at = performance.now()
        for (let i = 0; i < calls; i++) await read(client, side, root)
        callUs.get(side.name)?.push(((performance.now() - at) * 1000) / calls)
        await client.close()
      }
    }
    const ours = { start: median(startMs.get("harness") ?? []), call: median(callUs.get("harness") ?? []) }
    const theirs = { start: median(startMs.get("official") ?? []), call: median(callUs.get("official") ?? []) }
    const startRatio = ours.start / theirs.start
    const callRatio = ours.call / theirs.call
    return [
      {
        id: "17a",
        label: `\`harness mcp serve --tools files\` (the built CLI) over stdio, from spawn to the answer of \`tools/list\` (median of ${rounds}, interleaved, the official SDK's client)`,
        value: `${ours.start.toFixed(0)} ms`
      },
      {
        id: "17a",
        label: "`@modelcontextprotocol/server-filesystem` on the same folder, the same way",
        value: `${theirs.start.toFixed(0)} ms`
      },
      {
        id: "17a",
        label: "start: harness ÷ official",
        value: `×${Table.times(startRatio)}`,
        target: "≤ 0.75",
        met: startRatio <= 0.75
      },
      {
        id: "17b",
        label: `one \`tools/call\` of a read of the same file, round trip (\`read\` / \`read_text_file\`; ${calls} calls after ${warm}, median of ${rounds})`,
        value: `${ours.call.toFixed(0)} µs`
      },
      {
        id: "17b",
        label: "the official server's `read_text_file`, the same way",
        value: `${theirs.call.toFixed(0)} µs`
      },
      {
        id: "17b",
        label: "per call: harness ÷ official",
        value: `×${Table.times(callRatio)}`,
        target: "≤ 0.5",
        met: callRatio <= 0.5
      }
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
