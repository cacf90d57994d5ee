/**
 * Scenario files, format 1 (`docs/scenario-format.md`): their Schema, and decoding a
 * file's text into a typed scenario or an error naming the file and the JSON path of the first
 * bad field (`turns[2].reply[0].id: missing`).
 *
 * @since 0.1.0
 */
import { type Cause, Data, Predicate, Result, Schema, SchemaIssue, SchemaParser } from "effect"
import { Message, StopReason } from "@agent-harness/executor"
import { SessionResult } from "@agent-harness/planner"
import { JsonPath } from "@agent-harness/tool-schema"
import * as Commands from "./Commands.ts"
import * as Checks from "./internal/checks.ts"
import * as Criteria from "./internal/criteria.ts"
import * as PlanSteps from "./internal/planSteps.ts"
import * as JsonText from "./JsonText.ts"
import * as Mounter from "./Mounter.ts"

/**
 * A reply block: text, a tool call whose input is any JSON value, or the model's reasoning (a
 * live run with extended thinking has it; it is replayed as it came, signature and all, and
 * never run).
 *
 * @since 0.1.0
 */
export const Block: Schema.Union<
  readonly [typeof Message.TextBlock, typeof Message.ToolUseBlock, typeof Message.ReasoningBlock]
> = Schema.Union([Message.TextBlock, Message.ToolUseBlock, Message.ReasoningBlock]).annotate({
  expected: `a block { "type": "text", "text" }, { "type": "tool_use", "id", "name", "input" } or { "type": "reasoning", "text" }`
})

/** An expected observation; `content` is exact text or `{ "pattern": regex }`. @since 0.1.0 */
export const Expected: Schema.Struct<{
  readonly type: Schema.Literal<"tool_result">
  readonly tool_use_id: Schema.String
  readonly is_error: Schema.Boolean
  readonly content: Schema.Union<readonly [Schema.String, Schema.Struct<{ readonly pattern: Schema.String }>]>
}> = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  is_error: Schema.Boolean,
  content: Schema.Union([Schema.String, Schema.Struct({ pattern: Schema.String })]).annotate({
    expected: `a string or { "pattern": regex }`
  })
})

/**
 * What compaction did before a model call, as a script pins it (needs the file's `compaction`):
 * the tool_use ids whose results were elided, and those whose turns were dropped. A turn
 * without it pins that the history was not compacted before that call.
 *
 * @since 0.2.0
 */
export const Compacted: Schema.Struct<{
  readonly elided: Schema.optionalKey<Schema.$Array<Schema.String>>
  readonly dropped: Schema.optionalKey<Schema.$Array<Schema.String>>
}> = Schema.Struct({
  elided: Schema.optionalKey(Schema.Array(Schema.String)),
  dropped: Schema.optionalKey(Schema.Array(Schema.String))
})

/** One model call of the script. @since 0.1.0 */
export const Turn: Schema.Struct<{
  readonly reply: Schema.$Array<typeof Block>
  readonly expect: Schema.optionalKey<Schema.$Array<typeof Expected>>
  readonly compacted: Schema.optionalKey<typeof Compacted>
}> = Schema.Struct({
  reply: Schema.Array(Block),
  expect: Schema.optionalKey(Schema.Array(Expected)),
  /** What compaction did before this call (needs `compaction`; absent: nothing). */
  compacted: Schema.optionalKey(Compacted)
})

const Fraction: Schema.Finite = Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1))

/**
 * Context compaction for a conversation (`Compactor.make` of @agent-harness/compaction, its
 * default strategy): the window in tokens, and the threshold and target as fractions of it.
 *
 * @since 0.2.0
 */
export const CompactionSettings: Schema.Struct<{
  readonly window: Schema.Int
  readonly threshold: Schema.optionalKey<typeof Fraction>
  readonly target: Schema.optionalKey<typeof Fraction>
}> = Schema.Struct({
  window: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  threshold: Schema.optionalKey(Fraction),
  target: Schema.optionalKey(Fraction)
})

const FileMap: Schema.$Record<Schema.String, Schema.String> = Schema.Record(Schema.String, Schema.String)

/** The fields every kind has. @since 0.1.0 */
export const Common: {
  readonly format: Schema.Literal<1>
  readonly name: Schema.optionalKey<Schema.String>
  readonly reserved: Schema.optionalKey<Schema.Boolean>
} = {
  format: Schema.Literal(1),
  name: Schema.optionalKey(Schema.String),
  reserved: Schema.optionalKey(Schema.Boolean)
}

/** What a non-envelope scripted tool answers: a success text or an error text. @since 0.1.0 */
export const ScriptedResult: Schema.Union<
  readonly [Schema.Struct<{ readonly ok: Schema.String }>, Schema.Struct<{ readonly error: Schema.String }>]
> = Schema.Union([Schema.Struct({ ok: Schema.String }), Schema.Struct({ error: Schema.String })]).annotate({
  expected: `{ "ok": string } or { "error": string }`
})

/**
 * A scripted tool of a conversation (an extension of format 1): the n-th call gets the n-th
 * result, calls past the end the last. With `envelope: true` a result is any JSON value, the
 * backend's status envelope, read by the variant's response parser; otherwise each result is
 * `{ "ok": string }` or `{ "error": string }` (checked after decoding, with its path).
 *
 * @since 0.1.0
 */
export const ConversationTool: Schema.Struct<{
  readonly description: Schema.optionalKey<Schema.String>
  readonly envelope: Schema.optionalKey<Schema.Boolean>
  readonly results: Schema.$Array<Schema.Unknown>
}> = Schema.Struct({
  description: Schema.optionalKey(Schema.String),
  envelope: Schema.optionalKey(Schema.Boolean),
  results: Schema.Array(Schema.Unknown).check(Schema.isMinLength(1))
})

/**
 * The loop's repeated-call breaker for a conversation (an extension of format 1; the executor's
 * `Breaker`): at the `after`-th identical call (same tool, input and observation) within `window`
 * turns, `tell` the model (a line appended to that observation) or `stop` the run after the turn
 * (`outcome.stop: "repeated_call"`).
 *
 * @since 0.1.0
 */
export const BreakerSettings: Schema.Struct<{
  readonly after: Schema.Int
  readonly window: Schema.Int
  readonly action: Schema.Literals<readonly ["tell", "stop"]>
}> = Schema.Struct({
  after: Schema.Int.check(Schema.isGreaterThanOrEqualTo(2)),
  window: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  action: Schema.Literals(["tell", "stop"])
})

/**
 * How a conversation's replies are streamed (an extension of format 1): `true` for the scripted
 * model's default chunking, or the characters of text and of a call's JSON arguments per piece.
 * A streamed conversation runs through `Loop.stream`, each reply cut into parts as the scripted
 * model's `Chunking` says, and must end exactly as the same conversation unstreamed.
 *
 * @since 0.2.0
 */
export const StreamSettings: Schema.Union<
  readonly [
    Schema.Boolean,
    Schema.Struct<{
      readonly textChars: Schema.optionalKey<Schema.Int>
      readonly argumentChars: Schema.optionalKey<Schema.Int>
    }>
  ]
> = Schema.Union([
  Schema.Boolean,
  Schema.Struct({
    textChars: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
    argumentChars: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
  })
]).annotate({ expected: `true, false or { "textChars"?: int ≥ 1, "argumentChars"?: int ≥ 1 }` })

/** A `conversation` scenario file (errors as observations). @since 0.1.0 */
export const ConversationFile: Schema.Struct<{
  readonly format: Schema.Literal<1>
  readonly name: Schema.optionalKey<Schema.String>
  readonly reserved: Schema.optionalKey<Schema.Boolean>
  readonly kind: Schema.Literal<"conversation">
  readonly locale: Schema.optionalKey<Schema.Literals<readonly ["en", "es"]>>
  readonly system: Schema.optionalKey<Schema.String>
  readonly user: Schema.optionalKey<Schema.String>
  readonly files: Schema.optionalKey<typeof FileMap>
  /** A folder next to the file whose tree the file tools work on (a fresh copy per run; `Roots`). */
  readonly root: Schema.optionalKey<Schema.String>
  readonly tools: Schema.optionalKey<Schema.$Record<Schema.String, typeof ConversationTool>>
  /** MCP servers whose tools join the conversation's, each under its prefix (`Mounter`). */
  readonly mcp: Schema.optionalKey<Schema.$Array<typeof Mounter.Declaration>>
  /** The permission policy every call goes through (decoded by the `Permissions` service). */
  readonly policy: Schema.optionalKey<Schema.$Record<Schema.String, Schema.Unknown>>
  /** Scripted answers to the calls the policy asks about, in order (none: no one can be asked). */
  readonly approvals: Schema.optionalKey<Schema.$Array<Schema.Unknown>>
  /** Mark the text of every result a tool produced as untrusted data (needs a policy). */
  readonly untrustedOutput: Schema.optionalKey<Schema.Boolean>
  /** The sandboxed command tool over the copy of `root` (needs `root`; the `Commands` service). */
  readonly commands: Schema.optionalKey<typeof Commands.Declaration>
  readonly maxTurns: Schema.optionalKey<Schema.Int>
  /** The repeated-call breaker the run is watched by (none by default). */
  readonly breaker: Schema.optionalKey<typeof BreakerSettings>
  /** Stream the replies (`Loop.stream`), cut into parts as given (not streamed by default). */
  readonly stream: Schema.optionalKey<typeof StreamSettings>
  /** Compact the history near a window before each model call (none by default). */
  readonly compaction: Schema.optionalKey<typeof CompactionSettings>
  readonly turns: Schema.$Array<typeof Turn>
  /** Checks judged after the run as a live case's `pass` is (none by default). */
  readonly pass: Schema.optionalKey<Schema.$Array<typeof Criteria.Check>>
  readonly outcome: Schema.Struct<{
    readonly stop: Schema.Literals<readonly ["end", "turn_cap", "context_window", "repeated_call"]>
    readonly text: Schema.optionalKey<Schema.String>
    readonly files: Schema.optionalKey<typeof FileMap>
  }>
}> = Schema.Struct({
  ...Common,
  kind: Schema.Literal("conversation"),
  locale: Schema.optionalKey(Schema.Literals(["en", "es"])),
  system: Schema.optionalKey(Schema.String),
  user: Schema.optionalKey(Schema.String),
  files: Schema.optionalKey(FileMap),
  /** A folder next to the file whose tree the file tools work on (a fresh copy per run; `Roots`). */
  root: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
  tools: Schema.optionalKey(Schema.Record(Schema.String, ConversationTool)),
  /** MCP servers whose tools join the conversation's, each under its prefix (`Mounter`). */
  mcp: Schema.optionalKey(Schema.Array(Mounter.Declaration)),
  /** The permission policy every call goes through (decoded by the `Permissions` service). */
  policy: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown).annotate({ expected: "an object" })),
  /** Scripted answers to the calls the policy asks about, in order (none: no one can be asked). */
  approvals: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  /** Mark the text of every result a tool produced as untrusted data (needs a policy). */
  untrustedOutput: Schema.optionalKey(Schema.Boolean),
  /** The sandboxed command tool over the copy of `root` (needs `root`; the `Commands` service). */
  commands: Schema.optionalKey(Commands.Declaration),
  maxTurns: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  /** The repeated-call breaker the run is watched by (none by default). */
  breaker: Schema.optionalKey(BreakerSettings),
  /** Stream the replies (`Loop.stream`), cut into parts as given (not streamed by default). */
  stream: Schema.optionalKey(StreamSettings),
  /** Compact the history near a window before each model call (none by default). */
  compaction: Schema.optionalKey(CompactionSettings),
  turns: Schema.Array(Turn),
  /** Checks judged after the run as a live case's `pass` is (none by default). */
  pass: Schema.optionalKey(Schema.Array(Criteria.Check)),
  outcome: Schema.Struct({
    stop: StopReason.StopReason.pick(["end", "turn_cap", "context_window", "repeated_call"]),
    text: Schema.optionalKey(Schema.String),
    files: Schema.optionalKey(FileMap)
  })
})

/** A decoded conversation file. @since 0.1.0 */
export type ConversationFile = typeof ConversationFile.Type

const PatternField: Schema.Struct<{ readonly pattern: Schema.String }> = Schema.Struct({ pattern: Schema.String })
const Ids: Schema.$Array<Schema.Int> = Schema.Array(Schema.Int)

/**
 * A plan step as a scenario file writes it: `{ id, tool_name, args, expected_outcome, group? }`,
 * the planner's `Step` fields. Files written before `tool_name` name the tool `tool`; `decode`
 * reads them as `tool_name`.
 *
 * @since 0.1.0
 */
export const PlanStep: Schema.Struct<{
  readonly id: Schema.Int
  readonly tool_name: Schema.String
  readonly args: Schema.$Record<Schema.String, Schema.Unknown>
  readonly expected_outcome: Schema.String
  /** Consecutive steps with the same group run concurrently. */
  readonly group: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  id: Schema.Int,
  tool_name: Schema.String,
  args: Schema.Record(Schema.String, Schema.Unknown),
  expected_outcome: Schema.String,
  /** Consecutive steps with the same group run concurrently. */
  group: Schema.optionalKey(Schema.String)
})

/** A scripted tool: the n-th call gets the n-th result; calls past the end get the last. @since 0.1.0 */
export const ScriptedTool: Schema.Struct<{ readonly results: Schema.$Array<typeof ScriptedResult> }> = Schema.Struct({
  results: Schema.Array(ScriptedResult).check(Schema.isMinLength(1))
})

/** A `plan` scenario file (plan and execute). @since 0.1.0 */
export const PlanFile: Schema.Struct<{
  readonly format: Schema.Literal<1>
  readonly name: Schema.optionalKey<Schema.String>
  readonly reserved: Schema.optionalKey<Schema.Boolean>
  readonly kind: Schema.Literal<"plan">
  readonly goal: Schema.String
  readonly files: Schema.optionalKey<typeof FileMap>
  readonly tools: Schema.optionalKey<Schema.$Record<Schema.String, typeof ScriptedTool>>
  readonly planner: Schema.$Array<
    Schema.Struct<{
      readonly when: Schema.Union<readonly [Schema.Null, Schema.String, typeof PatternField]>
      readonly plan: Schema.$Array<typeof PlanStep>
    }>
  >
  readonly onFailure: Schema.optionalKey<Schema.Literals<readonly ["replan", "skip", "abort"]>>
  readonly budgets: Schema.Struct<{ readonly maxSteps: Schema.Int; readonly maxReplans: Schema.Int }>
  readonly expect: Schema.Struct<{
    readonly status: Schema.Literals<readonly ["completed", "failed"]>
    readonly reason: Schema.Literals<
      readonly ["goal_met", "step_budget", "replan_budget", "no_plan", "aborted", "partial"]
    >
    readonly executed: Schema.optionalKey<typeof Ids>
    readonly revisions: Schema.optionalKey<
      Schema.$Array<
        Schema.Struct<{ readonly removed: typeof Ids; readonly added: typeof Ids; readonly revised: typeof Ids }>
      >
    >
    readonly files: Schema.optionalKey<typeof FileMap>
  }>
}> = Schema.Struct({
  ...Common,
  kind: Schema.Literal("plan"),
  goal: Schema.String,
  files: Schema.optionalKey(FileMap),
  tools: Schema.optionalKey(Schema.Record(Schema.String, ScriptedTool)),
  planner: Schema.Array(
    Schema.Struct({
      when: Schema.Union([Schema.Null, Schema.String, PatternField]).annotate({
        expected: `null, a string or { "pattern": regex }`
      }),
      plan: Schema.Array(PlanStep)
    })
  ),
  onFailure: Schema.optionalKey(Schema.Literals(["replan", "skip", "abort"])),
  budgets: Schema.Struct({
    maxSteps: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
    maxReplans: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
  }),
  expect: Schema.Struct({
    status: SessionResult.Status,
    reason: SessionResult.Reason.pick(["goal_met", "step_budget", "replan_budget", "no_plan", "aborted", "partial"]),
    executed: Schema.optionalKey(Ids),
    revisions: Schema.optionalKey(Schema.Array(Schema.Struct({ removed: Ids, added: Ids, revised: Ids }))),
    files: Schema.optionalKey(FileMap)
  })
})

/** A decoded plan file. @since 0.1.0 */
export type PlanFile = typeof PlanFile.Type

const JsonObject: Schema.$Record<Schema.String, Schema.Unknown> = Schema.Record(Schema.String, Schema.Unknown).annotate(
  {
    expected: "an object"
  }
)

/** The role of a case: the failure it pins down, a control, or a held-out case. @since 0.1.0 */
export const Role: Schema.Literals<readonly ["regression", "control", "reserved"]> = Schema.Literals([
  "regression",
  "control",
  "reserved"
])

/** The role of a case: `regression`, `control` or `reserved`. @since 0.1.0 */
export type Role = typeof Role.Type

/** One case of a `response-cases` file. @since 0.1.0 */
export const Case: Schema.Struct<{
  readonly id: Schema.String
  readonly role: typeof Role
  readonly purpose: Schema.optionalKey<Schema.String>
  /** The tool's raw response. */
  readonly response: typeof JsonObject
  /** What the parser must make of it, written from the contract. */
  readonly expected: typeof JsonObject
}> = Schema.Struct({
  id: Schema.String,
  role: Role,
  purpose: Schema.optionalKey(Schema.String),
  /** The tool's raw response. */
  response: JsonObject,
  /** What the parser must make of it, written from the contract. */
  expected: JsonObject
})

/** A decoded case. @since 0.1.0 */
export type Case = typeof Case.Type

/**
 * The envelope's field names and ok value (an extension of format 1; each defaults to the
 * contract's: `status`, `"ok"`, `error_code`, `content`).
 *
 * @since 0.1.0
 */
export const Contract: Schema.Struct<{
  readonly status: Schema.optionalKey<Schema.String>
  readonly ok: Schema.optionalKey<Schema.Union<readonly [Schema.String, Schema.Finite, Schema.Boolean]>>
  readonly error_code: Schema.optionalKey<Schema.String>
  readonly content: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  status: Schema.optionalKey(Schema.String),
  ok: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Finite, Schema.Boolean]).annotate({ expected: "a string, number or boolean" })
  ),
  error_code: Schema.optionalKey(Schema.String),
  content: Schema.optionalKey(Schema.String)
})

/** A `response-cases` scenario file (failures become regression tests). @since 0.1.0 */
export const ResponseCasesFile: Schema.Struct<{
  readonly format: Schema.Literal<1>
  readonly name: Schema.optionalKey<Schema.String>
  readonly reserved: Schema.optionalKey<Schema.Boolean>
  readonly kind: Schema.Literal<"response-cases">
  readonly contract: Schema.optionalKey<typeof Contract>
  readonly cases: Schema.$Array<typeof Case>
}> = Schema.Struct({
  ...Common,
  kind: Schema.Literal("response-cases"),
  contract: Schema.optionalKey(Contract),
  cases: Schema.Array(Case).check(Schema.isMinLength(1))
})

/** A decoded response-cases file. @since 0.1.0 */
export type ResponseCasesFile = typeof ResponseCasesFile.Type

/**
 * A check of a live case's pass criterion (`pass`): `{ "text": string | { "pattern" } }` (the
 * final text), `{ "file", "content": string | { "pattern" } }` or `{ "file", "absent": true }`,
 * `{ "observation": { "content"?, "is_error"? }, "seen": boolean }` (some observation seen, or
 * none), `{ "call": { "name", "input"? }, "made": boolean }` (a call whose input contains
 * `input`, made at least once, or never), `{ "stop": reason }`.
 *
 * @since 0.2.0
 */
export const LiveCheck: typeof Criteria.Check = Criteria.Check

/** A decoded check of a live case. @since 0.2.0 */
export type LiveCheck = Criteria.Check

/**
 * The pass rate a live case must reach over its trials (`threshold`): `minPassRate` (the rate
 * itself), `minLowerBound` (the 95% Wilson interval's lower bound must be above it), or both;
 * each from 0 to 1.
 *
 * @since 0.2.0
 */
export const LiveThreshold: typeof Criteria.Threshold = Criteria.Threshold

/** A decoded threshold. @since 0.2.0 */
export type LiveThreshold = Criteria.Threshold

/**
 * A `live` scenario file: a case run against a live model instead of a script, each trial in a
 * fresh environment (the conversation kind's: `files` or a `root` copied anew, scripted `tools`,
 * `mcp` servers, a `policy`), judged by a pass criterion written before running (`pass`, every
 * check must hold) and, over many trials, by its `threshold`.
 *
 * @since 0.2.0
 */
export const LiveFile: Schema.Struct<
  Pick<
    (typeof ConversationFile)["fields"],
    | "format"
    | "name"
    | "reserved"
    | "locale"
    | "system"
    | "files"
    | "root"
    | "tools"
    | "mcp"
    | "policy"
    | "untrustedOutput"
    | "commands"
    | "maxTurns"
  > & {
    readonly kind: Schema.Literal<"live">
    /** The prompt. */
    readonly user: Schema.String
    /** The pass criterion: checks that must all hold, written before running. */
    readonly pass: Schema.$Array<typeof Criteria.Check>
    /** The pass rate to reach over the trials (default: every trial passes). */
    readonly threshold: Schema.optionalKey<typeof Criteria.Threshold>
  }
> = Schema.Struct({
  ...Common,
  kind: Schema.Literal("live"),
  locale: ConversationFile.fields.locale,
  system: ConversationFile.fields.system,
  /** The prompt. */
  user: Schema.String,
  files: ConversationFile.fields.files,
  root: ConversationFile.fields.root,
  tools: ConversationFile.fields.tools,
  mcp: ConversationFile.fields.mcp,
  policy: ConversationFile.fields.policy,
  untrustedOutput: ConversationFile.fields.untrustedOutput,
  commands: ConversationFile.fields.commands,
  maxTurns: ConversationFile.fields.maxTurns,
  /** The pass criterion: checks that must all hold, written before running. */
  pass: Schema.Array(Criteria.Check),
  /** The pass rate to reach over the trials (default: every trial passes). */
  threshold: Schema.optionalKey(Criteria.Threshold)
})

/** A decoded live file. @since 0.2.0 */
export type LiveFile = typeof LiveFile.Type

/** The scenario kinds of format 1. @since 0.1.0 */
export const kinds = ["conversation", "plan", "response-cases", "live"] as const

/**
 * A scenario ready to run: the file's content plus its name (defaulting to the file name).
 *
 * @since 0.1.0
 */
export interface Conversation {
  /** `conversation`. */
  readonly kind: "conversation"
  /** The file's `name`, or its file name without `.json`. */
  readonly name: string
  /** Whether it is held out (`reserved: true` in the file). */
  readonly reserved: boolean
  /** The decoded file. */
  readonly file: ConversationFile
}

/**
 * A plan scenario ready to run.
 *
 * @since 0.1.0
 */
export interface Plan {
  /** `plan`. */
  readonly kind: "plan"
  /** The file's `name`, or its file name without `.json`. */
  readonly name: string
  /** Whether it is held out (`reserved: true` in the file). */
  readonly reserved: boolean
  /** The decoded file. */
  readonly file: PlanFile
}

/**
 * A response-cases scenario ready to run.
 *
 * @since 0.1.0
 */
export interface ResponseCases {
  /** `response-cases`. */
  readonly kind: "response-cases"
  /** The file's `name`, or its file name without `.json`. */
  readonly name: string
  /** Whether it is held out (`reserved: true` in the file). */
  readonly reserved: boolean
  /** The decoded file. */
  readonly file: ResponseCasesFile
}

/**
 * A live case ready to run against a live model (`LiveCase.trial`).
 *
 * @since 0.2.0
 */
export interface Live {
  /** `live`. */
  readonly kind: "live"
  /** The file's `name`, or its file name without `.json`. */
  readonly name: string
  /** Whether it is held out (`reserved: true` in the file). */
  readonly reserved: boolean
  /** The decoded file. */
  readonly file: LiveFile
}

/** Any scenario this version runs. @since 0.1.0 */
export type Scenario = Conversation | Plan | ResponseCases | Live

const InvalidScenarioBase: new (args: {
  readonly file: string
  readonly path: string
  readonly problem: string
}) => Cause.YieldableError & {
  readonly _tag: "InvalidScenario"
  /** The scenario file, as given. */
  readonly file: string
  /** The JSON path of the first bad field (`turns[2].reply[0].id`), or `(root)`. */
  readonly path: string
  /** What is wrong there (`missing`, `unexpected field`, `expected string, got 1`...). */
  readonly problem: string
} = Data.TaggedError("InvalidScenario")

/**
 * A file that is not a valid scenario. Nothing of it runs.
 *
 * @since 0.1.0
 */
export class InvalidScenario extends InvalidScenarioBase {
  /** `<file>: <path>: <problem>`. */
  override get message(): string {
    return `${this.file}: ${this.path}: ${this.problem}`
  }
}

/**
 * A JSON path as text: `turns[2].reply[0].id`.
 *
 * @since 0.1.0
 */
export const pathText: (path: ReadonlyArray<PropertyKey>) => string = JsonPath.text

const lowerFirst = (s: string): string => (s === "" ? s : s[0]?.toLowerCase() + s.slice(1))

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

/**
 * How scenario files (and traces) are decoded: the first problem, unexpected fields refused,
 * the rejected value reported.
 *
 * @since 0.1.0
 */
export const parseOptions = { errors: "first", onExcessProperty: "error", reportInput: true } as const

const decodeConversation = SchemaParser.decodeUnknownResult(ConversationFile)
const decodePlan = SchemaParser.decodeUnknownResult(PlanFile)
const decodeCases = SchemaParser.decodeUnknownResult(ResponseCasesFile)
const decodeScriptedResult = SchemaParser.decodeUnknownResult(ScriptedResult)
const decodeLive = SchemaParser.decodeUnknownResult(LiveFile)

/**
 * The first problem of a Schema issue: its JSON path as text and what is wrong, in the words
 * scenario files use (`missing`, `unexpected field`, `expected string, got 1`).
 *
 * @since 0.1.0
 */
export const firstProblem = (issue: SchemaIssue.Issue): { readonly path: string; readonly problem: string } => {
  const first = formatter(issue).issues[0]
  return {
    path: pathText((first?.path ?? []).map((s) => (typeof s === "object" ? s.key : s))),
    problem: lowerFirst(first?.message ?? "invalid")
  }
}

/** A check's problem in `file` as the error that says it, or `undefined`. */
const invalid = (file: string, problem: Checks.Problem | undefined): InvalidScenario | undefined =>
  problem === undefined ? undefined : new InvalidScenario({ file, ...problem })

const firstIssue = (file: string, issue: SchemaIssue.Issue): InvalidScenario =>
  new InvalidScenario({ file, ...firstProblem(issue) })

const checkTools = (file: string, scenario: Pick<ConversationFile, "tools">): InvalidScenario | undefined => {
  for (const [name, tool] of Object.entries(scenario.tools ?? {})) {
    if (tool.envelope === true) continue
    for (const [r, result] of tool.results.entries()) {
      const decoded = decodeScriptedResult(result, parseOptions)
      if (Result.isFailure(decoded)) {
        const { path, problem } = firstProblem(decoded.failure)
        const at = pathText(["tools", name, "results", r])
        const hint =
          Predicate.isObject(result) && "status" in result ? ` (a status envelope needs "envelope": true)` : ""
        return new InvalidScenario({
          file,
          path: path === "(root)" ? at : `${at}${path.startsWith("[") ? "" : "."}${path}`,
          problem: problem + hint
        })
      }
    }
  }
  return undefined
}

/** The environment's fields (a conversation's or a live case's) checked, then the kind's own (`own`). */
const checkEnvironment = (
  file: string,
  f: Pick<
    ConversationFile,
    "tools" | "root" | "files" | "mcp" | "policy" | "approvals" | "untrustedOutput" | "commands"
  >,
  own: () => Checks.Problem | undefined
): InvalidScenario | undefined =>
  checkTools(file, f) ??
  invalid(
    file,
    Checks.checkRoot(f) ?? Checks.checkMcp(f) ?? Checks.checkPermissions(f) ?? Checks.checkCommands(f) ?? own()
  )

const baseName = (file: string): string => {
  const last = file.split(/[\\/]/).pop() ?? file
  return last.endsWith(".json") ? last.slice(0, -5) : last
}

/** A decoded file, checked beyond its Schema, with its name and reserved flag. */
const checked = <F extends { readonly name?: string; readonly reserved?: boolean }>(
  file: string,
  decoded: Result.Result<F, SchemaIssue.Issue>,
  check: (decoded: F) => InvalidScenario | undefined
): Result.Result<{ readonly name: string; readonly reserved: boolean; readonly file: F }, InvalidScenario> => {
  if (Result.isFailure(decoded)) return Result.fail(firstIssue(file, decoded.failure))
  const invalid = check(decoded.success)
  if (invalid !== undefined) return Result.fail(invalid)
  return Result.succeed({
    name: decoded.success.name ?? baseName(file),
    reserved: decoded.success.reserved ?? false,
    file: decoded.success
  })
}

/**
 * Decodes a parsed JSON value as a scenario.
 *
 * @since 0.1.0
 */
export const decode = (file: string, json: unknown): Result.Result<Scenario, InvalidScenario> => {
  try {
    return decodeKind(file, json)
  } catch (thrown) {
    // A value whose fields throw when read (a getter, a proxy): no JSON text gives one.
    const why = thrown instanceof Error ? thrown.message : String(thrown)
    return Result.fail(new InvalidScenario({ file, path: "(root)", problem: `cannot be read (${why})` }))
  }
}

const decodeKind = (file: string, json: unknown): Result.Result<Scenario, InvalidScenario> => {
  if (!Predicate.isObject(json))
    return Result.fail(new InvalidScenario({ file, path: "(root)", problem: "expected an object" }))
  if (!("format" in json)) return Result.fail(new InvalidScenario({ file, path: "format", problem: "missing" }))
  if (json.format !== 1) {
    return Result.fail(
      new InvalidScenario({ file, path: "format", problem: `expected 1, got ${JSON.stringify(json.format)}` })
    )
  }
  if (!("kind" in json)) return Result.fail(new InvalidScenario({ file, path: "kind", problem: "missing" }))
  switch (json.kind) {
    case "conversation": {
      // A criterion, when there is one, is checked as a live case's is: each problem at its check.
      const wrong = Criteria.checkPass(json, parseOptions, firstProblem, false)
      if (wrong !== undefined) return Result.fail(new InvalidScenario({ file, ...wrong }))
      return Result.map(
        checked(file, decodeConversation(json, parseOptions), (f) =>
          checkEnvironment(file, f, () => Checks.checkCompaction(f) ?? Checks.checkScript(f))
        ),
        (s): Scenario => ({ kind: "conversation", ...s })
      )
    }
    case "plan":
      return Result.map(
        Result.flatMap(
          Result.mapError(PlanSteps.normalize(json), (problem) => new InvalidScenario({ file, ...problem })),
          (plan) => checked(file, decodePlan(plan, parseOptions), (f) => invalid(file, Checks.checkPlan(f)))
        ),
        (s): Scenario => ({ kind: "plan", ...s })
      )
    case "response-cases":
      return Result.map(
        checked(file, decodeCases(json, parseOptions), (f) => invalid(file, Checks.checkCases(f))),
        (s): Scenario => ({ kind: "response-cases", ...s })
      )
    case "live": {
      // The checks one by one first, so that a problem is named at its check, not as a union's.
      const wrong = Criteria.checkPass(json, parseOptions, firstProblem)
      if (wrong !== undefined) return Result.fail(new InvalidScenario({ file, ...wrong }))
      return Result.map(
        checked(file, decodeLive(json, parseOptions), (f) =>
          checkEnvironment(file, f, () => Criteria.checkThreshold(f.threshold))
        ),
        (s): Scenario => ({ kind: "live", ...s })
      )
    }
    default:
      return Result.fail(
        new InvalidScenario({
          file,
          path: "kind",
          problem: `expected one of ${kinds.map((k) => `"${k}"`).join(", ")}, got ${JSON.stringify(json.kind)}`
        })
      )
  }
}

/**
 * Parses and decodes a scenario file's text: strict JSON (`JsonText.parse`: no duplicate keys,
 * nesting at most `JsonText.maxDepth` deep, a leading byte order mark dropped), then `decode`.
 *
 * @since 0.1.0
 */
export const parse = (file: string, text: string): Result.Result<Scenario, InvalidScenario> => {
  const json = JsonText.parse(text)
  if (Result.isFailure(json)) {
    return Result.fail(new InvalidScenario({ file, path: pathText(json.failure.path), problem: json.failure.problem }))
  }
  return decode(file, json.success)
}
