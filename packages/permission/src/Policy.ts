/**
 * A permission policy as a value: ordered rules, each matching a call by its tool's name (globs),
 * its tool's annotations, its arguments (globs on named fields) and its command (patterns like
 * `git push *`, for tools that run one), with a decision (`allow`, `ask` or `deny`) and a reason;
 * a default for calls no rule matches. The first rule that matches
 * decides, in the order written: exceptions go above the rules they carve out of.
 *
 * A policy is decoded by its Schema, from a value or from JSON text; what does not decode is an
 * `InvalidPolicy` naming the JSON path (`rules[2].decision: expected "allow", "ask" or "deny",
 * got "maybe"`). Unknown fields are refused wherever the Schema is used, whatever the decoding
 * options (a misspelt `readonly` would otherwise silently widen a rule), and so is a glob that
 * does not compile.
 *
 * Rules name what a field means, not its spelling (`args.path` reads `leer`'s `ruta`), and a
 * tool glob matches a tool's name or the provider-safe alias the model sees (`anadir`).
 *
 * A call can be read in more than one way: `notes/../secrets/k` is `secrets/k` to the file
 * system, and a list of paths is each of its paths. `decide` decides every reading and keeps the
 * strictest answer (deny over ask over allow), so a rule cannot be dodged by spelling. A
 * command is read the same way: as given, through its wrappers (`env`, `sudo`, `xargs`…) and
 * its shell lines (`sh -c`), each reading decided (see `Command`).
 *
 * @since 0.1.0
 */
import { JsonPath, Render, type Tool } from "@agent-harness/tool-schema"
import { Cause, Exit, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import * as Command from "./Command.ts"
import * as Glob from "./Glob.ts"
import * as Matching from "./internal/matching.ts"
import * as Strict from "./Strict.ts"

/**
 * What a rule says: run the call, ask someone first, or refuse it.
 *
 * @since 0.1.0
 */
export type Decision = "allow" | "ask" | "deny"

/**
 * A tool's annotations a rule requires: each one given must equal the tool's.
 *
 * @since 0.1.0
 */
export interface AnnotationMatch {
  /** The tool does not modify its environment. */
  readonly readOnly?: boolean
  /** The tool may delete or overwrite. */
  readonly destructive?: boolean
  /** Calling it again with the same arguments has no additional effect. */
  readonly idempotent?: boolean
  /** The tool reaches outside a closed domain (the web, other systems). */
  readonly openWorld?: boolean
}

/**
 * One glob, or several (any of them matching is a match).
 *
 * @since 0.1.0
 */
export type Globs = string | ReadonlyArray<string>

/**
 * One command pattern, or several (any of them matching is a match): `"git push *"`.
 *
 * @since 0.1.0
 */
export type CommandPatterns = string | ReadonlyArray<string>

/**
 * A rule: it matches a call when every condition it states holds (one it leaves out always
 * holds).
 *
 * @since 0.1.0
 */
export interface Rule {
  /** Globs on the tool's name; a glob matching its provider-safe alias (`anadir`) matches too. */
  readonly tool?: Globs
  /** The tool's annotations. */
  readonly annotations?: AnnotationMatch
  /**
   * Globs on top-level fields of the call's input, named by what they mean (`path`: the tool's
   * field that means a path, whatever a locale spells it, `ruta` included; see
   * `Tool.FieldMeanings`): each must be text (or a list of texts) matching one of its globs. A
   * call without such a field does not match.
   */
  readonly args?: { readonly [field: string]: Globs }
  /**
   * Patterns on the command a tool runs (its fields meaning `program` and `arguments`, or
   * `shell`), written like a shell command: `git push *`, `rm -rf *`. A rule with `command`
   * matches only calls of a tool that has a command. An `allow` rule's pattern matches a command
   * exactly; a `deny` or `ask` rule's matches every command that has at least its program, its
   * flags and its words (see `Command.matches`). A command that cannot be read fully (`$CMD`)
   * matches every `deny` and `ask` pattern and no `allow` one.
   */
  readonly command?: CommandPatterns
  /** What it says when it matches. */
  readonly decision: Decision
  /** Why: shown to the person asked, and to the model when the call is denied. */
  readonly reason?: string
}

/**
 * The decision for calls no rule matches.
 *
 * @since 0.1.0
 */
export interface Default {
  /** What it says. */
  readonly decision: Decision
  /** Why: shown to the person asked, and to the model when the call is denied. */
  readonly reason?: string
}

/**
 * A policy. Without `default`, calls no rule matches are asked about.
 *
 * @since 0.1.0
 */
export interface Policy {
  /** The rules, in the order they are tried. */
  readonly rules?: ReadonlyArray<Rule>
  /** The decision when no rule matches (`ask` when left out). */
  readonly default?: Decision | Default
}

/**
 * What a policy is decoded from: a JSON object.
 *
 * @since 0.1.0
 */
export type Encoded = { readonly [key: string]: unknown }

const DecisionSchema = Schema.Literals(["allow", "ask", "deny"]).annotate({ expected: `"allow", "ask" or "deny"` })

const GlobText = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const compiled = Glob.compile(text)
    return Result.isFailure(compiled) ? `not a glob that compiles: ${compiled.failure}` : undefined
  })
)

const GlobsSchema = Schema.Union([GlobText, Schema.Array(GlobText).check(Schema.isMinLength(1))]).annotate({
  expected: "a glob or a non-empty list of globs"
})

const CommandText = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = Command.parsePattern(text)
    return Result.isFailure(parsed) ? `not a command pattern: ${parsed.failure}` : undefined
  })
)

const CommandsSchema = Schema.Union([CommandText, Schema.Array(CommandText).check(Schema.isMinLength(1))]).annotate({
  expected: "a command pattern or a non-empty list of command patterns"
})

const AnnotationsSchema = Strict.struct({
  readOnly: Schema.optionalKey(Schema.Boolean),
  destructive: Schema.optionalKey(Schema.Boolean),
  idempotent: Schema.optionalKey(Schema.Boolean),
  openWorld: Schema.optionalKey(Schema.Boolean)
})

/**
 * The Schema of a rule.
 *
 * @since 0.1.0
 */
export const RuleSchema: Schema.Codec<Rule, Encoded> = Strict.struct({
  tool: Schema.optionalKey(GlobsSchema),
  annotations: Schema.optionalKey(AnnotationsSchema),
  args: Schema.optionalKey(Schema.Record(Schema.String, GlobsSchema)),
  command: Schema.optionalKey(CommandsSchema),
  decision: DecisionSchema,
  reason: Schema.optionalKey(Schema.String)
})

const DefaultSchema = Schema.Union([
  DecisionSchema,
  Strict.struct({ decision: DecisionSchema, reason: Schema.optionalKey(Schema.String) })
]).annotate({ expected: `"allow", "ask", "deny" or { "decision", "reason" }` })

/**
 * The Schema of a policy. Use it inside your own schemas (a scenario file's `policy`); decode
 * with `decode` or `parse` to get an `InvalidPolicy` with a JSON path.
 *
 * @example
 * ```json
 * {
 *   "rules": [
 *     { "args": { "path": ["secrets/**", "**\/.env"] }, "decision": "deny", "reason": "secrets stay secret" },
 *     { "annotations": { "readOnly": true }, "decision": "allow" },
 *     { "tool": "append", "args": { "path": "notes/**" }, "decision": "ask", "reason": "it adds to your notes" }
 *   ],
 *   "default": { "decision": "deny", "reason": "only reading and adding notes is allowed" }
 * }
 * ```
 *
 * @since 0.1.0
 */
export const Policy: Schema.Codec<Policy, Encoded> = Strict.struct({
  rules: Schema.optionalKey(Schema.Array(RuleSchema)),
  default: Schema.optionalKey(DefaultSchema)
})

/**
 * A policy that does not decode: the JSON path of the first problem (`rules[2].decision`, or
 * `(root)`) and what is wrong.
 *
 * @since 0.1.0
 */
const InvalidPolicyBase: Schema.Class<
  InvalidPolicy,
  Schema.TaggedStruct<"InvalidPolicy", { readonly path: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidPolicy>()("InvalidPolicy", { path: Schema.String, problem: Schema.String })

/**
 * A policy that does not decode: the JSON path of the first problem (`rules[2].decision`, or
 * `(root)`) and what is wrong.
 *
 * @since 0.1.0
 */
export class InvalidPolicy extends InvalidPolicyBase {
  /** `<path>: <problem>`. */
  override get message(): string {
    return `${this.path}: ${this.problem}`
  }
}

/** A JSON path as text: `rules[2].args.path`, `(root)` for none. */
const pathText = JsonPath.text

const lowerFirst = (s: string): string => (s === "" ? s : `${s[0]?.toLowerCase()}${s.slice(1)}`)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    if (issue._tag === "MissingKey") return "missing"
    if (issue._tag === "UnexpectedKey") return "unexpected field"
    return lowerFirst(SchemaIssue.defaultLeafHook(issue))
  },
  checkHook: (issue) => {
    const message = SchemaIssue.defaultCheckHook(issue)
    return message === undefined ? undefined : lowerFirst(message)
  }
})

const decodePolicy = SchemaParser.decodeUnknownExit(Policy)

/**
 * Decodes a value (parsed JSON, or a `Policy` built in code) as a policy.
 *
 * @since 0.1.0
 */
export const decode = (json: unknown): Result.Result<Policy, InvalidPolicy> => {
  let decoded: Exit.Exit<Policy, SchemaIssue.Issue>
  try {
    decoded = decodePolicy(json, { errors: "first", onExcessProperty: "error", reportInput: true })
  } catch (thrown) {
    return Result.fail(unreadable(thrown))
  }
  if (Exit.isSuccess(decoded)) return Result.succeed(decoded.value)
  const issue = Cause.findError(decoded.cause)
  if (Result.isFailure(issue)) {
    // A hostile value (a getter, a Proxy) that throws while it is read.
    const defect = Cause.findDefect(decoded.cause)
    return Result.fail(unreadable(Result.isSuccess(defect) ? defect.success : "it was interrupted"))
  }
  const first = formatter(issue.success).issues[0]
  return Result.fail(
    new InvalidPolicy({
      path: pathText((first?.path ?? []).map((s) => (typeof s === "object" ? s.key : s))),
      problem: lowerFirst(first?.message ?? "invalid")
    })
  )
}

const unreadable = (thrown: unknown): InvalidPolicy =>
  new InvalidPolicy({ path: "(root)", problem: `it could not be read: ${Render.thrown(thrown)}` })

/**
 * A JSON parser for `parse`: the value, or where and what is wrong.
 *
 * @since 0.1.0
 */
export type JsonParser = (
  text: string
) => Result.Result<unknown, { readonly path: ReadonlyArray<string | number>; readonly problem: string }>

/**
 * `JSON.parse`, as a `JsonParser`. A key written twice keeps its last value, as `JSON.parse`
 * does; pass a strict parser to `parse` to refuse that.
 *
 * @since 0.1.0
 */
export const jsonParse: JsonParser = (
  text: string
): Result.Result<unknown, { readonly path: ReadonlyArray<string | number>; readonly problem: string }> => {
  try {
    return Result.succeed(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text))
  } catch (thrown) {
    return Result.fail({ path: [], problem: `not JSON: ${Render.thrown(thrown)}` })
  }
}

/**
 * Parses a policy file's text and decodes it. `json` parses the text (default `jsonParse`);
 * the CLI passes the strict parser it reads scenario files with, which refuses a key written
 * twice (a security policy must not silently keep the last of two decisions).
 *
 * @since 0.1.0
 */
export const parse = (text: string, json: JsonParser = jsonParse): Result.Result<Policy, InvalidPolicy> => {
  const parsed = json(text)
  if (Result.isFailure(parsed)) {
    return Result.fail(new InvalidPolicy({ path: pathText(parsed.failure.path), problem: parsed.failure.problem }))
  }
  return decode(parsed.success)
}

interface CompiledRule {
  readonly tool: ReadonlyArray<Glob.Glob> | undefined
  readonly annotations: AnnotationMatch | undefined
  readonly args: ReadonlyArray<readonly [string, ReadonlyArray<Glob.Glob>]>
  readonly command: ReadonlyArray<Command.Pattern> | undefined
  readonly decision: Decision
  readonly reason: string | undefined
}

/**
 * A policy ready to decide: decoded, its globs compiled.
 *
 * @since 0.1.0
 */
export interface Compiled {
  /** The policy, decoded. */
  readonly policy: Policy
  /** Its rules, compiled, in order. */
  readonly rules: ReadonlyArray<CompiledRule>
  /** Its default (`ask` when it had none). */
  readonly default: Default
  /** Every meaning some rule's `args` names (`path`), in order of first use. */
  readonly fields: ReadonlyArray<string>
  /** Whether some rule has a `command`: calls' commands are read only then. */
  readonly commands: boolean
}

const globsOf = (globs: Globs): ReadonlyArray<Glob.Glob> =>
  (typeof globs === "string" ? [globs] : globs).map((g) => Result.getOrThrow(Glob.compile(g)))

const patternsOf = (patterns: CommandPatterns): ReadonlyArray<Command.Pattern> =>
  (typeof patterns === "string" ? [patterns] : patterns).map((p) => Result.getOrThrow(Command.parsePattern(p)))

/**
 * Checks a policy (a decoded one, or one built in code) and compiles its globs.
 *
 * @since 0.1.0
 */
export const compile = (policy: Policy): Result.Result<Compiled, InvalidPolicy> => {
  const decoded = decode(policy)
  if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
  const checked = decoded.success
  const fields: Array<string> = []
  // Every glob and pattern compiled: the Schema checked each one.
  const rules = (checked.rules ?? []).map(
    (rule): CompiledRule => ({
      tool: rule.tool === undefined ? undefined : globsOf(rule.tool),
      annotations: rule.annotations,
      args: Object.entries(rule.args ?? {}).map(([field, globs]) => {
        if (!fields.includes(field)) fields.push(field)
        return [field, globsOf(globs)] as const
      }),
      command: rule.command === undefined ? undefined : patternsOf(rule.command),
      decision: rule.decision,
      reason: rule.reason
    })
  )
  const fallback = checked.default ?? "ask"
  return Result.succeed({
    policy: checked,
    rules,
    default: typeof fallback === "string" ? { decision: fallback } : fallback,
    fields,
    commands: rules.some((rule) => rule.command !== undefined)
  })
}

/**
 * What a policy decided about a call: the decision, the rule that gave it (its index in
 * `rules`; `undefined`: the default) and that rule's reason. `problem` is set when the call's
 * arguments could not be checked, which denies it.
 *
 * @since 0.1.0
 */
export interface Verdict {
  /** What the policy says. */
  readonly decision: Decision
  /** The index of the rule that said it in `rules`; `undefined`: the default. */
  readonly rule: number | undefined
  /** That rule's reason. */
  readonly reason: string | undefined
  /** Why the arguments could not be checked (the decision is then `deny`). */
  readonly problem?: Problem | undefined
  /**
   * The call's command could not be read fully (this construct hides it: `$CMD`), and the
   * decision is the one any command would get (see `Rule.command`).
   */
  readonly opaque?: string | undefined
}

/**
 * Why a call's arguments could not be checked: reading a field threw, the call has more
 * readings than `maxReadings`, or its command is too large to read (`Command.TooLarge`).
 *
 * @since 0.1.0
 */
export type Problem =
  | { readonly _tag: "Unreadable"; readonly field: string; readonly message: string }
  | { readonly _tag: "TooManyReadings"; readonly readings: number }
  | Command.TooLarge

/**
 * The most readings of one call the policy decides (the product, over the fields rules name,
 * of each field's texts: a text and its normalized path, each text of a list). A call with more
 * is denied.
 *
 * @since 0.1.0
 */
export const maxReadings: number = Matching.maxReadings

/**
 * A text as a path: backslashes as slashes, `.` segments and repeated slashes dropped, `..`
 * segments resolved, a trailing slash dropped (`./notes//a/../b/` is `notes/b`). A URL's
 * `scheme://` is kept as it is. Percent-encoded dots are not decoded.
 *
 * @since 0.1.0
 */
export const normalizePath: (text: string) => string = Matching.normalizePath

/**
 * The meaning of the input field paths are in: a rule on `args.path` is a rule on every path a
 * tool reads, reveals or writes (see `Gate`'s path guard).
 *
 * @since 0.1.0
 */
export const pathMeaning = "path"

/**
 * What a rule's `args` keys name: the meaning of a tool's input field (`Tool.FieldMeanings`),
 * so a rule on `path` applies to `leer {ruta}` when the tool declares `{ ruta: "path" }`. A field
 * the tool does not list means its own name.
 *
 * @since 0.1.0
 */
export type Meanings = Tool.FieldMeanings | undefined

/**
 * Decides a call that passed its schema (`input`: the decoded value the tool runs with): every
 * reading of it by the rules in order (the first that matches decides, else the default), and
 * the strictest of those answers (deny over ask over allow; on a tie, the first reading's, but a
 * rule's denial over the default's).
 * A rule's `tool` globs match the tool's name or its provider-safe alias (`anadir` for
 * `añadir`); its `args` keys are meanings, read from the fields `meanings` says mean them
 * (`{ ruta: "path" }`; a field not listed means its name), and so are its command's fields
 * (`program`, `arguments`, `shell`) when a rule has a `command`. Never throws: a field that
 * throws when read, a call with more than `maxReadings` readings, or a command past
 * `Command`'s bounds, is denied with a `problem`; a verdict on a command that could not be read
 * fully says so (`opaque`).
 *
 * @since 0.1.0
 */
export const decide = (
  compiled: Compiled,
  call: { readonly name: string; readonly input: unknown },
  annotations: Tool.Annotations,
  meanings?: Meanings
): Verdict => {
  let input: unknown
  try {
    input = call.input
  } catch (thrown) {
    return {
      decision: "deny",
      rule: undefined,
      reason: undefined,
      problem: { _tag: "Unreadable", field: "(input)", message: Render.thrown(thrown) }
    }
  }
  const options = Matching.optionsOf(compiled, input, meanings)
  return Matching.isVerdict(options)
    ? options
    : Matching.decideOptions(compiled, Matching.namesOf(call.name), annotations, options)
}

/**
 * How the policy decides the paths one call may reveal (see {@link pathVerdicts}).
 *
 * @since 0.1.0
 */
export interface PathVerdicts {
  /** The texts of the call's own `path` fields, as written and normalized: the gate decided them. */
  readonly own: ReadonlySet<string>
  /**
   * The verdict on the same call (the same tool, annotations and other arguments) with its
   * `path` meaning set to `path` alone, read as `decide` reads it (the text, its normalized path).
   */
  readonly verdict: (path: string) => Verdict
}

/**
 * How the policy decides the paths one call may reveal. The call's input is read once, here;
 * each path then costs one decision. `undefined` when the call's own input is denied before any
 * rule (unreadable, too many readings): then no path may be revealed.
 *
 * @since 0.1.0
 */
export const pathVerdicts = (
  compiled: Compiled,
  call: { readonly name: string; readonly input: unknown },
  annotations: Tool.Annotations,
  meanings?: Meanings
): PathVerdicts | undefined => {
  let input: unknown
  try {
    input = call.input
  } catch {
    return undefined
  }
  const others = Matching.optionsOf(
    { ...compiled, fields: compiled.fields.filter((f) => f !== pathMeaning) },
    input,
    meanings
  )
  if (Matching.isVerdict(others)) return undefined
  const mine = Matching.optionsOf({ ...compiled, fields: [pathMeaning], commands: false }, input, meanings)
  if (Matching.isVerdict(mine)) return undefined
  const own = new Set<string>()
  for (const text of mine.fields[0]?.[1] ?? []) if (text !== undefined) own.add(text)
  const names = Matching.namesOf(call.name)
  const usesPath = compiled.fields.includes(pathMeaning)
  return {
    own,
    verdict: (path) => {
      if (!usesPath) return Matching.decideOptions(compiled, names, annotations, others)
      const texts = Matching.textsOf(path)
      return Matching.decideOptions(compiled, names, annotations, {
        fields: [...others.fields, [pathMeaning, Result.isSuccess(texts) ? texts.success : [path]]],
        commands: others.commands
      })
    }
  }
}

/**
 * The default of `harness agent` on a real folder: read-only tools run, anything else is asked
 * about (and denied when no one can be asked).
 *
 * @since 0.1.0
 */
export const askBeforeChanges: Policy = {
  rules: [{ annotations: { readOnly: true }, decision: "allow" }],
  default: { decision: "ask", reason: "the tool is not read-only" }
}

/**
 * Tool globs and command patterns given as command-line shorthands (`--deny`, `--ask`,
 * `--allow`, `--deny-command`, `--ask-command`, `--allow-command`).
 *
 * @since 0.1.0
 */
export interface Shorthands {
  /** Tools to deny (`--deny`). */
  readonly deny?: ReadonlyArray<string> | undefined
  /** Tools to ask about (`--ask`). */
  readonly ask?: ReadonlyArray<string> | undefined
  /** Tools to allow (`--allow`). */
  readonly allow?: ReadonlyArray<string> | undefined
  /** Commands to deny (`--deny-command "rm -rf *"`). */
  readonly denyCommand?: ReadonlyArray<string> | undefined
  /** Commands to ask about (`--ask-command "git push *"`). */
  readonly askCommand?: ReadonlyArray<string> | undefined
  /** Commands to allow (`--allow-command "git status"`). */
  readonly allowCommand?: ReadonlyArray<string> | undefined
}

/**
 * A policy with shorthand rules in front of its own: every `deny` first, then every `ask`, then
 * every `allow` (flags have no order of their own on a command line, so the strictest comes
 * first; within one decision, tool globs before command patterns), each with its flag as its
 * reason (`--deny 'fs__*'`, `--deny-command "rm -rf *"`). A glob or pattern that does not compile
 * is refused when the policy is compiled (`Gate.make`), at `rules[i].tool` or `rules[i].command`.
 *
 * @example
 * ```ts
 * import { Policy } from "@agent-harness/permission"
 *
 * Policy.withShorthands(Policy.askBeforeChanges, {
 *   deny: ["fs__delete*"],
 *   allow: ["append"],
 *   denyCommand: ["rm -rf *"],
 *   allowCommand: ["git status", "git diff *"]
 * })
 * ```
 *
 * @since 0.1.0
 */
export const withShorthands = (policy: Policy, shorthands: Shorthands): Policy => {
  const tools = (decision: Decision, globs: ReadonlyArray<string> | undefined): ReadonlyArray<Rule> =>
    (globs ?? []).map((tool) => ({ tool, decision, reason: `--${decision} ${JSON.stringify(tool)}` }))
  const commands = (decision: Decision, patterns: ReadonlyArray<string> | undefined): ReadonlyArray<Rule> =>
    (patterns ?? []).map((command) => ({
      command,
      decision,
      reason: `--${decision}-command ${JSON.stringify(command)}`
    }))
  return {
    ...policy,
    rules: [
      ...tools("deny", shorthands.deny),
      ...commands("deny", shorthands.denyCommand),
      ...tools("ask", shorthands.ask),
      ...commands("ask", shorthands.askCommand),
      ...tools("allow", shorthands.allow),
      ...commands("allow", shorthands.allowCommand),
      ...(policy.rules ?? [])
    ]
  }
}
