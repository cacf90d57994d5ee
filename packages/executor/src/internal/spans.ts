/**
 * How the loop opens its spans (`Spans`): only when someone reads them — tracing enabled and a
 * tracer other than Effect's in-process default installed (an OTLP exporter's, a test's) — so a
 * run without telemetry pays nothing per call. The attributes of a model call and of a tool call,
 * a trace event as a span event, and the `error.type` of an outcome.
 *
 * @internal
 */
import { Render } from "@agent-harness/tool-schema"
import { type Context, Effect, Exit, type Tracer } from "effect"
import type * as Message from "../Message.ts"
import type * as Model from "../Model.ts"
import type * as Outcome from "../Outcome.ts"
import { Attribute, Content, type ErrorType, Event, isTracedBy, Operation } from "../Spans.ts"
import type * as Trace from "../Trace.ts"

/** What a fiber's context says about spans: whether to open them, and with content. */
export interface Spanning {
  /** Open spans: tracing is enabled and a tracer other than Effect's default is installed. */
  readonly traced: boolean
  /** Put content (messages, arguments, results) on them (`Spans.Content`). */
  readonly content: boolean
}

/** Reads `Spanning` from a fiber's references. */
export const spanningOf = (fiber: { readonly getRef: <A>(ref: Context.Reference<A>) => A }): Spanning => {
  const traced = isTracedBy(fiber)
  return { traced, content: traced && fiber.getRef(Content) }
}

/** The current fiber's `Spanning`. */
export const spanning: Effect.Effect<Spanning> = Effect.withFiber((fiber) => Effect.succeed(spanningOf(fiber)))

/** JSON of a value for a content attribute; a value JSON cannot hold is rendered instead. */
export const json = (value: unknown): string => {
  try {
    const out = JSON.stringify(value)
    return out === undefined ? Render.brief(value) : out
  } catch (thrown) {
    return `unencodable: ${Render.thrown(thrown)}`
  }
}

/** The `error.type` of an outcome, or `undefined` for a success (a replayed success included). */
export const errorTypeOf = (outcome: Outcome.Outcome): ErrorType | undefined => {
  switch (outcome._tag) {
    case "Succeeded":
      return undefined
    case "NotExecuted":
      return "not_executed"
    case "Refused":
      return outcome.denied === true ? "denied" : "refused"
    case "Replayed":
      return outcome.isError ? "replayed" : undefined
    case "Failed":
      switch (outcome.failure._tag) {
        case "ToolError":
          return "tool_error"
        case "Defect":
          return "defect"
        case "TimedOut":
          return "timeout"
        case "Interrupted":
          return "interrupted"
        case "StatusError":
          return "status_error"
        case "OutcomeUnknown":
          return "outcome_unknown"
      }
  }
}

const errorTexts: Readonly<Record<ErrorType, string>> = {
  not_executed: "not executed",
  refused: "refused",
  denied: "denied",
  tool_error: "the tool failed",
  defect: "the tool threw or died",
  timeout: "timed out",
  interrupted: "interrupted",
  status_error: "the tool answered an error envelope",
  outcome_unknown: "outcome unknown",
  replayed: "an error result replayed from the journal"
}

/**
 * What a tool span ends with when its call did not succeed, so its status is an error: named by
 * its `error.type`, with no stack of ours (an exporter's `exception` event then says
 * `exception.type` = the `error.type` and `exception.message` = `<tool>: <what happened>`,
 * never the call's content).
 */
class CallFailed extends Error {
  readonly outcome: Outcome.Outcome
  constructor(outcome: Outcome.Outcome, errorType: ErrorType, message: string) {
    super(message)
    this.name = errorType
    this.outcome = outcome
    this.stack = `${errorType}: ${message}`
  }
}

/** The name of a call's span: `execute_tool {name}`. */
export const toolSpanName = (call: { readonly name: string }): string => `${Operation.executeTool} ${call.name}`

/** The options a call's span opens with: its tool, id and type; with content, its arguments. */
export const toolSpanOptions = (
  call: { readonly id: string; readonly name: string; readonly input: unknown },
  content: boolean
): Tracer.SpanOptionsNoTrace => ({
  kind: "internal",
  attributes: {
    [Attribute.operationName]: Operation.executeTool,
    [Attribute.toolName]: call.name,
    [Attribute.toolCallId]: call.id,
    [Attribute.toolType]: "function",
    ...(content ? { [Attribute.toolArguments]: argumentsOf(call) } : {})
  }
})

/**
 * Ends a call's span with what the call came to: with content, what the model is shown; a
 * replayed call's original outcome and a `journal.replayed` event; its `error.type` and an
 * error status when it did not succeed.
 */
export const endToolSpan = (
  span: Tracer.Span,
  name: string,
  outcome: Outcome.Outcome,
  content: boolean,
  now: bigint
): void => {
  if (content) span.attribute(Attribute.toolResult, outcome.content)
  if (outcome._tag === "Replayed") {
    span.attribute(Attribute.replayedOriginal, outcome.original)
    span.event(Event.replayed, now, { [Attribute.replayedOriginal]: outcome.original })
  }
  const error = errorTypeOf(outcome)
  if (error === undefined) {
    span.end(now, Exit.void)
    return
  }
  span.attribute(Attribute.errorType, error)
  span.end(now, Exit.fail(new CallFailed(outcome, error, `${name}: ${errorTexts[error]}`)))
}

/**
 * Runs one call's execution inside its `execute_tool {name}` span (`toolSpanOptions`), the
 * span the parent of any the call opens, ended by `endToolSpan` (or with the interruption).
 */
export const toolCall = <R>(
  call: { readonly id: string; readonly name: string; readonly input: unknown },
  content: boolean,
  run: Effect.Effect<Outcome.Outcome, never, R>
): Effect.Effect<Outcome.Outcome, never, R> =>
  Effect.flatMap(Effect.makeSpan(toolSpanName(call), toolSpanOptions(call, content)), (span) =>
    Effect.withParentSpan(run, span, { captureStackTrace: false }).pipe(
      Effect.onExit((exit) =>
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = clock.currentTimeNanosUnsafe()
            if (exit._tag === "Success") endToolSpan(span, call.name, exit.value, content, now)
            else span.end(now, exit)
          })
        )
      )
    )
  ) as Effect.Effect<Outcome.Outcome, never, R>

/** A call's arguments as JSON, for the content attribute: an input that cannot be read says so. */
const argumentsOf = (call: { readonly input: unknown }): string => {
  try {
    return json(call.input)
  } catch (thrown) {
    return `unreadable: ${Render.thrown(thrown)}`
  }
}

/**
 * Runs `body` inside a new span (`Effect.withSpan`, with the span in hand to annotate as the
 * body learns things): the span is the parent of every span the body opens.
 */
export const inSpan = <A, E, R>(
  name: string,
  options: Tracer.SpanOptionsNoTrace,
  body: (span: Tracer.Span) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.useSpan(
    name,
    options,
    (span) => Effect.withParentSpan(body(span), span, { captureStackTrace: false }) as Effect.Effect<A, E, R>
  )

/** The attributes a model call's span starts with. */
export const chatAttributes = (
  model: Model.Shape,
  turn: number | undefined,
  maxOutputTokens: number | undefined
): Record<string, unknown> => ({
  [Attribute.operationName]: Operation.chat,
  ...(turn === undefined ? {} : { [Attribute.turn]: turn }),
  ...(model.provider === undefined ? {} : { [Attribute.providerName]: model.provider }),
  ...(model.model === undefined ? {} : { [Attribute.requestModel]: model.model }),
  ...(maxOutputTokens === undefined ? {} : { [Attribute.requestMaxTokens]: maxOutputTokens })
})

/** The span name of a model call: `chat {model}`, or `chat` when the model does not say. */
export const chatName = (model: Model.Shape): string =>
  model.model === undefined ? Operation.chat : `${Operation.chat} ${model.model}`

/** The attributes a model call's span ends with: the response model, usage and finish reason. */
export const replyAttributes = (about: Omit<Model.Response, "content">): Record<string, unknown> => {
  const usage = about.usage
  return {
    ...(about.model === undefined ? {} : { [Attribute.responseModel]: about.model }),
    ...(about.finishReason === undefined ? {} : { [Attribute.finishReasons]: [about.finishReason] }),
    ...(usage?.inputTokens === undefined ? {} : { [Attribute.inputTokens]: usage.inputTokens }),
    ...(usage?.outputTokens === undefined ? {} : { [Attribute.outputTokens]: usage.outputTokens }),
    ...(usage?.reasoningTokens === undefined ? {} : { [Attribute.reasoningTokens]: usage.reasoningTokens }),
    ...(usage?.cacheReadTokens === undefined ? {} : { [Attribute.cacheReadTokens]: usage.cacheReadTokens }),
    ...(usage?.cacheWriteTokens === undefined ? {} : { [Attribute.cacheWriteTokens]: usage.cacheWriteTokens })
  }
}

/** Sets each attribute on a span. */
export const annotate = (span: Tracer.Span, attributes: Record<string, unknown>): void => {
  for (const [key, value] of Object.entries(attributes)) span.attribute(key, value)
}

/** A history as the content attribute carries it (`gen_ai.input.messages`). */
export const messagesJson = (messages: ReadonlyArray<Message.Message>): string => json(messages)

/** The trace events that are span events, by the trace's type. */
const spanEvents: Readonly<Record<string, string>> = {
  "permission.decided": Event.permission,
  "breaker.tripped": Event.breakerTripped,
  "model.retried": Event.retried,
  "context.compacted": Event.compacted,
  "context.refused": Event.contextRefused,
  "spend.refused": Event.spendRefused,
  "plan.diff": Event.planDiff
}

/** Fields never copied onto a span event: content, or lists. */
const contentFields: ReadonlySet<string> = new Set(["type", "messages", "reply", "text", "input", "content"])

/**
 * The span event of a trace event, when it is one (`spanEvents`): its name and its plain fields
 * (strings, numbers, booleans) as attributes under `agent_harness.`.
 */
export const spanEventOf = (
  entry: Trace.Entry
): { readonly name: string; readonly attributes: Record<string, unknown> } | undefined => {
  const name = spanEvents[entry.type]
  if (name === undefined) return undefined
  const attributes: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(entry)) {
    if (contentFields.has(key)) continue
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      attributes[`agent_harness.${key}`] = value
    }
  }
  return { name, attributes }
}

/**
 * A trace that also puts its span events (`spanEventOf`) on the current span, then records on
 * `trace` as it would.
 */
export const withSpanEvents = (
  trace: Trace.Trace,
  recordOn: (trace: Trace.Trace, entry: Trace.Entry) => Effect.Effect<void>
): Trace.Trace => ({
  record: (entry) => {
    let event: ReturnType<typeof spanEventOf>
    try {
      event = spanEventOf(entry)
    } catch {
      event = undefined
    }
    if (event === undefined) return recordOn(trace, entry)
    const { name, attributes } = event
    return Effect.andThen(
      Effect.catchCause(
        Effect.clockWith((clock) =>
          Effect.flatMap(Effect.currentSpan, (span) =>
            Effect.sync(() => span.event(name, clock.currentTimeNanosUnsafe(), attributes))
          )
        ),
        () => Effect.void
      ),
      recordOn(trace, entry)
    )
  }
})

/**
 * Runs one model call inside its `chat {model}` span (kind client): the provider, model, output
 * cap and turn; when it answers, the response model, usage and finish reason; when it fails, its
 * `error.type` (the failure's tag) and an error status; with content, the history sent and the
 * reply.
 */
export const chat = <A extends Asked, E extends { readonly reason: { readonly _tag: string } }, R>(
  model: Model.Shape,
  turn: number | undefined,
  maxOutputTokens: number | undefined,
  messages: ReadonlyArray<Message.Message>,
  content: boolean,
  asking: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  inSpan(
    chatName(model),
    {
      kind: "client",
      attributes: {
        ...chatAttributes(model, turn, maxOutputTokens),
        ...(content ? { [Attribute.inputMessages]: messagesJson(messages) } : {})
      }
    },
    (span) =>
      asking.pipe(
        Effect.tap((asked) =>
          Effect.sync(() => {
            annotate(span, replyAttributes(asked.about))
            if (content) span.attribute(Attribute.outputMessages, json(asked.reply))
          })
        ),
        Effect.tapError((error) => Effect.sync(() => span.attribute(Attribute.errorType, error.reason._tag)))
      )
  )

/** What a model call answered, as the span reads it. */
export interface Asked {
  /** The reply's blocks. */
  readonly reply: ReadonlyArray<Message.ReplyBlock>
  /** Its usage, finish reason and model. */
  readonly about: Omit<Model.Response, "content">
}

/** The usage of a run's turns, added up, as span attributes (only the counts some turn reported). */
export const runUsage = (
  turns: ReadonlyArray<{ readonly usage?: Model.Usage | undefined }>
): Record<string, unknown> => {
  let input: number | undefined
  let output: number | undefined
  for (const turn of turns) {
    const usage = turn.usage
    if (usage?.inputTokens !== undefined) input = (input ?? 0) + usage.inputTokens
    if (usage?.outputTokens !== undefined) output = (output ?? 0) + usage.outputTokens
  }
  return {
    ...(input === undefined ? {} : { [Attribute.inputTokens]: input }),
    ...(output === undefined ? {} : { [Attribute.outputTokens]: output })
  }
}

/** The attributes a loop run's `invoke_agent` span starts with. */
export const agentAttributes = (model: Model.Shape): Record<string, unknown> => ({
  [Attribute.operationName]: Operation.invokeAgent,
  ...(model.provider === undefined ? {} : { [Attribute.providerName]: model.provider }),
  ...(model.model === undefined ? {} : { [Attribute.requestModel]: model.model })
})

/**
 * One call through `Model.ask` inside its `chat {model}` span, as the loop's calls are (`chat`):
 * the model-backed planner's and the summarizer's calls.
 */
export const chatResponse = <R>(
  model: Model.Shape,
  request: Model.Request,
  content: boolean,
  asking: Effect.Effect<Model.Response, Model.Failure, R>
): Effect.Effect<Model.Response, Model.Failure, R> =>
  Effect.map(
    chat(
      model,
      typeof request.turn === "number" ? request.turn : undefined,
      model.maxOutputTokens,
      request.messages,
      content,
      Effect.mapError(
        Effect.map(asking, (response) => {
          const { content: reply, ...about } = response
          return { reply, about, response }
        }),
        (reason) => ({ reason })
      )
    ),
    (asked) => asked.response
  ).pipe(Effect.mapError((failed) => failed.reason))
