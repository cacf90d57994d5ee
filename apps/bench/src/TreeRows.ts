/**
 * Row 13: the file tools over a repository-like tree (`TreeFiles`): `list ""` and `search` over
 * 10,000 tracked files in 100 folders with 100,000 ignored files under `node_modules` (and a
 * `.gitignore` naming it, and a `.git` folder), against ripgrep on the same tree from the same
 * folder (`rg --files`, `rg -F needle`: the whole process, spawned, as a user pays for it) and
 * against a naive recursive walk that descends into everything (an `lstat` per entry; the search
 * reads every file). The tree is made once in a temp folder and removed afterwards; before
 * timing, each case is checked to find what the others find; the cases run interleaved, each
 * round in a fresh order, and a figure is the median over the rounds. Run it alone with
 * `pnpm bench --only tree`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Exit } from "effect"
// The bench reaches file-tools by path: it is not one of this app's dependencies.
import { Files, FileTools, TreeFiles } from "../../../packages/file-tools/src/index.ts"
import { check } from "./Fixtures.ts"
import type * as Measure from "./Measure.ts"
import * as Table from "./Table.ts"

const tracked = { folders: 100, perFolder: 100 }
const ignored = { packages: 1000, perPackage: 100 }
const needle = "needle"

/**
 * The tree: `src/dNN/fNN.ts` (every 10th file holds `needle`), `node_modules/pNNN/iNN.js` (each
 * holds `needle`), and a `.git` folder (so that ripgrep, like git, honours the `.gitignore`;
 * its files hold `needle` too, and neither tool may show them).
 */
const makeTree = (root: string): void => {
  fs.writeFileSync(nodePath.join(root, ".gitignore"), "node_modules/\n")
  fs.mkdirSync(nodePath.join(root, ".git", "objects", "ab"), { recursive: true })
  fs.writeFileSync(nodePath.join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
  fs.writeFileSync(nodePath.join(root, ".git", "config"), `[core]\n\tbare = false\n# ${needle}\n`)
  for (let i = 0; i < 10; i++) fs.writeFileSync(nodePath.join(root, ".git", "objects", "ab", `o${i}`), `${needle}\n`)
  for (let d = 0; d < tracked.folders; d++) {
    const folder = nodePath.join(root, "src", `d${d}`)
    fs.mkdirSync(folder, { recursive: true })
    for (let f = 0; f < tracked.perFolder; f++) {
      const line = (d * tracked.perFolder + f) % 10 === 0 ? `const ${needle} = 1\n` : ""
      fs.writeFileSync(nodePath.join(folder, `f${f}.ts`), `export const f${f} = ${d}\n${line}`)
    }
  }
  for (let p = 0; p < ignored.packages; p++) {
    const folder = nodePath.join(root, "node_modules", `p${p}`)
    fs.mkdirSync(folder, { recursive: true })
    for (let i = 0; i < ignored.perPackage; i++) {
      fs.writeFileSync(nodePath.join(folder, `i${i}.js`), `module.exports = '${needle}'\n`)
    }
  }
}

/** The naive walk: every folder entered (`.git` too), every entry `lstat`ed; files' paths collected. */
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

/**
 * ripgrep's arguments: `--hidden` because the tools show hidden files (`.gitignore`), `-g !.git`
 * because they never show `.git` (ripgrep with `--hidden` would), `--no-config` so that no
 * user's configuration file changes what it does.
 */
const rgList = ["--no-config", "--files", "--hidden", "--glob", "!.git"]
const rgSearch = ["--no-config", "--fixed-strings", "--hidden", "--glob", "!.git", needle]

/** ripgrep run from the tree's root, its standard input closed (else it would search it), read to the end. */
const ripgrep = (root: string, args: ReadonlyArray<string>) =>
  spawnSync("rg", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 1 << 28 })

/** ripgrep's version line, or `undefined` when it is not on the `PATH`. */
const ripgrepVersion = (): string | undefined => {
  const ran = spawnSync("rg", ["--version"], { encoding: "utf8" })
  return ran.status === 0 ? ran.stdout.split("\n")[0] : undefined
}

const run = <A>(tool: { readonly run: (input: A, context: { readonly id: string }) => unknown }, input: A) =>
  tool.run(input, { id: "bench" }) as Effect.Effect<string, unknown, never>

const timed = async (f: () => unknown): Promise<number> => {
  const at = process.hrtime.bigint()
  await f()
  return Number(process.hrtime.bigint() - at)
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  const sortedB = [...b].sort()
  return [...a].sort().every((x, i) => x === sortedB[i])
}

/** The rows: both operations over TreeFiles, by ripgrep and naively, and the ratios. */
export const measure = async (settings: Measure.Settings): Promise<ReadonlyArray<Table.Row>> => {
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "bench-tree-"))
  try {
    makeTree(root)
    const files = TreeFiles.makeUnsafe(root)
    const listTool = () =>
      Effect.runPromiseExit(Effect.provideService(run(FileTools.List, { folder: "" }), Files.Files, files))
    const searchTool = () =>
      Effect.runPromiseExit(Effect.provideService(run(FileTools.Search, { pattern: needle }), Files.Files, files))
    // Check what each case does before timing it.
    const listed = await listTool()
    const searched = await searchTool()
    if (!Exit.isSuccess(listed) || !Exit.isSuccess(searched)) throw new Error("the tree's list or search failed")
    const every = Effect.runSync(files.list)
    const trackedCount = tracked.folders * tracked.perFolder + 1
    check(every.length === trackedCount, `TreeFiles lists every tracked file (${every.length})`)
    // The observation is cut at 2,000 lines: the marker counts the rest.
    const more = `… ${(trackedCount - FileTools.limits.maxLines).toLocaleString("en-US")} more lines not shown: narrow the folder`
    check(
      listed.value === [...every.slice(0, FileTools.limits.maxLines), more].join("\n"),
      "list shows the first 2,000 tracked files and counts the rest"
    )
    const found = searched.value.split("\n")
    check(found.length === (tracked.folders * tracked.perFolder) / 10, "search finds every tracked needle, uncut")
    check(naiveList(root) === trackedCount + ignored.packages * ignored.perPackage + 12, "the naive walk")
    const version = ripgrepVersion()
    const cases: Record<string, () => unknown> = {
      list: listTool,
      search: searchTool,
      naiveList: () => naiveList(root),
      naiveSearch: () => naiveSearch(root, needle)
    }
    if (version !== undefined) {
      // The same work: ripgrep finds the same files and the same lines (`path:line`; ours `path: line`).
      const rgListed = ripgrep(root, rgList)
      check(rgListed.status === 0, `rg --files exits 0 (${rgListed.stderr})`)
      check(sameSet(rgListed.stdout.trimEnd().split("\n"), every), "rg --files lists what TreeFiles lists")
      const rgFound = ripgrep(root, rgSearch)
      check(rgFound.status === 0, `rg -F exits 0 (${rgFound.stderr})`)
      const rgLines = rgFound.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.replace(":", ": "))
      check(sameSet(rgLines, found), "rg -F finds the lines search finds")
      cases.rgList = () => check(ripgrep(root, rgList).status === 0, "rg --files")
      cases.rgSearch = () => check(ripgrep(root, rgSearch).status === 0, "rg -F")
    }
    const samples: Record<string, Array<number>> = {}
    const rounds = settings.quick ? 3 : 9
    for (let round = 0; round < rounds; round++) {
      const order = Object.keys(cases).sort(() => Math.random() - 0.5)
      for (const name of order) {
        const sample = await timed(cases[name] ?? (() => undefined))
        const kept = samples[name] ?? []
        kept.push(sample)
        samples[name] = kept
      }
    }
    const m = (name: string) => median(samples[name] ?? [])
    const faster = (id: string, naive: string, tree: string): Table.Row => {
      const value = m(naive) / m(tree)
      return {
        id,
        label: `${tree}: naive walk ÷ TreeFiles (how many times faster pruning is)`,
        value: `×${Table.times(value)}`,
        target: "≥ 3",
        met: value >= 3
      }
    }
    const againstRg = (id: string, rg: string, tree: string, ours: string): ReadonlyArray<Table.Row> => {
      if (version === undefined) {
        return [
          {
            id,
            label: `${tree}: TreeFiles ÷ ripgrep`,
            value: "—",
            target: "≤ 5",
            notHere: "ripgrep (`rg`) is not on the PATH"
          }
        ]
      }
      const value = m(tree) / m(rg)
      return [
        {
          id,
          label: `${ours} (${version}), the whole process, spawned from the same folder`,
          value: Table.duration(m(rg))
        },
        {
          id,
          label: `${tree}: TreeFiles ÷ ripgrep (what ours costs over the fastest tool)`,
          value: `×${Table.times(value)}`,
          target: "≤ 5",
          met: value <= 5
        }
      ]
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
      faster("13a", "naiveList", "list"),
      ...againstRg("13a", "rgList", "list", "`rg --files --hidden -g '!.git'`"),
      {
        id: "13b",
        label: "`search needle` over TreeFiles (1,000 matching lines)",
        value: Table.duration(m("search"))
      },
      {
        id: "13b",
        label: "the same search by a naive walk reading every file",
        value: Table.duration(m("naiveSearch"))
      },
      faster("13b", "naiveSearch", "search"),
      ...againstRg("13b", "rgSearch", "search", "`rg -F needle --hidden -g '!.git'`")
    ]
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}
