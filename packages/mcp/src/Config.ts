// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax this module reads and names, not a template literal.
/**
 * MCP servers as every MCP client configures them: the `mcpServers` JSON file of Claude Desktop,
 * Claude Code (`.mcp.json`) and Cursor, read for `harness agent --mcp-config FILE`, and the
 * environment a server gets (also for `--mcp` and scenario files' `mcp`, `Scenario.mount`).
 * Import it from `@agent-harness/mcp/config`.
 *
 * ```json
 * { "mcpServers": {
 *     "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"] },
 *     "web": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${WEB_TOKEN}" },
 *              "timeout": 10000, "trust": true } } }
 * ```
 *
 * A server's name is its tools' prefix (`fs__read_file`) unless it gives a `prefix`. Each entry is
 * a `Mounter.Declaration` (the shape of a scenario's `mcp` entries, `Mounter.check`): `command`,
 * `args`, `env`, `cwd` (relative to the file's folder, the default) or `url`, `headers`; `type`
 * `"stdio"` or `"http"` (`"sse"` is refused: the old transport is not spoken); and two fields of
 * ours, `timeout` (milliseconds, the handshake and each call) and `trust` (default `false`).
 * `${VAR}` and `${VAR:-default}` (the default when `VAR` is unset or empty) are expanded from the
 * environment in `command`, `args`, `env`, `cwd`, `url` and `headers`; a variable that is not set
 * and has no default is an error naming it. The file is read as strictly as a policy file
 * (`InputFile.read`, `JsonText.parse`: a key written twice is refused), an unknown field of a
 * server is refused (a client's `disabled` or `autoApprove` would otherwise be silently
 * ignored), other top-level keys are not read (the file may be another client's whole config);
 * every problem names its JSON path (`mcpServers.fs.args[1]: …`).
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import process from "node:process"
import { InputFile, JsonText, Mounter } from "@agent-harness/scenario"
import { JsonPath } from "@agent-harness/tool-schema"
import { Duration, Effect, type FileSystem, Predicate, Result } from "effect"
import type * as Mount from "./Mount.ts"

/**
 * The environment variables `${VAR}` is expanded from (`process.env` in the CLI).
 *
 * @since 0.1.0
 */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * What is wrong, and where: a JSON path in the file (`mcpServers.fs.args[1]`), or a field of a
 * declaration (`args[1]`).
 *
 * @since 0.1.0
 */
export interface Problem {
  /** Where. */
  readonly path: string
  /** What is wrong there. */
  readonly problem: string
}

/** The fields a server entry may have. */
const fields = ["type", "command", "args", "env", "cwd", "url", "headers", "prefix", "timeout", "trust"] as const

/** Fields of other clients' files, and why they are not read here. */
const otherClients: Readonly<Record<string, string>> = {
  disabled: "remove the server from the file (or leave the file out) instead",
  autoApprove: "what runs without asking is the permission policy's (--policy, --allow)",
  alwaysAllow: "what runs without asking is the permission policy's (--policy, --allow)",
  serverUrl: `write "url"`,
  httpUrl: `write "url"`,
  envFile: `name the variables in "env" (with \${VAR} for the value of yours)`
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * A JSON path as text: `mcpServers.fs.args[1]`, `mcpServers["my server"]` (`JsonPath.text`).
 *
 * @since 0.1.0
 */
export const pathText: (keys: ReadonlyArray<string | number>) => string = JsonPath.text

const shown = (u: unknown): string => {
  if (u === null) return "null"
  if (Array.isArray(u)) return "a list"
  if (typeof u === "object") return "an object"
  const text = JSON.stringify(u)
  return text.length > 60 ? `${text.slice(0, 60)}…` : text
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * `text` with each `${VAR}` replaced by the variable's value and each `${VAR:-default}` by the
 * value, or by `default` when it is unset or empty (the default is taken as written: it is not
 * expanded again); a `$` not followed by `{` is kept. Fails naming what is wrong: a `${` never
 * closed, a name that is not a variable's, a variable that is not set.
 *
 * @since 0.1.0
 */
export const expandText = (text: string, env: Environment): Result.Result<string, string> => {
  let out = ""
  let from = 0
  for (let at = text.indexOf("${"); at !== -1; at = text.indexOf("${", from)) {
    const close = text.indexOf("}", at + 2)
    if (close === -1) return Result.fail(`the "\${" at character ${at + 1} is never closed with "}"`)
    const inner = text.slice(at + 2, close)
    const sep = inner.indexOf(":-")
    const name = sep === -1 ? inner : inner.slice(0, sep)
    if (!variableName.test(name)) {
      return Result.fail(
        `${JSON.stringify(`\${${inner}}`)}: ${JSON.stringify(name)} is not a variable name (letters, digits and _, not first a digit)`
      )
    }
    const value = env[name]
    let replacement: string
    if (sep !== -1) replacement = value === undefined || value === "" ? inner.slice(sep + 2) : value
    else if (value === undefined) {
      return Result.fail(
        `\${${name}}: the environment variable ${name} is not set (write \${${name}:-default} for a default)`
      )
    } else replacement = value
    out += text.slice(from, at) + replacement
    from = close + 1
  }
  return Result.succeed(out + text.slice(from))
}

/** `field.name`, or `field["a name"]`. */
const keyPath = (field: string, name: string): string =>
  identifier.test(name) ? `${field}.${name}` : `${field}[${JSON.stringify(name)}]`

/** A string of a declaration, expanded; its field named on failure. No NUL: no program can take one. */
const expandField = (text: string, field: string, env: Environment): Result.Result<string, Problem> => {
  const expanded = expandText(text, env)
  if (Result.isFailure(expanded)) return Result.fail({ path: field, problem: expanded.failure })
  if (expanded.success.includes("\u0000")) {
    return Result.fail({ path: field, problem: "it holds a NUL character, which no program can be given" })
  }
  return Result.succeed(expanded.success)
}

/** Header values with a line break would split the request: refused. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * A declaration with `${…}` expanded from `env` in `command`, `args`, `env`, `cwd`, `url` and
 * `headers` (names are taken as written), checked as a program or a request can take it: no NUL,
 * an `http(s)` URL, header names that are tokens and values without line breaks. Fails naming
 * the field (`args[1]`, `headers.Authorization`).
 *
 * @since 0.1.0
 */
export const expand = (
  declaration: Mounter.Declaration,
  env: Environment
): Result.Result<Mounter.Declaration, Problem> => {
  const out: { -readonly [K in keyof Mounter.Declaration]: Mounter.Declaration[K] } = { ...declaration }
  for (const field of ["command", "cwd", "url"] as const) {
    const value = declaration[field]
    if (value === undefined) continue
    const expanded = expandField(value, field, env)
    if (Result.isFailure(expanded)) return Result.fail(expanded.failure)
    out[field] = expanded.success
  }
  if (out.url !== undefined) {
    const wrong = Mounter.checkUrl(out.url)
    if (wrong !== undefined) return Result.fail({ path: "url", problem: wrong })
  }
  if (declaration.args !== undefined) {
    const args: Array<string> = []
    for (const [i, arg] of declaration.args.entries()) {
      const expanded = expandField(arg, `args[${i}]`, env)
      if (Result.isFailure(expanded)) return Result.fail(expanded.failure)
      args.push(expanded.success)
    }
    out.args = args
  }
  for (const field of ["env", "headers"] as const) {
    const record = declaration[field]
    if (record === undefined) continue
    const expandedRecord: Array<readonly [string, string]> = []
    for (const [name, value] of Object.entries(record)) {
      const at = keyPath(field, name)
      if (field === "env" && (name === "" || name.includes("=") || name.includes("\u0000"))) {
        return Result.fail({ path: at, problem: "not a variable name (empty, or with '=' or NUL)" })
      }
      if (field === "headers" && !headerName.test(name)) {
        return Result.fail({ path: at, problem: "not a header name (letters, digits and !#$%&'*+.^_`|~-)" })
      }
      const expanded = expandField(value, at, env)
      if (Result.isFailure(expanded)) return Result.fail(expanded.failure)
      if (field === "headers" && /[\r\n]/.test(expanded.success)) {
        return Result.fail({ path: at, problem: "a header value cannot hold a line break" })
      }
      expandedRecord.push([name, expanded.success])
    }
    // fromEntries defines each key: a header named "__proto__" stays a header.
    out[field] = Object.fromEntries(expandedRecord)
  }
  return Result.succeed(out)
}

/** Variables a server gets from the harness's environment, by name (as the SDK's, and more). */
const inherited: ReadonlySet<string> = new Set([
  // The SDK's `getDefaultEnvironment` (POSIX and Windows).
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PROCESSOR_ARCHITECTURE",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES",
  // What a launcher such as npx, uvx or a node with a version manager needs to run.
  "PATHEXT",
  "COMSPEC",
  "TMPDIR",
  "TMP",
  "LANG",
  "LANGUAGE",
  "TZ",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "NVM_DIR",
  "VOLTA_HOME",
  "PNPM_HOME",
  "COREPACK_HOME",
  "UV_CACHE_DIR",
  "UV_INDEX_URL",
  "PIP_INDEX_URL"
])

/** npm's settings (`npm_config_registry`, `npm_config_cache`…), but none that is a credential. */
const npmSetting = /^npm_config_/i
const credential = /auth|token|pass|secret|key|otp|cert/i

/**
 * Whether a variable of the harness's environment is passed on to a server: the SDK's safe
 * defaults (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`, and Windows' own), and what
 * launchers such as `npx` need (`LANG`, `LC_*`, `TZ`, `TMPDIR`, `XDG_*` folders, proxies and CA
 * files, version managers' homes, npm's `npm_config_*` settings but no credential among them).
 * Never a provider's API key, nor anything else: a server that needs a secret is given it in
 * its `env`.
 *
 * @since 0.1.0
 */
export const isInherited = (name: string): boolean => {
  const upper = name.toUpperCase()
  // Windows names are case-insensitive (Path); elsewhere only these come in both cases (proxies).
  const known = process.platform === "win32" || upper.endsWith("_PROXY") ? upper : name
  if (inherited.has(known) || known.startsWith("LC_")) return true
  return npmSetting.test(name) && !credential.test(name.slice("npm_config_".length))
}

/**
 * The environment of a started server: the variables of `env` it inherits (`isInherited`; a
 * value that is a shell function, `() {…`, is left out as the SDK does), then its own `env` over
 * them.
 *
 * @since 0.1.0
 */
export const childEnvironment = (
  env: Environment,
  own: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !value.startsWith("()") && isInherited(name)) out[name] = value
  }
  return { ...out, ...own }
}

/**
 * A declaration as `Mount.mountAll` takes it: `${…}` expanded from `env` (`expand`), `cwd`
 * resolved against `folder`, the environment built (`childEnvironment`), the timeouts and
 * `trust` (`Trust.Options`) as Mount options. Fails naming the field.
 *
 * @since 0.1.0
 */
export const entryOf = (
  declaration: Mounter.Declaration,
  folder: string,
  env: Environment
): Result.Result<Mount.Entry, Problem> =>
  Result.map(expand(declaration, env), (d): Mount.Entry => {
    const callTimeout = d.callTimeoutMs ?? d.timeout
    const options: Mount.Options = {
      prefix: d.prefix,
      // Trust.Options' `trust`: what Mount judges a server's hints by (issue 20), the user's to give.
      ...(d.trust === undefined ? {} : { trust: d.trust }),
      ...(d.timeout === undefined ? {} : { connectTimeout: Duration.millis(d.timeout) }),
      ...(callTimeout === undefined ? {} : { callTimeout: Duration.millis(callTimeout) })
    }
    const server: Mount.Server =
      d.command === undefined
        ? { _tag: "Http", url: d.url ?? "", headers: { ...d.headers } }
        : {
            _tag: "Stdio",
            command: d.command,
            args: d.args ?? [],
            env: childEnvironment(env, d.env),
            cwd: path.resolve(folder, d.cwd ?? ".")
          }
    return { server, options }
  })

/** An environment in which every variable is set. */
const everythingSet: Environment = new Proxy({}, { get: () => "x" })

/**
 * What is wrong with the `${…}` of a declaration whatever the environment (a `${` never closed, a
 * name that is not a variable's), or `undefined`.
 *
 * @since 0.1.0
 */
export const checkTemplates = (declaration: Mounter.Declaration): Problem | undefined => {
  const texts: Array<readonly [string, string]> = []
  for (const field of ["command", "cwd", "url"] as const) {
    const value = declaration[field]
    if (value !== undefined) texts.push([field, value])
  }
  for (const [i, arg] of (declaration.args ?? []).entries()) texts.push([`args[${i}]`, arg])
  for (const field of ["env", "headers"] as const) {
    for (const [name, value] of Object.entries(declaration[field] ?? {})) texts.push([keyPath(field, name), value])
  }
  for (const [where, text] of texts) {
    const expanded = expandText(text, everythingSet)
    if (Result.isFailure(expanded)) return { path: where, problem: expanded.failure }
  }
  return undefined
}

/** One server entry of the file, as a declaration, or the problem at its path. */
const serverOf = (name: string, entry: unknown): Result.Result<Mounter.Declaration, Problem> => {
  const at = (...keys: ReadonlyArray<string | number>) => pathText(["mcpServers", name, ...keys])
  const fail = (problem: string, ...keys: ReadonlyArray<string | number>) => Result.fail({ path: at(...keys), problem })
  if (!Predicate.isObject(entry)) {
    return fail(`expected a server, { "command": … } or { "url": … }, got ${shown(entry)}`)
  }
  for (const key of Object.keys(entry)) {
    if ((fields as ReadonlyArray<string>).includes(key)) continue
    const hint = otherClients[key]
    return fail(
      hint === undefined
        ? `not a field of a server (a server has ${fields.map((f) => `"${f}"`).join(", ")})`
        : `not read here: ${hint}`,
      key
    )
  }
  const out: { -readonly [K in keyof Mounter.Declaration]?: Mounter.Declaration[K] } = {}
  for (const key of ["type", "command", "cwd", "url", "prefix"] as const) {
    const value = entry[key]
    if (value === undefined) continue
    if (typeof value !== "string") return fail(`expected a string, got ${shown(value)}`, key)
    if (key === "command" && value === "") return fail("expected a program to start, got an empty string", key)
    out[key] = value
  }
  if (entry.args !== undefined) {
    if (!Array.isArray(entry.args)) return fail(`expected a list of strings, got ${shown(entry.args)}`, "args")
    for (const [i, arg] of entry.args.entries()) {
      if (typeof arg !== "string") return fail(`expected a string, got ${shown(arg)}`, "args", i)
    }
    out.args = entry.args as ReadonlyArray<string>
  }
  for (const key of ["env", "headers"] as const) {
    const value = entry[key]
    if (value === undefined) continue
    if (!Predicate.isObject(value)) return fail(`expected an object of strings, got ${shown(value)}`, key)
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "string") return fail(`expected a string, got ${shown(v)}`, key, k)
    }
    out[key] = value as Record<string, string>
  }
  if (entry.timeout !== undefined) {
    const t = entry.timeout
    if (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > Mounter.maxTimeout) {
      return fail(`expected a whole number of milliseconds from 1 to ${Mounter.maxTimeout}, got ${shown(t)}`, "timeout")
    }
    out.timeout = t
  }
  if (entry.trust !== undefined) {
    if (typeof entry.trust !== "boolean") return fail(`expected true or false, got ${shown(entry.trust)}`, "trust")
    out.trust = entry.trust
  }
  const prefix = out.prefix ?? name
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(prefix)) {
    return out.prefix === undefined
      ? fail(
          `a server's name is the prefix of its tools, so it is 1 to 32 letters, digits, '_' or '-': rename it, or give it a "prefix"`
        )
      : fail(`expected 1 to 32 letters, digits, '_' or '-', got ${shown(prefix)}`, "prefix")
  }
  const declaration: Mounter.Declaration = { ...out, prefix }
  const wrong = Mounter.check(declaration)
  if (wrong !== undefined) return fail(wrong.problem, ...(wrong.field === undefined ? [] : [wrong.field]))
  // The syntax of every ${…} now, whatever the environment is when it is expanded.
  const wrongSyntax = checkTemplates(declaration)
  if (wrongSyntax !== undefined)
    return Result.fail({ path: `${at()}.${wrongSyntax.path}`, problem: wrongSyntax.problem })
  return Result.succeed(declaration)
}

/**
 * A server of a file: its name (the key in `mcpServers`) and its declaration.
 *
 * @since 0.1.0
 */
export interface Named {
  /** Its key in `mcpServers`. */
  readonly name: string
  /** The declaration, `${…}` as written; its prefix is the name unless it gives one. */
  readonly declaration: Mounter.Declaration
}

/**
 * The servers of a parsed `mcpServers` file, in the order written, each a declaration (its
 * `${…}` kept as written), or the first problem, at its JSON path.
 *
 * @since 0.1.0
 */
export const decode = (json: unknown): Result.Result<ReadonlyArray<Named>, Problem> => {
  // A value from anywhere but JSON text may throw (a getter, a proxy): an error, never a crash.
  try {
    return decodeValue(json)
  } catch (error) {
    const problem = error instanceof Error ? error.message : "it threw"
    return Result.fail({ path: "(root)", problem: `could not be read: ${problem}` })
  }
}

const decodeValue = (json: unknown): Result.Result<ReadonlyArray<Named>, Problem> => {
  if (!Predicate.isObject(json)) {
    return Result.fail({ path: "(root)", problem: `expected an object with "mcpServers", got ${shown(json)}` })
  }
  const servers = json.mcpServers
  if (servers === undefined) {
    const hint = "servers" in json ? ` (VS Code's "servers" is not read: rename it "mcpServers")` : ""
    return Result.fail({ path: "mcpServers", problem: `missing: the servers to mount, by name${hint}` })
  }
  if (!Predicate.isObject(servers)) {
    return Result.fail({ path: "mcpServers", problem: `expected an object of servers by name, got ${shown(servers)}` })
  }
  const names = Object.keys(servers)
  if (names.length === 0) return Result.fail({ path: "mcpServers", problem: "no servers: name at least one" })
  const declarations: Array<Named> = []
  const prefixes = new Map<string, string>()
  for (const name of names) {
    const one = serverOf(name, servers[name])
    if (Result.isFailure(one)) return Result.fail(one.failure)
    const first = prefixes.get(one.success.prefix)
    if (first !== undefined) {
      return Result.fail({
        path: pathText(["mcpServers", name, ...(one.success.prefix === name ? [] : ["prefix"])]),
        problem: `'${one.success.prefix}' is already the prefix of ${pathText(["mcpServers", first])}: give each server its own`
      })
    }
    prefixes.set(one.success.prefix, name)
    declarations.push({ name, declaration: one.success })
  }
  return Result.succeed(declarations)
}

/**
 * Parses an `mcpServers` file's text strictly (`JsonText.parse`), then `decode`.
 *
 * @since 0.1.0
 */
export const parse = (text: string): Result.Result<ReadonlyArray<Named>, Problem> => {
  const json = JsonText.parse(text)
  if (Result.isFailure(json)) {
    const where = json.failure.path.length === 0 ? "(root)" : pathText(json.failure.path)
    return Result.fail({ path: where, problem: json.failure.problem })
  }
  return decode(json.success)
}

/**
 * A server of a file, ready to mount: the declaration as written (for the trace: `cwd` made
 * absolute, `${…}` kept) and the entry for `Mount.mountAll` (expanded).
 *
 * @since 0.1.0
 */
export interface Loaded {
  /** The file it is written in, as given. */
  readonly file: string
  /** Its name in the file's `mcpServers`. */
  readonly name: string
  /** The declaration as written, `cwd` absolute: what a trace records. */
  readonly declaration: Mounter.Declaration
  /** What `Mount.mountAll` mounts. */
  readonly entry: Entry
}

/**
 * What `Mount.mountAll` takes for one server: `Mount.Entry` (named here so that this entry
 * point's types are its own).
 *
 * @since 0.1.0
 */
export type Entry = Mount.Entry

/**
 * Reads the `mcpServers` files of `--mcp-config` (`InputFile.read`: a regular UTF-8 file of
 * bounded size) and makes each server ready to mount, expanding `${…}` from `env` now, so that
 * everything wrong is known before anything starts. A server's name given in two files is
 * refused. Fails with the line to print: `--mcp-config FILE: mcpServers.fs.args[1]: …`.
 *
 * @since 0.1.0
 */
export const load = (
  files: ReadonlyArray<string>,
  env: Environment
): Effect.Effect<ReadonlyArray<Loaded>, string, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const loaded: Array<Loaded> = []
    const owners = new Map<string, string>()
    for (const file of files) {
      const text = yield* Effect.mapError(InputFile.read(file), (error) => `--mcp-config ${file}: ${error.problem}`)
      const parsed = parse(text)
      if (Result.isFailure(parsed)) {
        return yield* Effect.fail(`--mcp-config ${file}: ${parsed.failure.path}: ${parsed.failure.problem}`)
      }
      const folder = path.dirname(path.resolve(file))
      for (const { name, declaration: written } of parsed.success) {
        const where = pathText(["mcpServers", name])
        const other = owners.get(written.prefix)
        if (other !== undefined) {
          return yield* Effect.fail(
            `--mcp-config ${file}: ${where}: '${written.prefix}' is already the prefix of a server of ${other}: give each server its own`
          )
        }
        owners.set(written.prefix, file)
        const entry = entryOf(written, folder, env)
        if (Result.isFailure(entry)) {
          return yield* Effect.fail(`--mcp-config ${file}: ${where}.${entry.failure.path}: ${entry.failure.problem}`)
        }
        const declaration: Mounter.Declaration =
          written.command === undefined ? written : { ...written, cwd: path.resolve(folder, written.cwd ?? ".") }
        loaded.push({ file, name, declaration, entry: entry.success })
      }
    }
    return loaded
  })
