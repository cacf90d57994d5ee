/**
 * Reading a command given to `run`: `{ argv: [program, ...args] }` or `{ shell: line }`, each
 * member and element read once and copied, so a getter that throws, a Proxy, a value that is not
 * a text, a NUL (which no argument can hold) or a size the kernel would refuse is a problem
 * named, never a throw and never a half-read command.
 */
import { byteLength } from "./capture.ts"

/** Which part of the command a problem is in. */
export type Part = "command" | "program" | "argument" | "line"

/** What is wrong with it. */
export type Kind = "unreadable" | "not-command" | "not-text" | "nul" | "empty" | "too-long" | "too-large"

/** A problem with a command, named. */
export interface Problem {
  readonly part: Part
  /** The argument's position (1 for the first argument after the program), for `argument`. */
  readonly index: number | null
  readonly kind: Kind
  /** The size found, for `too-long` and `too-large` (bytes). */
  readonly bytes: number | null
  /** The most allowed, for `too-long` and `too-large` (bytes). */
  readonly limit: number | null
  /** What reading it threw, for `unreadable`. */
  readonly detail: string | null
}

/** The longest single word the kernel passes to a program (MAX_ARG_STRLEN, its NUL counted). */
export const maxWordBytes = 131_071

/** The most a whole command may take: its words, their NULs and their pointers. */
export const maxCommandBytes = 1024 * 1024

/** A command read: its words as the sandbox runs them, and whether it is a shell line. */
export interface Read {
  readonly argv: ReadonlyArray<string>
  readonly shell: string | undefined
}

const problem = (
  part: Part,
  kind: Kind,
  extra: { readonly index?: number; readonly bytes?: number; readonly limit?: number; readonly detail?: string } = {}
): { readonly problem: Problem } => ({
  problem: {
    part,
    index: extra.index ?? null,
    kind,
    bytes: extra.bytes ?? null,
    limit: extra.limit ?? null,
    detail: extra.detail ?? null
  }
})

const thrownText = (thrown: unknown): string => {
  try {
    if (thrown instanceof Error && typeof thrown.message === "string") return thrown.message
    return typeof thrown === "string" ? thrown : "reading it threw"
  } catch {
    return "reading it threw"
  }
}

/** One word checked: a text, no NUL, not longer than the kernel takes. */
const word = (value: unknown, part: Part, index?: number): { readonly problem: Problem } | undefined => {
  const at = index === undefined ? {} : { index }
  if (typeof value !== "string") return problem(part, "not-text", at)
  if (value.includes("\0")) return problem(part, "nul", at)
  if (value.length > maxWordBytes || byteLength(value) > maxWordBytes) {
    return problem(part, "too-long", { ...at, bytes: byteLength(value), limit: maxWordBytes })
  }
  return undefined
}

const member = (value: object, key: string): { readonly value: unknown } | { readonly problem: Problem } => {
  try {
    return { value: (value as Record<string, unknown>)[key] }
  } catch (thrown) {
    return problem("command", "unreadable", { detail: thrownText(thrown) })
  }
}

/** The words of an argv, copied one by one. */
const argvOf = (argv: unknown): { readonly words: ReadonlyArray<string> } | { readonly problem: Problem } => {
  try {
    if (!Array.isArray(argv)) return problem("command", "not-command")
    const length = argv.length
    if (length === 0) return problem("program", "empty")
    if (length > maxCommandBytes / 9) return problem("command", "too-large", { limit: maxCommandBytes })
    const words: Array<string> = []
    for (let i = 0; i < length; i++) {
      const value: unknown = argv[i]
      const wrong = word(value, i === 0 ? "program" : "argument", i === 0 ? undefined : i)
      if (wrong !== undefined) return wrong
      words.push(value as string)
    }
    if (words[0] === "") return problem("program", "empty")
    return { words }
  } catch (thrown) {
    return problem("command", "unreadable", { detail: thrownText(thrown) })
  }
}

/** The bytes a command takes in the kernel's argument space: each word, its NUL, its pointer. */
const size = (words: ReadonlyArray<string>): number => words.reduce((sum, w) => sum + byteLength(w) + 9, 0)

/** The command, or its first problem. */
export const read = (command: unknown): Read | { readonly problem: Problem } => {
  if (typeof command !== "object" || command === null) return problem("command", "not-command")
  const argv = member(command, "argv")
  if ("problem" in argv) return argv
  const line = member(command, "shell")
  if ("problem" in line) return line
  if ((argv.value === undefined) === (line.value === undefined)) return problem("command", "not-command")
  if (line.value !== undefined) {
    const wrong = word(line.value, "line")
    return wrong ?? { argv: [], shell: line.value as string }
  }
  const words = argvOf(argv.value)
  if ("problem" in words) return words
  const bytes = size(words.words)
  if (bytes > maxCommandBytes) return problem("command", "too-large", { bytes, limit: maxCommandBytes })
  return { argv: words.words, shell: undefined }
}

/** The English of a problem: `argument 2 contains a NUL character`. */
export const describe = (p: Problem): string => {
  const what =
    p.part === "argument" ? `argument ${p.index ?? "?"}` : p.part === "line" ? "the shell line" : `the ${p.part}`
  switch (p.kind) {
    case "unreadable":
      return `${what} could not be read: ${p.detail ?? "reading it threw"}`
    case "not-command":
      return "the command must be { argv: [program, ...args] } or { shell: line }"
    case "not-text":
      return `${what} is not a text`
    case "nul":
      return `${what} contains a NUL character, which no program argument can hold`
    case "empty":
      return `${what} is empty`
    case "too-long":
      return `${what} is ${grouped(p.bytes ?? 0)} bytes long, more than the ${grouped(p.limit ?? 0)} bytes a program argument can be`
    case "too-large":
      return `the command is too large${p.bytes === null ? "" : ` (${grouped(p.bytes)} bytes)`}: at most ${grouped(p.limit ?? 0)} bytes of program and arguments`
  }
}

/** A count with thousands separated by `separator`. */
export const grouped = (count: number, separator = ","): string =>
  String(count).replace(/\B(?=(\d{3})+(?!\d))/g, separator)
