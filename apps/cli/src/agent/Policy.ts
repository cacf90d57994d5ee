/**
 * The permission policy of `harness agent`: `--policy FILE` (read as strictly as scenario files:
 * a key written twice is refused) or, without it, `Policy.askBeforeChanges` (read-only tools
 * run, anything else is asked about); then the `--deny`, `--ask` and `--allow` tool globs in
 * front of it (`Policy.withShorthands`: every deny, then every ask, then every allow). What is
 * wrong is named where it is written: the file and the JSON path in it, or the flag and its glob.
 * A tool glob that matches no tool (a typo, a tool of the other locale) is not an error, but it
 * does nothing: each one is a warning on stderr naming the tools it could have meant
 * (`Unmatched`).
 *
 * @since 0.1.0
 */
import { FileTools } from "@agent-harness/file-tools"
import { Policy, Unmatched } from "@agent-harness/permission"
import { InputFile, JsonText } from "@agent-harness/scenario"
import { Console, Effect, type FileSystem, Result } from "effect"

/**
 * What the command line says about the policy.
 *
 * @since 0.1.0
 */
export interface Flags {
  /** `--policy FILE`. */
  readonly file?: string | undefined
  /** `--deny GLOB`…, `--ask GLOB`…, `--allow GLOB`…. */
  readonly shorthands: Policy.Shorthands
  /** The policy without `--policy` (default `Policy.askBeforeChanges`, `harness agent`'s). */
  readonly base?: Policy.Policy | undefined
  /**
   * The names of the run's tools, to warn about globs that match none of them (default
   * {@link fileToolNames}: a glob that could be an MCP tool's, `server__tool`, is then not judged).
   */
  readonly tools?: ReadonlyArray<string> | undefined
  /** The command, for the warnings (`harness agent: warning: …`; default `harness agent`). */
  readonly command?: string | undefined
  /**
   * Print the warnings of `tools` on stderr (default `true`); `false` for a caller that knows its
   * tools only later and prints `warnings` itself.
   */
  readonly warn?: boolean | undefined
}

/**
 * The names of the file tools of every locale: what `harness agent` and `harness mcp serve` run.
 *
 * @since 0.1.0
 */
export const fileToolNames: ReadonlyArray<string> = [...FileTools.english.tools, ...FileTools.spanish.tools].map(
  (tool) => tool.name
)

/**
 * The warnings of a policy over the run's tools: one line per tool glob that matches none of them
 * (`harness agent: warning: --deny "wirte" matches no tool, so it does nothing; did you mean
 * "write"?`). Without `tools`, over the file tools, and a glob that could name an MCP tool
 * (`__`, as `fs__delete*`) is not judged.
 *
 * @since 0.1.0
 */
export const warnings = (
  policy: Policy.Policy,
  tools?: ReadonlyArray<string> | undefined,
  command = "harness agent"
): ReadonlyArray<string> =>
  Unmatched.find(policy, tools ?? fileToolNames)
    .filter((u) => tools !== undefined || !u.glob.includes("__"))
    .map((u) => `${command}: warning: ${Unmatched.message(u)}`)

/**
 * The effective policy: the file's (or the default) with the shorthands in front, compiled; or
 * the line that says what is wrong (`--policy p.json: rules[0].decision: expected "allow", …`,
 * `--deny "[z-a": not a glob that compiles: …`).
 *
 * @since 0.1.0
 */
export const load = (flags: Flags): Effect.Effect<Policy.Policy, string, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const base =
      flags.file === undefined
        ? (flags.base ?? Policy.askBeforeChanges)
        : yield* Effect.flatMap(
            Effect.mapError(InputFile.read(flags.file), (error) => `--policy ${flags.file}: ${error.problem}`),
            (text) =>
              Effect.mapError(
                Effect.fromResult(Policy.parse(text, JsonText.parse)),
                (error) => `--policy ${flags.file}: ${error.path}: ${error.problem}`
              )
          )
    // Each shorthand glob alone first, so a bad one is named by its flag.
    for (const decision of ["deny", "ask", "allow"] as const) {
      for (const glob of flags.shorthands[decision] ?? []) {
        const alone = Policy.compile({ rules: [{ tool: glob, decision }] })
        if (Result.isFailure(alone)) {
          return yield* Effect.fail(`--${decision} ${JSON.stringify(glob)}: ${alone.failure.problem}`)
        }
      }
    }
    // And each command shorthand alone, named by its flag (`--deny-command "rm -rf *"`).
    for (const [decision, flag] of [
      ["denyCommand", "deny-command"],
      ["askCommand", "ask-command"],
      ["allowCommand", "allow-command"]
    ] as const) {
      for (const pattern of flags.shorthands[decision] ?? []) {
        const alone = Policy.compile({
          rules: [
            {
              command: pattern,
              decision: decision === "denyCommand" ? "deny" : decision === "askCommand" ? "ask" : "allow"
            }
          ]
        })
        if (Result.isFailure(alone)) {
          return yield* Effect.fail(`--${flag} ${JSON.stringify(pattern)}: ${alone.failure.problem}`)
        }
      }
    }
    const policy = Policy.withShorthands(base, flags.shorthands)
    const compiled = Policy.compile(policy)
    if (Result.isFailure(compiled)) return yield* Effect.fail(`the policy: ${compiled.failure.message}`)
    if (flags.warn !== false) {
      for (const line of warnings(compiled.success.policy, flags.tools, flags.command)) yield* Console.error(line)
    }
    return compiled.success.policy
  })
