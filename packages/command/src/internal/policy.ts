/**
 * Checking a sandbox policy given by a program: every option read once, safely (a throwing
 * getter or a Proxy is a problem named, never a throw), the defaults filled in. Pure: the root
 * folder's existence is checked by `detect`, on the disk.
 */
import { Buffer } from "node:buffer"
import { isAbsolute, normalize } from "node:path"
import type { Policy } from "../Sandbox.ts"

/** What is wrong with one option. */
export interface Problem {
  readonly option: string
  readonly problem: string
}

/** The environment a command sees when the policy declares none. */
export const defaultEnv: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/tmp",
  LANG: "C.UTF-8"
}

/** The defaults of every option but `root`. */
export const defaults: Omit<Policy, "root"> = {
  network: false,
  env: defaultEnv,
  timeoutMs: 60_000,
  maxOutputBytes: 30_000,
  maxProcesses: 256,
  maxFileBytes: 1024 * 1024 * 1024,
  maxMemoryBytes: 4 * 1024 * 1024 * 1024
}

/** The least `maxMemoryBytes`: bwrap and a shell need a few MiB of their own before the command starts. */
export const minMemoryBytes = 16 * 1024 * 1024

/** The name an environment variable must have. */
export const variableName: RegExp = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * The host folders that hold the system, or show the kernel: a root may not be one of them,
 * nor hold one (it is mounted writable over them), nor live inside the kernel's.
 */
const system = ["/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/tmp"]
const kernel = ["/proc", "/sys", "/dev"]

/** The processes the sandbox itself needs besides the command: the supervisor, bwrap and its init. */
export const ownProcesses = 3

/** The longest timer Node keeps (about 24.8 days). */
const longestTimer = 2_147_483_647

const within = (path: string, folder: string): boolean => path === folder || path.startsWith(`${folder}/`)

/** A value as a problem shows it. */
const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value)
  }
  return Array.isArray(value) ? "an array" : `a ${typeof value}`
}

type Read<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly problem: Problem }

const fail = <A>(option: string, problem: string): Read<A> => ({ ok: false, problem: { option, problem } })

/** One option of the options object, read once; a throwing getter is a problem. */
const member = (options: unknown, option: string): Read<unknown> => {
  try {
    return { ok: true, value: (options as Record<string, unknown>)[option] }
  } catch (thrown) {
    return fail(option, `could not be read: ${thrown instanceof Error ? thrown.message : "reading it threw"}`)
  }
}

const rootOf = (value: unknown): Read<string> => {
  if (typeof value !== "string") return fail("root", `must be an absolute path, got ${shown(value)}`)
  if (value.includes("\0")) return fail("root", "must not contain a NUL character")
  if (!isAbsolute(value)) return fail("root", `must be an absolute path, got ${shown(value)}`)
  const root = normalize(value).replace(/(.)\/+$/, "$1")
  if (root === "/") return fail("root", "must not be / (the whole system would be writable)")
  const over = system.find((folder) => within(folder, root))
  if (over !== undefined) {
    return fail("root", `must not be ${over} or a folder holding it (the system must stay read-only), got ${root}`)
  }
  const inside = kernel.find((folder) => within(root, folder))
  if (inside !== undefined) return fail("root", `must not be inside ${inside}, got ${root}`)
  return { ok: true, value: root }
}

/** The most bytes the declared variables may take in all (names, values, `=` and NUL): far below the kernel's limit on a process's arguments and environment. */
export const maxEnvBytes = 65_536

const envOf = (value: unknown): Read<Readonly<Record<string, string>>> => {
  if (value === undefined) return { ok: true, value: defaultEnv }
  try {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return fail("env", `must be an object of variables and their values, got ${shown(value)}`)
    }
    const env: Record<string, string> = {}
    let bytes = 0
    for (const name of Object.keys(value)) {
      if (!variableName.test(name)) {
        return fail("env", `variable ${shown(name)} is not a valid name (letters, digits and _, not first a digit)`)
      }
      const text: unknown = (value as Record<string, unknown>)[name]
      if (typeof text !== "string") return fail("env", `variable '${name}' must be a string, got ${shown(text)}`)
      if (text.includes("\0")) return fail("env", `variable '${name}' must not contain a NUL character`)
      bytes += Buffer.byteLength(name) + Buffer.byteLength(text) + 2
      if (bytes > maxEnvBytes) {
        return fail("env", `the variables are more than ${maxEnvBytes.toLocaleString("en-US")} bytes in all`)
      }
      // Defined, not assigned: a variable named __proto__ is a variable, not the object's prototype.
      Object.defineProperty(env, name, { value: text, enumerable: true, writable: true, configurable: true })
    }
    return { ok: true, value: env }
  } catch (thrown) {
    return fail("env", `could not be read: ${thrown instanceof Error ? thrown.message : "reading it threw"}`)
  }
}

const booleanOf = (option: string, value: unknown, fallback: boolean): Read<boolean> => {
  if (value === undefined) return { ok: true, value: fallback }
  return typeof value === "boolean" ? { ok: true, value } : fail(option, `must be true or false, got ${shown(value)}`)
}

const wholeOf = (option: string, value: unknown, fallback: number, least: number, most: number): Read<number> => {
  if (value === undefined) return { ok: true, value: fallback }
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < least || value > most) {
    return fail(option, `must be a whole number from ${least} to ${most}, got ${shown(value)}`)
  }
  return { ok: true, value }
}

/**
 * The policy the options ask for, or the first problem: options read in this order, `root`
 * first. `root` defaults to `cwd`.
 */
export const check = (options: unknown, cwd: string): Read<Policy> => {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    return fail("options", `must be an object, got ${shown(options)}`)
  }
  const given = options ?? {}
  const read = (option: string): Read<unknown> => member(given, option)
  const rootValue = read("root")
  if (!rootValue.ok) return rootValue
  const root = rootOf(rootValue.value ?? cwd)
  if (!root.ok) return root
  const networkValue = read("network")
  if (!networkValue.ok) return networkValue
  const network = booleanOf("network", networkValue.value, defaults.network)
  if (!network.ok) return network
  const envValue = read("env")
  if (!envValue.ok) return envValue
  const env = envOf(envValue.value)
  if (!env.ok) return env
  const numbers: Array<number> = []
  const limits: ReadonlyArray<readonly [keyof Policy, number, number, number]> = [
    ["timeoutMs", defaults.timeoutMs, 1, longestTimer],
    ["maxOutputBytes", defaults.maxOutputBytes, 1, 256 * 1024 * 1024],
    ["maxProcesses", defaults.maxProcesses, ownProcesses + 1, 4_194_304],
    ["maxFileBytes", defaults.maxFileBytes, 1, Number.MAX_SAFE_INTEGER],
    ["maxMemoryBytes", defaults.maxMemoryBytes, minMemoryBytes, Number.MAX_SAFE_INTEGER]
  ]
  for (const [option, fallback, least, most] of limits) {
    const value = read(option)
    if (!value.ok) return value
    const whole = wholeOf(option, value.value, fallback, least, most)
    if (!whole.ok) return whole
    numbers.push(whole.value)
  }
  const [timeoutMs = 0, maxOutputBytes = 0, maxProcesses = 0, maxFileBytes = 0, maxMemoryBytes = 0] = numbers
  return {
    ok: true,
    value: {
      root: root.value,
      network: network.value,
      env: env.value,
      timeoutMs,
      maxOutputBytes,
      maxProcesses,
      maxFileBytes,
      maxMemoryBytes
    }
  }
}
