/**
 * The arrows between the packages: every `packages/*` package sits on a floor (or beside the
 * core, as an edge), and an arrow (a dependency in its `package.json`, an import in its `src/`)
 * only points down. The floors are declared once, here (`floors`); ARCHITECTURE.md draws them.
 *
 *   node tools/ci-summary/arrows.ts [ROOT]   # prints each broken arrow; exits 1 if there is one
 *
 * The rules:
 * - `upward`: a core package imports a package on a higher floor;
 * - `core-to-edge`: a core package imports an edge (ai-sdk, mcp, permission, viewer, durable, tokenizer, telemetry,
 *   command);
 * - `to-app-or-tool`: a package imports an app or a tool of the workspace (`apps/*`, `tools/*`);
 * - `cycle`: packages that import each other, directly or through others (one floor included);
 * - `undeclared`: `src/` imports a workspace package its `package.json` does not depend on;
 * - `outside-package`: a relative import in `src/` that leaves its package's folder;
 * - `no-floor`: a package under `packages/` that `floors` does not place.
 *
 * Dependencies are `dependencies`, `peerDependencies` and `optionalDependencies`; a test's
 * `devDependencies` may point anywhere. Imports are read with a small scanner that skips
 * comments (JSDoc examples import freely), strings and regular expressions.
 *
 * Runs on Node 22 type stripping: erasable TypeScript only.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"

/** The floors of the core, lowest first, and the edges beside it (directory names under `packages/`). */
export interface Floors {
  readonly core: ReadonlyArray<ReadonlyArray<string>>
  readonly edges: ReadonlyArray<string>
}

/** The house's floors: the one declaration the test and ARCHITECTURE.md follow. */
export const floors: Floors = {
  core: [
    ["tool-schema", "budgets", "diff"],
    ["executor", "file-tools"],
    ["idempotency", "planner", "scripted-model", "compaction"],
    ["scenario", "testing", "trials"]
  ],
  edges: ["ai-sdk", "mcp", "permission", "viewer", "durable", "tokenizer", "telemetry", "command"]
}

/** The name of a rule an arrow breaks. */
export type Rule =
  | "upward"
  | "core-to-edge"
  | "to-app-or-tool"
  | "cycle"
  | "undeclared"
  | "outside-package"
  | "no-floor"
  | "unreadable"

/** One broken arrow: where it is (root-relative, with its line), what it points to, the rule. */
export interface Broken {
  readonly file: string
  readonly line: number
  readonly target: string
  readonly rule: Rule
  readonly message: string
}

/** A module specifier found in a source file, with the line it starts on. */
export interface Specifier {
  readonly specifier: string
  readonly line: number
}

const keywordsBeforeRegex = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await"
])

const isIdentifierStart = (c: string): boolean => /[A-Za-z_$\u0080-\uffff]/.test(c)
const isIdentifierPart = (c: string): boolean => /[A-Za-z0-9_$\u0080-\uffff]/.test(c)

/**
 * The module specifiers of a TypeScript or JavaScript text: `import … from "x"`, `import "x"`,
 * `export … from "x"`, `import("x")`, `require("x")`. Comments, other strings, template
 * literals and regular expressions are skipped. Never throws: an unterminated comment or
 * string ends the scan.
 */
export const specifiersOf = (text: string): ReadonlyArray<Specifier> => {
  const found: Array<Specifier> = []
  const n = text.length
  let i = 0
  let line = 1
  let prev = ""
  let prev2 = ""
  let braces = 0
  const templates: Array<number> = []
  const token = (t: string) => {
    prev2 = prev
    prev = t
  }
  /** Reads a template literal's text from `i` up to its end or a `${`. */
  const templateText = () => {
    while (i < n) {
      const c = text[i]
      if (c === "\\") {
        i += 2
        continue
      }
      if (c === "\n") line++
      if (c === "`") {
        i++
        token("`")
        return
      }
      if (c === "$" && text[i + 1] === "{") {
        i += 2
        templates.push(braces)
        braces++
        token("{")
        return
      }
      i++
    }
  }
  while (i < n) {
    const c = text[i] as string
    const next = text[i + 1]
    if (c === "\n") {
      line++
      i++
      continue
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v" || c === "\ufeff") {
      i++
      continue
    }
    if (c === "/" && next === "/") {
      while (i < n && text[i] !== "\n") i++
      continue
    }
    if (c === "/" && next === "*") {
      i += 2
      while (i < n && !(text[i] === "*" && text[i + 1] === "/")) {
        if (text[i] === "\n") line++
        i++
      }
      i += 2
      continue
    }
    if (c === '"' || c === "'") {
      const start = line
      let value = ""
      i++
      while (i < n && text[i] !== c && text[i] !== "\n") {
        if (text[i] === "\\") {
          value += text[i + 1] ?? ""
          i += 2
        } else {
          value += text[i]
          i++
        }
      }
      i++
      if (prev === "from" || prev === "import" || (prev === "(" && (prev2 === "import" || prev2 === "require"))) {
        found.push({ specifier: value, line: start })
      }
      token('"')
      continue
    }
    if (c === "`") {
      i++
      templateText()
      continue
    }
    if (c === "{") {
      braces++
      i++
      token("{")
      continue
    }
    if (c === "}") {
      braces--
      i++
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        templates.pop()
        templateText()
      } else token("}")
      continue
    }
    if (c === "/") {
      const regex = prev === "" || keywordsBeforeRegex.has(prev) || "(,=:[!&|?{};+-*%<>~^".includes(prev)
      if (regex) {
        i++
        let inClass = false
        while (i < n && text[i] !== "\n") {
          const r = text[i]
          if (r === "\\") {
            i += 2
            continue
          }
          if (r === "[") inClass = true
          else if (r === "]") inClass = false
          else if (r === "/" && !inClass) break
          i++
        }
        i++
        while (i < n && isIdentifierPart(text[i] as string)) i++
        token("/re/")
        continue
      }
    }
    if (isIdentifierStart(c)) {
      let j = i + 1
      while (j < n && isIdentifierPart(text[j] as string)) j++
      const word = text.slice(i, j)
      // `x.import(...)`, `a.from "…"`: a property, not a keyword.
      token(prev === "." && (word === "import" || word === "from" || word === "require") ? "name" : word)
      i = j
      continue
    }
    if (c >= "0" && c <= "9") {
      while (i < n && isIdentifierPart(text[i] as string)) i++
      token("0")
      continue
    }
    token(c)
    i++
  }
  return found
}

interface Manifest {
  readonly name: string
  readonly dependencies: ReadonlyArray<string>
  readonly devDependencies: ReadonlyArray<string>
}

interface Workspace {
  readonly name: string
  readonly dir: string
  readonly kind: "package" | "app" | "tool"
}

const readManifest = (path: string): Manifest | string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"))
  } catch (error) {
    return `could not be read: ${error instanceof Error ? error.message : String(error)}`
  }
  if (typeof parsed !== "object" || parsed === null) return "is not a JSON object"
  const record = parsed as Record<string, unknown>
  const keys = (field: string): ReadonlyArray<string> => {
    const value = record[field]
    return typeof value === "object" && value !== null ? Object.keys(value) : []
  }
  return {
    name: typeof record.name === "string" ? record.name : "",
    dependencies: [...keys("dependencies"), ...keys("peerDependencies"), ...keys("optionalDependencies")],
    devDependencies: keys("devDependencies")
  }
}

const isDirectory = (path: string): boolean => {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

const isFile = (path: string): boolean => {
  try {
    return lstatSync(path).isFile()
  } catch {
    return false
  }
}

const workspaces = (root: string): ReadonlyArray<Workspace> =>
  (
    [
      ["packages", "package"],
      ["apps", "app"],
      ["tools", "tool"]
    ] as const
  ).flatMap(([top, kind]) => {
    const base = join(root, top)
    if (!isDirectory(base)) return []
    return readdirSync(base)
      .sort()
      .flatMap((dir): ReadonlyArray<Workspace> => {
        const manifest = join(base, dir, "package.json")
        if (!isFile(manifest)) return []
        const read = readManifest(manifest)
        return typeof read === "string" || read.name === "" ? [] : [{ name: read.name, dir, kind }]
      })
  })

const sourceFile = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/

/** Every source file under `dir`, symbolic links and special files left out, sorted. */
const sourcesUnder = (dir: string): ReadonlyArray<string> => {
  if (!isDirectory(dir)) return []
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry)
      if (isDirectory(path)) return sourcesUnder(path)
      return isFile(path) && sourceFile.test(entry) && !entry.endsWith(".d.ts") ? [path] : []
    })
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string): string => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier)
}

const floorName = (index: number, all: Floors): string => `floor ${index} (${(all.core[index] ?? []).join(", ")})`

/**
 * Every broken arrow of the workspace at `root`, in a stable order (by file, then line). An
 * empty list means the house stands.
 */
export const check = (root: string, declared: Floors = floors): ReadonlyArray<Broken> => {
  const broken: Array<Broken> = []
  const all = workspaces(root)
  const byName = new Map(all.map((w) => [w.name, w]))
  const floorOf = new Map<string, number>()
  declared.core.forEach((dirs, index) => {
    for (const dir of dirs) floorOf.set(dir, index)
  })
  const edges = new Set(declared.edges)
  const graph = new Map<string, Set<string>>()
  const rel = (path: string) => relative(root, path).split(sep).join("/")
  const packagesDir = join(root, "packages")
  for (const dir of isDirectory(packagesDir) ? readdirSync(packagesDir).sort() : []) {
    const manifest = join(packagesDir, dir, "package.json")
    if (!isFile(manifest)) continue
    const read = readManifest(manifest)
    const problem = typeof read === "string" ? read : read.name === "" ? "has no name" : undefined
    if (problem !== undefined) {
      broken.push({
        file: rel(manifest),
        line: 0,
        target: "",
        rule: "unreadable",
        message: `${rel(manifest)} ${problem}`
      })
    }
  }

  const judge = (from: Workspace, file: string, line: number, target: string) => {
    const to = byName.get(target)
    if (to === undefined) return
    const arrow = `${from.dir} → ${to.kind === "package" ? to.dir : `${to.kind}s/${to.dir}`}`
    if (to.kind !== "package") {
      broken.push({
        file,
        line,
        target,
        rule: "to-app-or-tool",
        message: `${arrow}: a package never imports an app or a tool (${target} is in ${to.kind}s/${to.dir})`
      })
      return
    }
    if (to.name === from.name) return
    graph.get(from.name)?.add(to.name)
    const fromFloor = floorOf.get(from.dir)
    const toFloor = floorOf.get(to.dir)
    if (fromFloor === undefined) return
    if (edges.has(to.dir)) {
      broken.push({
        file,
        line,
        target,
        rule: "core-to-edge",
        message: `${arrow}: the core (${from.dir}, ${floorName(fromFloor, declared)}) never imports an edge (${to.dir})`
      })
    } else if (toFloor !== undefined && toFloor > fromFloor) {
      broken.push({
        file,
        line,
        target,
        rule: "upward",
        message: `${arrow}: an upward import, from ${floorName(fromFloor, declared)} to ${floorName(toFloor, declared)}; a package imports only its own floor or the floors below`
      })
    }
  }

  for (const pkg of all.filter((w) => w.kind === "package")) {
    const base = join(root, "packages", pkg.dir)
    const manifestPath = join(base, "package.json")
    const manifestFile = rel(manifestPath)
    graph.set(pkg.name, new Set())
    if (!floorOf.has(pkg.dir) && !edges.has(pkg.dir)) {
      broken.push({
        file: manifestFile,
        line: 1,
        target: pkg.name,
        rule: "no-floor",
        message: `packages/${pkg.dir} is on no floor and is no edge: place it in \`floors\` (tools/ci-summary/arrows.ts) and in ARCHITECTURE.md`
      })
    }
    const manifest = readManifest(manifestPath)
    if (typeof manifest === "string") continue
    const text = readFileSync(manifestPath, "utf8").split("\n")
    for (const dependency of manifest.dependencies) {
      const line = text.findIndex((l) => l.includes(`"${dependency}"`)) + 1
      judge(pkg, manifestFile, line, dependency)
    }
    const declaredDeps = new Set([...manifest.dependencies, ...manifest.devDependencies])
    const runtimeDeps = new Set(manifest.dependencies)
    for (const path of sourcesUnder(join(base, "src"))) {
      const file = rel(path)
      let source: string
      try {
        source = readFileSync(path, "utf8")
      } catch (error) {
        broken.push({
          file,
          line: 0,
          target: "",
          rule: "unreadable",
          message: `could not be read: ${error instanceof Error ? error.message : String(error)}`
        })
        continue
      }
      for (const { specifier, line } of specifiersOf(source)) {
        if (specifier.startsWith(".")) {
          const resolved = resolve(dirname(path), specifier)
          const inside = relative(base, resolved)
          if (inside.startsWith("..") || resolve(base, inside) !== resolved) {
            broken.push({
              file,
              line,
              target: specifier,
              rule: "outside-package",
              message: `imports "${specifier}", outside packages/${pkg.dir}: import the other package by its name`
            })
          }
          continue
        }
        const target = packageOf(specifier)
        if (!byName.has(target)) continue
        if (target !== pkg.name && !runtimeDeps.has(target)) {
          broken.push({
            file,
            line,
            target,
            rule: "undeclared",
            message: `imports "${specifier}" but ${manifestFile} ${declaredDeps.has(target) ? "has it only in devDependencies" : "does not depend on it"}`
          })
        }
        judge(pkg, file, line, target)
      }
    }
  }

  // Cycles: a depth-first walk; each cycle reported once, from its first package by name.
  const names = [...graph.keys()].sort()
  const state = new Map<string, "open" | "done">()
  const path: Array<string> = []
  const seen = new Set<string>()
  const visit = (name: string) => {
    state.set(name, "open")
    path.push(name)
    for (const next of [...(graph.get(name) ?? [])].sort()) {
      if (state.get(next) === "open") {
        const cycle = path.slice(path.indexOf(next))
        const key = [...cycle].sort().join(" ")
        if (!seen.has(key)) {
          seen.add(key)
          const dir = byName.get(next)?.dir ?? next
          broken.push({
            file: `packages/${dir}/package.json`,
            line: 1,
            target: next,
            rule: "cycle",
            message: `an import cycle: ${[...cycle, next].join(" → ")}`
          })
        }
      } else if (state.get(next) === undefined) visit(next)
    }
    path.pop()
    state.set(name, "done")
  }
  for (const name of names) if (state.get(name) === undefined) visit(name)

  return broken.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1))
}

/** One line per broken arrow: `file:line: [rule] message`. */
export const format = (broken: ReadonlyArray<Broken>): string =>
  broken.map((b) => `${b.file}:${b.line}: [${b.rule}] ${b.message}`).join("\n")

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? fileURLToPath(new URL("../..", import.meta.url)))
  const broken = check(root)
  if (broken.length > 0) {
    console.error(format(broken))
    console.error(`${broken.length} broken arrow${broken.length === 1 ? "" : "s"}`)
    process.exitCode = 1
  } else console.log("arrows: every arrow points down")
}
