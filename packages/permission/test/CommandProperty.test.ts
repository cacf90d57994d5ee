/**
 * A spelling can only make a command treated more carefully, never less. For random policies of
 * command rules and random commands, the same command wrapped in random wrappers (`env`, `nice`,
 * `timeout`, `sudo`, `xargs`, `busybox`, …), with its program spelt as a path, run by a shell
 * (`sh -c`, `bash -lc`) with its words quoted at random (single quotes, double quotes,
 * backslashes, half-quoted words like `'r'm`), or sent as the shell tool's line among other
 * commands, is never decided more leniently than the bare command. A mutant that decides only
 * the outermost command, as a plain matcher would, is caught by the same property.
 */
import { Tool } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { Command, Policy } from "../src/index.ts"

const rank: Record<Policy.Decision, number> = { allow: 0, ask: 1, deny: 2 }

const programs = ["rm", "git", "ls", "curl", "chmod"] as const
const words = [
  "-r",
  "-f",
  "-rf",
  "-fr",
  "-v",
  "-C",
  "-n5",
  "--force",
  "--force=yes",
  "--no-pager",
  "--",
  "-",
  "push",
  "status",
  "x",
  "/tmp",
  "origin",
  "a b",
  "it's",
  "$HOME",
  "*",
  "{a,b}",
  "#x",
  "a;b"
] as const

/** Program globs whose match of `/bin/p` implies their match of `p` (rules name programs, not paths). */
const patternPrograms = ["rm", "git", "ls", "curl", "chmod", "*", "r*", "g*"] as const
const patternWords = [
  "-r",
  "-f",
  "-rf",
  "-v",
  "-C",
  "--force",
  "--for",
  "push",
  "status",
  "x",
  "*",
  "/tmp",
  "'a b'",
  "-n",
  "5",
  "--",
  "'*'",
  "p*"
] as const

const decision = fc.constantFrom<Policy.Decision>("allow", "ask", "deny")
const pattern = fc
  .tuple(fc.constantFrom(...patternPrograms), fc.array(fc.constantFrom(...patternWords), { maxLength: 2 }))
  .map(([program, rest]) => [program, ...rest].join(" "))
const rule: fc.Arbitrary<Policy.Rule> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record({ command: fc.oneof(pattern, fc.array(pattern, { minLength: 1, maxLength: 2 })), decision })
  },
  { weight: 1, arbitrary: fc.record({ annotations: fc.constant({ readOnly: false }), decision }) }
)
const policy: fc.Arbitrary<Policy.Policy> = fc.record({ rules: fc.array(rule, { maxLength: 5 }), default: decision })

const bare = fc
  .tuple(fc.constantFrom(...programs), fc.array(fc.constantFrom(...words), { maxLength: 4 }))
  .map(([program, args]): ReadonlyArray<string> => [program, ...args])

// ---------------------------------------------------------------------------------------------
// Quoting: every way yields the same word to sh.

type Quote = (word: string) => string
const single: Quote = (w) => `'${w.replaceAll("'", "'\\''")}'`
const double: Quote = (w) => `"${w.replace(/[\\"$`]/g, "\\$&")}"`
const backslashes: Quote = (w) => Array.from(w, (c) => `\\${c}`).join("")
const plainOr =
  (other: Quote): Quote =>
  (w) =>
    /^[A-Za-z0-9_%+:,./-]+$/.test(w) ? w : other(w)
const quotes: ReadonlyArray<Quote> = [single, double, backslashes, plainOr(single), plainOr(double)]

/** A word quoted in one or two pieces, each its own way (`'r'm`, `r\m`, `"r"'m'`). */
const quoted = (word: string, how: ReadonlyArray<number>, cut: number): string => {
  const q = (i: number): Quote => quotes[(how[i] ?? 0) % quotes.length] as Quote
  if (word.length < 2) return word === "" ? "''" : q(0)(word)
  const at = 1 + (cut % (word.length - 1))
  return `${q(0)(word.slice(0, at))}${q(1)(word.slice(at))}`
}

const lineOf = (argv: ReadonlyArray<string>, how: ReadonlyArray<number>): string =>
  argv
    .map((w, i) =>
      quoted(w, [how[(2 * i) % how.length] ?? 0, how[(2 * i + 1) % how.length] ?? 0], how[i % how.length] ?? 0)
    )
    .join(" ")

// ---------------------------------------------------------------------------------------------
// Wrappings: each yields a command that runs `argv`.

type Wrap = (argv: ReadonlyArray<string>, how: ReadonlyArray<number>) => ReadonlyArray<string>
const prefix =
  (...before: ReadonlyArray<string>): Wrap =>
  (argv) => [...before, ...argv]
const spelt =
  (path: string): Wrap =>
  ([program = "", ...rest]) => [`${path}${program}`, ...rest]
const shelled =
  (shell: string, flag: string): Wrap =>
  (argv, how) => [shell, flag, lineOf(argv, how)]
const wraps: ReadonlyArray<Wrap> = [
  prefix("env"),
  prefix("env", "-i", "FOO=1", "BAR=2"),
  prefix("env", "-u", "HOME", "--"),
  prefix("nice"),
  prefix("nice", "-n", "5"),
  prefix("timeout", "5"),
  prefix("timeout", "-s", "KILL", "5s"),
  prefix("nohup"),
  prefix("sudo"),
  prefix("sudo", "-u", "root", "--"),
  prefix("doas"),
  prefix("busybox"),
  prefix("command"),
  prefix("exec"),
  prefix("stdbuf", "-oL"),
  prefix("setsid"),
  prefix("time", "-p"),
  prefix("xargs"),
  prefix("xargs", "-0", "-n", "1"),
  prefix("chrt", "-b", "0"),
  prefix("taskset", "-c", "1"),
  prefix("ionice", "-c3"),
  prefix("flock", "/tmp/lock"),
  spelt("/bin/"),
  spelt("./"),
  spelt("/usr/bin//"),
  spelt("../x/"),
  shelled("sh", "-c"),
  shelled("bash", "-lc"),
  shelled("dash", "-ec"),
  shelled("/bin/sh", "-c"),
  (argv, how) => ["env", "-S", lineOf(argv, how)],
  (argv, how) => ["flock", "/tmp/lock", "-c", lineOf(argv, how)],
  (argv, how) => ["script", "-qc", lineOf(argv, how), "/dev/null"]
]

/** How the wrapped command is sent: as the command tool's words, or as the shell tool's line. */
type Sent =
  | { readonly tool: "command"; readonly argv: ReadonlyArray<string> }
  | { readonly tool: "shell"; readonly line: string }
const lines: ReadonlyArray<(line: string) => string> = [
  (l) => l,
  (l) => `true; ${l}`,
  (l) => `${l} && true`,
  (l) => `FOO=1 ${l} 2>/dev/null`,
  (l) => `ls | ${l}`,
  (l) => `cd /tmp\n${l}`
]

const sentOf = (
  argv: ReadonlyArray<string>,
  chain: ReadonlyArray<number>,
  how: ReadonlyArray<number>,
  asLine: number | undefined
): Sent => {
  let wrapped = argv
  for (const w of chain) wrapped = (wraps[w % wraps.length] as Wrap)(wrapped, how)
  if (asLine === undefined) return { tool: "command", argv: wrapped }
  return { tool: "shell", line: (lines[asLine % lines.length] as (l: string) => string)(lineOf(wrapped, how)) }
}

const meanings = { program: "program", args: "arguments", line: "shell" }
const annotations = Tool.defaultAnnotations

const decide = (compiled: Policy.Compiled, sent: Sent): Policy.Verdict =>
  Policy.decide(
    compiled,
    sent.tool === "command"
      ? { name: "command", input: { program: sent.argv[0], args: sent.argv.slice(1) } }
      : { name: "shell", input: { line: sent.line } },
    annotations,
    meanings
  )

/** A mutant that reads only the outermost command, as a plain matcher would: first rule whose pattern matches. */
const outermostOnly = (compiled: Policy.Compiled, sent: Sent): Policy.Verdict => {
  const argv: Command.Argv = {
    _tag: "Argv",
    words: sent.tool === "command" ? sent.argv : sent.line.split(" "),
    globs: [],
    open: false
  }
  for (const [index, r] of compiled.rules.entries()) {
    if (r.command === undefined || r.command.some((p) => Command.matches(p, argv, r.decision))) {
      return { decision: r.decision, rule: index, reason: r.reason }
    }
  }
  return { decision: compiled.default.decision, rule: undefined, reason: undefined }
}

const property = (decideWrapped: (compiled: Policy.Compiled, sent: Sent) => Policy.Verdict) =>
  fc.property(
    policy,
    bare,
    fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
    fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
    fc.option(fc.nat(), { nil: undefined }),
    (p, argv, chain, how, asLine) => {
      const compiled = Result.getOrThrow(Policy.compile(p))
      const plain = decide(compiled, { tool: "command", argv })
      const wrapped = decideWrapped(compiled, sentOf(argv, chain, how, asLine))
      return rank[wrapped.decision] >= rank[plain.decision]
    }
  )

describe("a spelling never makes a command treated more leniently", () => {
  it("the quotings are right: sh reads every quoted word back as written", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...words, ...programs),
        fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
        fc.nat(),
        (word, how, cut) => {
          const found = Command.readingsOf({ line: `echo ${quoted(word, how, cut)}` }, { line: "shell" })
          return Result.isSuccess(found) && found.success[0]?._tag === "Argv" && found.success[0].words[1] === word
        }
      ),
      { numRuns: 500 }
    )
  })

  it("wrapped, spelt, quoted, or in a line: never decided more leniently than the bare command", () => {
    fc.assert(property(decide), { numRuns: 20_000 })
  })

  it("a mutant that reads only the outermost command is caught", () => {
    const found = fc.check(property(outermostOnly), { numRuns: 3000, seed: 42 })
    expect(found.failed).toBe(true)
  })

  it("a known case: every wrapping of `rm -rf x` under `deny rm -rf *` is denied", () => {
    const compiled = Result.getOrThrow(
      Policy.compile({ rules: [{ command: "rm -rf *", decision: "deny" }], default: "allow" })
    )
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        fc.option(fc.nat(), { nil: undefined }),
        (chain, how, asLine) => decide(compiled, sentOf(["rm", "-rf", "x"], chain, how, asLine)).decision === "deny"
      ),
      { numRuns: 2000 }
    )
  })
})
