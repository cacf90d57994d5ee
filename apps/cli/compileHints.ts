/**
 * Compile hints for the built CLI. V8 compiles a function the first time it runs, unless it is
 * written `(function …)`: then at once, with its module. Node's compile cache keeps what was
 * compiled with the module, so each start of `harness run` compiled the same eight hundred
 * functions again (a fifth of its instructions). `profile` runs the built CLI's quick ways in
 * (`harness run` of a conversation, `harness mcp serve` answering a handshake, a listing and a
 * read) under V8's coverage (`NODE_V8_COVERAGE`) and gives the functions that ran, per chunk;
 * `rewrite` puts each of those in the form V8 compiles eagerly: a function expression in
 * parentheses, an arrow function that reads no `this`, `arguments`, `super` or `new.target` as a
 * parenthesized function expression with the same parameters and body (its name is still the
 * one its place gives it). Declarations, methods and everything else stay as they are; nothing
 * but the moment V8 compiles a function changes.
 *
 *   node build.ts   (runs both after bundling; the chunks keep their names)
 *
 * Runs on Node 22 type stripping (erasable TypeScript only), like `build.ts`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseAst } from "rolldown/parseAst"

/** A function of a chunk, by its source range as V8 reports it. */
export interface Range {
  readonly start: number
  readonly end: number
}

/** One way into the built CLI to profile: its arguments and what it reads on stdin. */
export interface Run {
  readonly args: ReadonlyArray<string>
  readonly input?: string
}

/** How many functions that ran were rewritten, by their form, and how many were kept as they are. */
export interface Counts {
  readonly arrows: number
  readonly expressions: number
  readonly declarations: number
  readonly methods: number
  readonly kept: number
}

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { readonly type?: unknown }).type === "string" &&
  typeof (value as { readonly start?: unknown }).start === "number"

/** The nodes directly under `node`. */
const children = (node: Node): Array<Node> => {
  const out: Array<Node> = []
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) out.push(item)
    } else if (isNode(value)) out.push(value)
  }
  return out
}

const field = (node: Node, name: string): unknown => (node as unknown as Readonly<Record<string, unknown>>)[name]

const nodes = (node: Node, name: string): ReadonlyArray<Node> => {
  const value = field(node, name)
  return Array.isArray(value) ? value.filter(isNode) : []
}

/** Whether an arrow function reads what a function expression would bind anew. */
const readsItsContext = (arrow: Node): boolean => {
  const pending = children(arrow)
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.type === "ThisExpression" || node.type === "Super" || node.type === "MetaProperty") return true
    if (node.type === "Identifier" && field(node, "name") === "arguments") return true
    // A function expression or declaration binds its own; an arrow inside reads this one's.
    if (node.type === "FunctionExpression" || node.type === "FunctionDeclaration") continue
    pending.push(...children(node))
  }
  return false
}

const containsFunction = (list: ReadonlyArray<Node>): boolean => {
  const pending = [...list]
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.type === "FunctionExpression" || node.type === "ArrowFunctionExpression") return true
    pending.push(...children(node))
  }
  return false
}

/** How a function that ran is put in the form V8 compiles eagerly. */
type Hint = "expression" | "arrow" | "declaration" | "method"

/** Whether a function (or a method's) reads `super`, which only a method may. */
const readsSuper = (fn: Node): boolean => {
  const pending = children(fn)
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.type === "Super") return true
    if (node.type === "FunctionExpression" || node.type === "FunctionDeclaration") continue
    pending.push(...children(node))
  }
  return false
}

const isKey = (node: unknown, name: string): boolean =>
  isNode(node) && (field(node, "name") === name || field(node, "value") === name)

/**
 * The chunk `code` with the functions of `ran` (ranges as V8's coverage gives them: a function
 * ends where its node ends, and starts at or after where its node starts) in the form V8
 * compiles eagerly:
 *
 * - a function expression in parentheses;
 * - an arrow function that reads no `this`, `arguments`, `super` or `new.target` as a
 *   parenthesized function expression, the same parameters and body;
 * - a method of an object literal (not a getter, a setter, `__proto__` or one reading `super`) as
 *   a property whose value is such an expression;
 * - a function declaration at the top of a module, of a function's body or of a block as a
 *   `var` (`let` in a block) initialized with one, moved to the top of its scope, where the
 *   declaration's binding was ready.
 *
 * Every function keeps its name (the place it is in gives it), its parameters, body and scope;
 * a class's methods and what V8's ranges do not point at stay as they are. Throws if the result
 * does not parse.
 */
export const rewrite = (
  code: string,
  ran: ReadonlyArray<Range>
): { readonly code: string; readonly counts: Counts } => {
  const program = parseAst(code) as unknown as Node
  const parents = new Map<Node, Node>()
  const byEnd = new Map<number, Array<Node>>()
  const pending: Array<Node> = [program]
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (/^(FunctionExpression|ArrowFunctionExpression|FunctionDeclaration)$/.test(node.type)) {
      byEnd.set(node.end, [...(byEnd.get(node.end) ?? []), node])
    }
    for (const child of children(node)) {
      parents.set(child, node)
      pending.push(child)
    }
  }
  const startOf = (fn: Node): number => {
    const parent = parents.get(fn)
    return parent !== undefined && /^(Property|MethodDefinition)$/.test(parent.type) && field(parent, "value") === fn
      ? parent.start
      : fn.start
  }
  /** The node each hint rewrites (a method's property, the function otherwise), and how. */
  const hints = new Map<Node, Hint>()
  let kept = 0
  for (const range of ran) {
    // The innermost function that ends there and starts no later than V8 says (a method where its key does).
    const fn = (byEnd.get(range.end) ?? [])
      .filter((node) => startOf(node) <= range.start)
      .sort((a, b) => startOf(b) - startOf(a))[0]
    const parent = fn === undefined ? undefined : parents.get(fn)
    const hint = fn === undefined || parent === undefined ? undefined : hintFor(code, fn, parent)
    if (fn === undefined || parent === undefined || hint === undefined) kept++
    else hints.set(hint === "method" ? parent : fn, hint)
  }
  // The nodes that hold a hinted node (to be rendered anew), the hinted ones included.
  const holding = new Set<Node>()
  for (const node of hints.keys()) {
    for (let at: Node | undefined = node; at !== undefined && !holding.has(at); at = parents.get(at)) holding.add(at)
  }
  const sorted = (node: Node): Array<Node> => children(node).sort((a, b) => a.start - b.start)
  /** A node's text with the hints inside it applied (its own hint not). */
  const inside = (node: Node): string => {
    let out = ""
    let at = node.start
    const moved: Array<string> = []
    for (const child of sorted(node)) {
      if (!holding.has(child)) continue
      out += code.slice(at, child.start)
      if (hints.get(child) === "declaration") moved.push(declaration(child, node.type === "Program" || isBody(node)))
      else out += render(child)
      at = child.end
    }
    out += code.slice(at, node.end)
    if (moved.length === 0) return out
    // At the top of the scope: after a module's imports, after a block's `{`.
    const top =
      node.type === "Program"
        ? (nodes(node, "body").find((statement) => statement.type !== "ImportDeclaration")?.start ?? node.end) -
          node.start
        : 1
    return out.slice(0, top) + moved.join("") + out.slice(top)
  }
  const isBody = (block: Node): boolean => {
    const owner = parents.get(block)
    return owner !== undefined && /Function/.test(owner.type) && field(owner, "body") === block
  }
  const keyword = (fn: Node): string =>
    `${field(fn, "async") === true ? "async " : ""}function${field(fn, "generator") === true ? "*" : ""}`
  const declaration = (fn: Node, functionScope: boolean): string => {
    const id = field(fn, "id") as Node
    const text = inside(fn)
    return `${functionScope ? "var" : "let"} ${field(id, "name") as string}=(${keyword(fn)}${text.slice(id.end - fn.start)});`
  }
  const render = (node: Node): string => {
    const hint = hints.get(node)
    if (hint === undefined) return inside(node)
    if (hint === "expression") return `(${inside(node)})`
    if (hint === "method") {
      const key = field(node, "key") as Node
      const value = field(node, "value") as Node
      const name = field(node, "computed") === true ? `[${render(key)}]` : code.slice(key.start, key.end)
      return `${name}:(${keyword(value)}${inside(value)})`
    }
    // An arrow: its parameters hold no function (see hintFor), so its head is as written.
    const params = nodes(node, "params")
    const arrow = code.indexOf("=>", params.at(-1)?.end ?? node.start) + 2
    const body = inside(node).slice(arrow - node.start)
    const written = params.length === 0 ? "" : code.slice((params[0] as Node).start, (params.at(-1) as Node).end)
    return field(node, "expression") === true
      ? `(${keyword(node)}(${written}){return ${body}})`
      : `(${keyword(node)}(${written})${body})`
  }
  const out = inside(program)
  parseAst(out)
  const counts = { arrows: 0, expressions: 0, declarations: 0, methods: 0, kept }
  for (const hint of hints.values()) {
    if (hint === "arrow") counts.arrows++
    else if (hint === "expression") counts.expressions++
    else if (hint === "declaration") counts.declarations++
    else counts.methods++
  }
  return { code: out, counts }
}

/** How `fn` (under `parent`) can be compiled eagerly, or `undefined` when it cannot be without a change. */
const hintFor = (code: string, fn: Node, parent: Node): Hint | undefined => {
  if (fn.type === "FunctionDeclaration") {
    const id = field(fn, "id")
    return isNode(id) && (parent.type === "Program" || parent.type === "BlockStatement") ? "declaration" : undefined
  }
  if (parent.type === "MethodDefinition") return undefined
  if (parent.type === "Property" && field(parent, "value") === fn) {
    if (field(parent, "kind") !== "init") return undefined
    if (field(parent, "method") !== true) return code[fn.start - 1] === "(" ? undefined : "expression"
    const key = field(parent, "key")
    return readsSuper(fn) || (field(parent, "computed") !== true && isKey(key, "__proto__")) ? undefined : "method"
  }
  if (fn.type === "FunctionExpression") return code[fn.start - 1] === "(" ? undefined : "expression"
  // An arrow whose parameters hold no function, and that reads nothing a function would bind anew.
  return readsItsContext(fn) || containsFunction(nodes(fn, "params")) ? undefined : "arrow"
}

interface Coverage {
  readonly result: ReadonlyArray<{
    readonly url: string
    readonly functions: ReadonlyArray<{
      readonly ranges: ReadonlyArray<{
        readonly startOffset: number
        readonly endOffset: number
        readonly count: number
      }>
    }>
  }>
}

/**
 * Runs each of `runs` on the CLI built in `dist` (`node dist/main.js …`) under V8's coverage, and
 * gives the functions that ran in each file of `dist` (not a file's own top level). Throws if a
 * run does not exit 0.
 */
export const profile = (dist: string, runs: ReadonlyArray<Run>): ReadonlyMap<string, ReadonlyArray<Range>> => {
  const coverage = fs.mkdtempSync(path.join(os.tmpdir(), "harness-hints-"))
  try {
    for (const run of runs) {
      const ran = spawnSync(process.execPath, [path.join(dist, "main.js"), ...run.args], {
        input: run.input ?? "",
        encoding: "utf8",
        env: { ...process.env, NODE_V8_COVERAGE: coverage, NO_COLOR: "1" },
        timeout: 60_000
      })
      if (ran.status !== 0) {
        throw new Error(`profiling harness ${run.args.join(" ")}: exit ${ran.status ?? ran.signal}\n${ran.stderr}`)
      }
    }
    const prefix = pathToFileURL(`${path.resolve(dist)}${path.sep}`).href
    const ran = new Map<string, Map<string, Range>>()
    for (const file of fs.readdirSync(coverage)) {
      const report = JSON.parse(fs.readFileSync(path.join(coverage, file), "utf8")) as Coverage
      for (const script of report.result) {
        if (!script.url.startsWith(prefix)) continue
        const chunk = fileURLToPath(script.url)
        const functions = ran.get(chunk) ?? new Map<string, Range>()
        ran.set(chunk, functions)
        for (const fn of script.functions) {
          const whole = fn.ranges[0]
          if (whole === undefined || whole.count === 0 || whole.startOffset === 0) continue
          functions.set(`${whole.startOffset}:${whole.endOffset}`, { start: whole.startOffset, end: whole.endOffset })
        }
      }
    }
    return new Map([...ran].map(([chunk, functions]) => [chunk, [...functions.values()]]))
  } finally {
    fs.rmSync(coverage, { recursive: true, force: true })
  }
}

/** Profiles `runs` on the CLI built in `dist` and rewrites its chunks; the rewritten and kept functions summed. */
export const apply = (dist: string, runs: ReadonlyArray<Run>): Counts => {
  const sum = { arrows: 0, expressions: 0, declarations: 0, methods: 0, kept: 0 }
  for (const [chunk, ran] of profile(dist, runs)) {
    const rewritten = rewrite(fs.readFileSync(chunk, "utf8"), ran)
    fs.writeFileSync(chunk, rewritten.code)
    sum.arrows += rewritten.counts.arrows
    sum.expressions += rewritten.counts.expressions
    sum.declarations += rewritten.counts.declarations
    sum.methods += rewritten.counts.methods
    sum.kept += rewritten.counts.kept
  }
  return sum
}
