/**
 * The short way in: `harness run FILE …` and `harness mcp serve …` written in the plain forms
 * (each flag once, as `--flag VALUE` or `--flag=VALUE`) are read here, without building the
 * whole command tree, and run through the same functions with the same options as through it;
 * anything else (help, a typo, an unknown or repeated flag, a value that starts with `-`, a
 * boolean flag followed by a word effect/cli would read as its value) is left to the command
 * tree, which says what is wrong exactly as before. It imports nothing, so reading it costs
 * nothing.
 *
 * @since 0.1.0
 */

/**
 * `harness run`'s flags, as the command tree would give them.
 *
 * @since 0.1.0
 */
export interface RunFlags {
  readonly file: string
  readonly json: boolean
  readonly variant: "fixed" | "before"
  readonly trace: string | undefined
  readonly engine: "local" | "postgres"
  readonly databaseUrl: string | undefined
}

/**
 * `harness mcp serve`'s flags, as the command tree would give them.
 *
 * @since 0.1.0
 */
export interface ServeFlags {
  readonly tools: "files"
  readonly root: string
  readonly lang: "en" | "es"
  readonly http: number | undefined
  readonly journal: string | undefined
  readonly policy: string | undefined
  readonly allow: ReadonlyArray<string>
  readonly deny: ReadonlyArray<string>
}

/**
 * Where a command line goes: one of the short ways, or the command tree (`undefined`).
 *
 * @since 0.1.0
 */
export type Route =
  | { readonly _tag: "Run"; readonly flags: RunFlags }
  | { readonly _tag: "McpServe"; readonly flags: ServeFlags }
  | undefined

/** What effect/cli reads as a boolean flag's value when it follows the flag. */
const booleanWords = new Set(["true", "false", "yes", "no", "on", "off", "1", "0", "y", "n"])

/** A flag's kind: a value, a literal among some, a whole number, a boolean, repeatable values. */
type Kind =
  | { readonly _tag: "String" }
  | { readonly _tag: "Literal"; readonly choices: ReadonlyArray<string> }
  | { readonly _tag: "Int" }
  | { readonly _tag: "Boolean" }
  | { readonly _tag: "Many" }

/** The flags read, by name, and the positional values; `undefined` when the line is not plain. */
const read = (
  args: ReadonlyArray<string>,
  kinds: Readonly<Record<string, Kind>>
):
  | { readonly flags: Map<string, string | ReadonlyArray<string>>; readonly values: ReadonlyArray<string> }
  | undefined => {
  const flags = new Map<string, string | ReadonlyArray<string>>()
  const values: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (!arg.startsWith("-")) {
      values.push(arg)
      continue
    }
    if (!arg.startsWith("--")) return undefined
    const equal = arg.indexOf("=")
    const name = equal === -1 ? arg.slice(2) : arg.slice(2, equal)
    const kind = Object.hasOwn(kinds, name) ? kinds[name] : undefined
    if (kind === undefined) return undefined
    let value: string
    if (kind._tag === "Boolean") {
      if (equal !== -1) return undefined
      const next = args[i + 1]
      if (next !== undefined && booleanWords.has(next.toLowerCase())) return undefined
      value = "true"
    } else if (equal !== -1) {
      value = arg.slice(equal + 1)
    } else {
      const next = args[i + 1]
      if (next === undefined || next.startsWith("-")) return undefined
      value = next
      i++
    }
    if (kind._tag === "Many") {
      const given = flags.get(name)
      flags.set(name, [...(Array.isArray(given) ? given : []), value])
      continue
    }
    if (flags.has(name)) return undefined
    if (kind._tag === "Literal" && !kind.choices.includes(value)) return undefined
    if (kind._tag === "Int" && !/^(0|[1-9][0-9]{0,8})$/.test(value)) return undefined
    flags.set(name, value)
  }
  return { flags, values }
}

const string = (flags: Map<string, string | ReadonlyArray<string>>, name: string): string | undefined => {
  const value = flags.get(name)
  return typeof value === "string" ? value : undefined
}

const many = (flags: Map<string, string | ReadonlyArray<string>>, name: string): ReadonlyArray<string> => {
  const value = flags.get(name)
  return Array.isArray(value) ? value : []
}

const runKinds: Readonly<Record<string, Kind>> = {
  json: { _tag: "Boolean" },
  variant: { _tag: "Literal", choices: ["fixed", "before"] },
  trace: { _tag: "String" },
  engine: { _tag: "Literal", choices: ["local", "postgres"] },
  "database-url": { _tag: "String" }
}

const serveKinds: Readonly<Record<string, Kind>> = {
  tools: { _tag: "Literal", choices: ["files"] },
  root: { _tag: "String" },
  lang: { _tag: "Literal", choices: ["en", "es"] },
  http: { _tag: "Int" },
  journal: { _tag: "String" },
  policy: { _tag: "String" },
  allow: { _tag: "Many" },
  deny: { _tag: "Many" }
}

/**
 * The route of a command line (the arguments after the program's name).
 *
 * @since 0.1.0
 */
export const route = (args: ReadonlyArray<string>): Route => {
  if (args.includes("--")) return undefined
  if (args[0] === "run") {
    const line = read(args.slice(1), runKinds)
    if (line === undefined || line.values.length !== 1) return undefined
    const { flags } = line
    return {
      _tag: "Run",
      flags: {
        file: line.values[0] as string,
        json: flags.has("json"),
        variant: string(flags, "variant") === "before" ? "before" : "fixed",
        trace: string(flags, "trace"),
        engine: string(flags, "engine") === "postgres" ? "postgres" : "local",
        databaseUrl: string(flags, "database-url")
      }
    }
  }
  if (args[0] === "mcp" && args[1] === "serve") {
    const line = read(args.slice(2), serveKinds)
    if (line === undefined || line.values.length !== 0) return undefined
    const { flags } = line
    const root = string(flags, "root")
    if (!flags.has("tools") || root === undefined) return undefined
    const http = string(flags, "http")
    return {
      _tag: "McpServe",
      flags: {
        tools: "files",
        root,
        lang: string(flags, "lang") === "es" ? "es" : "en",
        http: http === undefined ? undefined : Number(http),
        journal: string(flags, "journal"),
        policy: string(flags, "policy"),
        allow: many(flags, "allow"),
        deny: many(flags, "deny")
      }
    }
  }
  return undefined
}
