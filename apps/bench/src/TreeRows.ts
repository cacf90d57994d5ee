/**
 * Row 13: the file tools over a repository-like tree (`TreeFiles`): `list ""` and `search` over
 * 10,000 tracked files in 100 folders with 100,000 ignored files under `node_modules` (and a
 * `.gitignore` naming it), against a naive recursive walk that descends into everything (an
 * `lstat` per entry; the search reads every file). The tree is made once in a temp folder and
 * removed afterwards; the cases run interleaved, each round in a fresh order, and a figure is the
 * median over the rounds. Run it alone with `pnpm bench --only tree`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Exit } from "effect"
// The bench reaches file-tools by path: it is not one of this app's dependencies.
import { Files, FileTools, TreeFiles } from "../../../packages/file-tools/src/index.ts"
import type * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const tracked = { folders: 100, perFolder: 100 }
const ignored = { packages: 1000, perPackage: 100 }

/** The tree: `src/dNN/fNN.ts` (every 10th file holds `needle`), `node_modules/pNNN/iNN.js`. */
const makeTree = (root: string): void => {
  fs.writeFileSync(nodePath.join(root, ".gitignore"), "node_modules/\n")
  for (let d = 0; d < tracked.folders; d++) {
    const folder = nodePath.join(root, "src", `d${d}`)
    fs.mkdirSync(folder, { recursive: true })
    for (let f = 0; f < tracked.perFolder; f++) {
      const needle = (d * tracked.perFolder + f) % 10 === 0 ? "const needle = 1\n" : ""
      fs.writeFileSync(nodePath.join(folder, `f${f}.ts`), `export const f${f} = ${d}\n${needle}`)
    }
  }
  for (let p = 0; p < ignored.packages; p++) {
    const folder = nodePath.join(root, "node_modules", `p${p}`)
    fs.mkdirSync(folder, { recursive: true })
    for (let i = 0; i < ignored.perPackage; i++) {
      fs.writeFileSync(nodePath.join(folder, `i${i}.js`), "module.exports = 'needle'\n")
    }
  }
}

/** The naive walk: every folder entered, every entry `lstat`ed; files' paths collected. */
const naiveWalk = (root: string, onFile: (path: string, abs: string) => void): void => {
  const visit = (abs: string, rel: string): void => {
    for (const name of fs.readdirSync(abs).sort()) {
      const child = nodePath.join(abs, name)
      const path = rel === "" ? name : `${rel}/${name}`
      const stats = fs.lstatSync(child)
      if (stats.isDirectory()) visit(child, path)
      else if (stats.isFile()) onFile(path, child)
    }
  }
  visit(root, "")
}

const naiveList = (root: string): number => {
  let count = 0
  naiveWalk(root, () => {
    count++
  })
  return count
}

const naiveSearch = (root: string, pattern: string): number => {
  let count = 0
  naiveWalk(root, (_path, abs) => {
    for (const line of fs.readFileSync(abs, "utf8").split("\n")) if (line.includes(pattern)) count++
  })
  return count
}

const run = <A>(tool: { readonly run: (input: A, context: { readonly id: string }) => unknown }, input: A) =>
  tool.run(input, { id: "bench" }) as Effect.Effect<string, unknown, never>

const timed = (f: () => unknown): number => {
  const at = process.hrtime.bigint()
  f()
  return Number(process.hrtime.bigint() - at)
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/** The rows: both operations over TreeFiles and naively, and how many times faster the tree is. */
export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "bench-tree-"))
  try {
    makeTree(root)
    const files = TreeFiles.makeUnsafe(root)
    const listTool = () =>
      Effect.runSyncExit(Effect.provideService(run(FileTools.List, { folder: "" }), Files.Files, files))
    const searchTool = () =>
      Effect.runSyncExit(Effect.provideService(run(FileTools.Search, { pattern: "needle" }), Files.Files, files))
    // Check what each case does before timing it.
    const listed = listTool()
    const searched = searchTool()
    if (!Exit.isSuccess(listed) || !Exit.isSuccess(searched)) throw new Error("the tree's list or search failed")
    const trackedCount = tracked.folders * tracked.perFolder + 1
    // The observation is cut at 2,000 lines: the marker counts the rest.
    const more = `… ${(trackedCount - FileTools.limits.maxLines).toLocaleString("en-US")} more lines not shown: narrow the folder`
    if (listed.value.split("\n").at(-1) !== more) throw new Error("list must count every tracked file")
    if (searched.value.split("\n").length !== (tracked.folders * tracked.perFolder) / 10)
      throw new Error("search must find every tracked needle")
    if (naiveList(root) !== trackedCount + ignored.packages * ignored.perPackage) throw new Error("the naive walk")
    const cases: Record<string, () => unknown> = {
      list: listTool,
      search: searchTool,
      naiveList: () => naiveList(root),
      naiveSearch: () => naiveSearch(root, "needle")
    }
    const samples: Record<string, Array<number>> = { list: [], search: [], naiveList: [], naiveSearch: [] }
    const rounds = settings.quick ? 2 : 5
    for (let round = 0; round < rounds; round++) {
      const order = Object.keys(cases).sort(() => Math.random() - 0.5)
      for (const name of order) samples[name]?.push(timed(cases[name] ?? (() => undefined)))
    }
    const m = (name: string) => median(samples[name] ?? [])
    const ratio = (id: string, naive: string, tree: string): Table.Row => {
      const value = m(naive) / m(tree)
      return {
        id,
        label: `${tree === "list" ? "list" : "search"}: naive walk ÷ TreeFiles (how many times faster pruning is)`,
        value: `×${Table.times(value)}`,
        target: "≥ 3",
        met: value >= 3
      }
    }
    return [
      {
        id: "13a",
        label: '`list ""` over TreeFiles: 10,000 tracked files, 100,000 ignored in node_modules',
        value: Table.duration(m("list"))
      },
      {
        id: "13a",
        label: "the same listing by a naive recursive walk into node_modules",
        value: Table.duration(m("naiveList"))
      },
      ratio("13a", "naiveList", "list"),
      { id: "13b", label: "`search needle` over TreeFiles (1,000 matching lines)", value: Table.duration(m("search")) },
      {
        id: "13b",
        label: "the same search by a naive walk reading every file",
        value: Table.duration(m("naiveSearch"))
      },
      ratio("13b", "naiveSearch", "search")
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
