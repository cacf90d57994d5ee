/**
 * A model-backed planner: it asks the executor's `Model` service (the one the loop uses: an
 * AI SDK provider, an effect/ai `LanguageModel` through ai-sdk's `LanguageModelAdapter`, the
 * scripted model, your own) for the plan, and reads it from the reply's text. The prompt states
 * the goal, the tools (name, description, JSON Schema of the parameters), the steps executed so
 * far with their results or errors, and the last error; the model answers `{ "steps": [...] }`,
 * the plan from the cursor.
 *
 * An answer that is not a plan is a replannable failure (`InvalidPlan`, whose reason the
 * session feeds back as the next `lastError`): no text, malformed JSON, the wrong shape,
 * duplicate step ids, or a tool the toolset does not have. Any other model failure (rate limit,
 * network, authentication...) is the planner's own error, the model's `Model.Failure` as it
 * came, and ends the session's Effect.
 *
 * Given the session's spend (`Request.spend`), each call first reserves its worst case (the
 * prompt's bound, `Spending.requestTokens`, and the output cap at the dearest prices) and is
 * not made when that does not fit (`Spend.Exhausted`: the session ends with `token_budget` or
 * `cost_budget`); the reply's reported usage settles it, and a call that failed or reported no
 * usage spends its whole reservation. A limited spend needs an output cap: `maxOutputTokens`, or
 * the model's own (`OutputCapMissing` otherwise, before any call).
 *
 * @since 0.1.0
 */
import { Spend, SpendMeter } from "@agent-harness/budgets"
import { Message, Model, Spending } from "@agent-harness/executor"
import { JsonSchema, type Tool, Toolset } from "@agent-harness/tool-schema"
import { type Cause, Data, Effect, Schema } from "effect"
import { InvalidPlan, type Planner, type Request } from "./Planner.ts"
import * as Step from "./Step.ts"

/**
 * A step as the model writes it: a step without result or error.
 *
 * @since 0.1.0
 */
export const PlannedStep: Schema.Struct<{
  readonly id: Schema.Int
  readonly tool_name: Schema.String
  readonly args: Schema.$Record<Schema.String, Schema.Unknown>
  readonly expected_outcome: Schema.String
  readonly group: Schema.optionalKey<Schema.String>
}> = Schema.Struct({
  id: Step.Step.fields.id,
  tool_name: Step.Step.fields.tool_name,
  args: Step.Step.fields.args,
  expected_outcome: Step.Step.fields.expected_outcome,
  group: Step.Step.fields.group
})

/**
 * The structured output the model is asked for: `{ "steps": [PlannedStep...] }`.
 *
 * @since 0.1.0
 */
export const Answer: Schema.Struct<{ readonly steps: Schema.$Array<typeof PlannedStep> }> = Schema.Struct({
  steps: Schema.Array(PlannedStep)
})

/** The structured output the model is asked for. @since 0.1.0 */
export type Answer = typeof Answer.Type

/**
 * Options of a model planner.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The tools a plan may use; a step naming another tool makes the plan invalid. */
  readonly toolset: Toolset.Toolset<Tool.Any>
  /** Extra instructions, appended to the planner's system message. */
  readonly instructions?: string | undefined
  /**
   * The most output tokens a plan may take: the output side of each call's worst case under a
   * limited spend (default: the model's own `maxOutputTokens`).
   */
  readonly maxOutputTokens?: number | undefined
}

const OutputCapMissingBase: new (args: {
  readonly given: unknown
}) => Cause.YieldableError & {
  readonly _tag: "OutputCapMissing"
  /** The cap found (none, or not a whole number ≥ 1). */
  readonly given: unknown
} = Data.TaggedError("OutputCapMissing")

/**
 * The session's spend is limited but the planner knows no output cap to reserve for (neither
 * `Options.maxOutputTokens` nor the model's `maxOutputTokens`, or one that is not a whole
 * number ≥ 1): no call is made. A `Model.Failure`, so it ends the session's Effect.
 *
 * @since 0.2.0
 */
export class OutputCapMissing extends OutputCapMissingBase {
  /** What is missing and where to give it. */
  override get message(): string {
    return `ModelPlanner: the session's spend is limited, so each plan call needs an output cap to reserve for: give ModelPlanner.make({ maxOutputTokens }) or a model with maxOutputTokens (got ${String(this.given)})`
  }
}

/**
 * The planner's system message (before any extra instructions).
 *
 * @since 0.1.0
 */
export const systemPrompt: string = [
  "You are the planner of a plan-and-execute agent.",
  "You do not call tools yourself: you write a plan, an ordered list of steps, and an executor runs each step with one tool call.",
  'Answer with one JSON object and nothing else: {"steps":[{"id":1,"tool_name":"...","args":{...},"expected_outcome":"..."}]}.',
  "- id: an integer, unique within the plan, increasing along the plan.",
  "- tool_name: one of the available tools, exactly as named; args: an object matching that tool's parameters.",
  "- expected_outcome: one short sentence, what the step should achieve.",
  "- group (optional): consecutive steps with the same group run concurrently; use it only for independent steps.",
  "The plan starts at the cursor: list the steps still to run. A step that already succeeded, listed again with the same id, tool and args, is not run again; a read-only one is, if a step that changes things has run since (it reads the new state). To do an action again, give it a new id.",
  "After a failure, read the last error and route around it. An empty list of steps means you have nothing to offer and ends the session."
].join("\n")

const renderJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const renderTool = (tool: Tool.Any): string =>
  [`- ${tool.name}: ${tool.description}`, `  parameters: ${renderJson(JsonSchema.parameters(tool))}`].join("\n")

const renderStep = (step: Step.Step): string => {
  const head = `- step ${step.id}: ${step.tool_name} ${renderJson(step.args)} (expected: ${step.expected_outcome})`
  if (step.error !== undefined && step.error !== null) return `${head}\n  failed: ${step.error}`
  return `${head}\n  succeeded: ${step.result ?? ""}`
}

/**
 * The text of the user message: goal, tools, history and last error, then the request for the
 * plan from the cursor.
 *
 * @since 0.1.0
 */
export const requestText = (toolset: Toolset.Toolset<Tool.Any>, request: Request): string =>
  [
    `Goal: ${request.goal}`,
    "",
    "Available tools:",
    toolset.tools.length === 0 ? "(none)" : toolset.tools.map(renderTool).join("\n"),
    "",
    "Steps executed so far, in order:",
    request.history.length === 0 ? "(none yet)" : request.history.map(renderStep).join("\n"),
    "",
    request.lastError === null
      ? "Last error: none, this is the first plan."
      : `Last error (the plan failed here; replan from the cursor): ${request.lastError}`,
    "",
    request.lastError === null ? "Write the plan for the goal." : "Write the new plan from the cursor."
  ].join("\n")

/**
 * The messages a model planner sends: a system message (the planner's rules and any extra
 * instructions) and a user message ({@link requestText}).
 *
 * @since 0.1.0
 */
export const prompt = (options: Options, request: Request): ReadonlyArray<Message.Message> => [
  Message.system(
    options.instructions === undefined || options.instructions === ""
      ? systemPrompt
      : `${systemPrompt}\n\n${options.instructions}`
  ),
  Message.user([Message.text(requestText(options.toolset, request))])
]

/**
 * Checks a decoded plan: unique step ids, and only tools of the toolset. Gives the plan, or
 * `InvalidPlan` with the first problem found.
 *
 * @since 0.1.0
 */
export const validate = (
  toolset: Toolset.Toolset<Tool.Any>,
  plan: Step.Plan
): Effect.Effect<Step.Plan, InvalidPlan> => {
  const duplicate = Step.problem(plan)
  if (duplicate !== undefined) return Effect.fail(new InvalidPlan({ reason: duplicate }))
  const names = toolset.tools.map((tool) => tool.name)
  for (const step of plan) {
    if (!names.includes(step.tool_name)) {
      const available = names.length === 0 ? "none" : names.map((name) => `'${name}'`).join(", ")
      return Effect.fail(
        new InvalidPlan({ reason: `step ${step.id} uses unknown tool '${step.tool_name}' (available: ${available})` })
      )
    }
  }
  return Effect.succeed(plan)
}

/** A model failure that carries a tagged reason, as effect/ai's `AiError` does. */
interface WithReason extends Model.Failure {
  readonly reason: {
    readonly _tag: string
    readonly description?: unknown
    readonly responseText?: unknown
  }
}

const answerReasons: ReadonlySet<string> = new Set(["StructuredOutputError", "InvalidOutputError"])

/**
 * Whether a model failure is about the answer itself (an effect/ai `AiError` whose reason is
 * `StructuredOutputError` or `InvalidOutputError`: the output did not decode), which makes it an
 * invalid plan rather than a provider failure.
 *
 * @since 0.1.0
 */
export const isAnswerError = (error: Model.Failure): boolean => {
  try {
    const reason = (error as Partial<WithReason>).reason
    return error._tag === "AiError" && typeof reason === "object" && reason !== null && answerReasons.has(reason._tag)
  } catch {
    return false
  }
}

/** One line: schema messages put the path on a line of its own. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, " ").trim()

const quoted = (text: string): string => {
  const line = oneLine(text)
  return line.length > 200 ? `${line.slice(0, 200)}...` : line
}

/** The answer did not decode as a plan: what is wrong, and the answer (when there was one). */
const notAPlan = (description: string, answer: string): InvalidPlan =>
  new InvalidPlan({
    reason:
      answer === ""
        ? `the answer is not a plan: ${oneLine(description)}`
        : `the answer is not a plan: ${oneLine(description)} (answer: ${quoted(answer)})`
  })

/** A model failure about the answer (`isAnswerError`) as an invalid plan. */
const invalidAnswer = (error: Model.Failure): InvalidPlan => {
  const { description, responseText } = (error as WithReason).reason
  return notAPlan(
    typeof description === "string" ? description : error.message,
    typeof responseText === "string" ? responseText : ""
  )
}

/** The text of a reply: its text blocks, joined; nothing for a reply that is not a list of blocks. */
const textOf = (response: unknown): string => {
  try {
    const content = typeof response === "object" && response !== null ? (response as Model.Response).content : undefined
    if (!Array.isArray(content)) return ""
    let text = ""
    for (const block of content as ReadonlyArray<unknown>) {
      if (typeof block !== "object" || block === null) continue
      const { type, text: part } = block as { readonly type?: unknown; readonly text?: unknown }
      if (type === "text" && typeof part === "string") text += part
    }
    return text
  } catch {
    return ""
  }
}

const decodeAnswer = Schema.decodeUnknownEffect(Schema.fromJsonString(Answer))

/** The plan in a reply's text, or `InvalidPlan` saying why there is none. */
const readAnswer = (text: string): Effect.Effect<Answer, InvalidPlan> =>
  text === ""
    ? Effect.fail(notAPlan("No text content in response", ""))
    : Effect.mapError(decodeAnswer(text), (error) => notAPlan(error.message, text))

/** The planner asks for a plan, not for tool calls: the model is offered no tool. */
const noTools: Toolset.Toolset<Tool.Any> = Toolset.make()

/**
 * A planner backed by the executor's `Model` service, the same one the loop uses: it sends
 * {@link prompt} (no tools offered) through `respond` and reads the plan from the reply's
 * text. It fails with `InvalidPlan` when the answer is not a valid plan, and with the model's
 * `Model.Failure` for any other model failure.
 *
 * @example
 * ```ts
 * import { ModelPlanner, Session } from "@agent-harness/planner"
 * import { Tool, Toolset } from "@agent-harness/tool-schema"
 * import { Schema } from "effect"
 *
 * const Search = Tool.make("search", {
 *   description: "Searches the web",
 *   parameters: Schema.Struct({ q: Schema.String }),
 *   run: ({ q }) => `results for ${q}`
 * })
 * const toolset = Toolset.make(Search)
 * // Effect<SessionResult, Model.Failure, Model.Model>: provide a Model layer to run it
 * // (AiSdkModel.layer, ScriptedModel.layer, LanguageModelAdapter.layer over effect/ai...)
 * const session = Session.run({
 *   goal: "Find the release date",
 *   planner: ModelPlanner.make({ toolset }),
 *   toolset,
 *   maxSteps: 10,
 *   maxReplans: 2
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make =
  (options: Options): Planner<Model.Failure | Spend.Exhausted, Model.Model> =>
  (request) =>
    Effect.flatMap(Effect.service(Model.Model), (model) => {
      const messages = prompt(options, request)
      const asked = Model.ask(model, { messages, toolset: noTools })
      return Effect.flatMap(metered(request.spend, options, model, messages, asked), (response) =>
        readAnswer(textOf(response)).pipe(Effect.flatMap((answer) => validate(options.toolset, answer.steps)))
      ).pipe(Effect.catchIf(isAnswerError, (error) => Effect.fail(invalidAnswer(error))))
    })

/** The reply's reported usage, when it is a reply with usage. */
const usageOf = (response: Model.Response): Model.Response["usage"] => {
  try {
    return typeof response === "object" && response !== null ? response.usage : undefined
  } catch {
    return undefined
  }
}

/** The call inside a reservation of the spend, when the request has a limited one. */
const metered = (
  spend: SpendMeter.SpendMeter | undefined,
  options: Options,
  model: Model.Shape,
  messages: ReadonlyArray<Message.Message>,
  asked: Effect.Effect<Model.Response, Model.Failure>
): Effect.Effect<Model.Response, Model.Failure | Spend.Exhausted> =>
  spend === undefined
    ? asked
    : Effect.flatMap(spend.current, (now) => {
        if (!Spend.isLimited(now)) {
          return SpendMeter.metered(spend, Spend.zero, asked, (response) => usageOf(response) ?? {})
        }
        const cap = options.maxOutputTokens ?? model.maxOutputTokens
        if (cap === undefined || !Number.isSafeInteger(cap) || cap < 1) {
          return Effect.fail(new OutputCapMissing({ given: cap }))
        }
        const worst = Spend.worstCase(now, Spending.requestTokens(messages, noTools), cap)
        return SpendMeter.metered(spend, worst, asked, usageOf)
      })
