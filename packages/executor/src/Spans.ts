/**
 * The spans a run opens on Effect's tracer (`Effect.withSpan`), named and attributed after the
 * OpenTelemetry GenAI semantic conventions: `invoke_agent` for a loop run, `chat {model}` for
 * each model call, `execute_tool {name}` for each tool call; what happens inside them (a
 * permission decision, a journal replay, a breaker trip, a retry, a compaction, a budget stop)
 * is a span event. Nothing here depends on OpenTelemetry: with Effect's default tracer the spans
 * stay in the process; @agent-harness/telemetry exports them over OTLP.
 *
 * Content (messages, arguments, results) is left out unless {@link Content} is `true`, as the
 * conventions' opt-in attributes ask.
 *
 * @since 0.3.0
 */
import { Context, Effect, References, Tracer } from "effect"

/**
 * Whether spans carry content: the messages sent and received (`gen_ai.input.messages`,
 * `gen_ai.output.messages`) and each call's arguments and result (`gen_ai.tool.call.arguments`,
 * `gen_ai.tool.call.result`). `false` unless set (`Effect.provideService(Spans.Content, true)`).
 *
 * @since 0.3.0
 */
export const Content: Context.Reference<boolean> = Context.Reference<boolean>("@agent-harness/executor/Spans/Content", {
  defaultValue: () => false
})

/**
 * The attribute names the spans use: the GenAI semantic conventions' (`gen_ai.*`, `error.type`)
 * and, where the conventions have no term, this toolkit's own under `agent_harness.*`.
 *
 * @since 0.3.0
 */
export const Attribute: {
  /** `gen_ai.operation.name`: `invoke_agent`, `chat`, `execute_tool`, `invoke_workflow`. */
  readonly operationName: "gen_ai.operation.name"
  /** `gen_ai.provider.name`: the model's provider (`anthropic`, `openai`...), when it says. */
  readonly providerName: "gen_ai.provider.name"
  /** `gen_ai.request.model`: the model asked for, when it says. */
  readonly requestModel: "gen_ai.request.model"
  /** `gen_ai.response.model`: the model that answered, when the provider says. */
  readonly responseModel: "gen_ai.response.model"
  /** `gen_ai.request.max_tokens`: the output cap of each call, when there is one. */
  readonly requestMaxTokens: "gen_ai.request.max_tokens"
  /** `gen_ai.usage.input_tokens`: the tokens sent, as the provider reported them. */
  readonly inputTokens: "gen_ai.usage.input_tokens"
  /** `gen_ai.usage.output_tokens`: the tokens written, as the provider reported them. */
  readonly outputTokens: "gen_ai.usage.output_tokens"
  /** `gen_ai.usage.reasoning.output_tokens`: the output tokens spent reasoning. */
  readonly reasoningTokens: "gen_ai.usage.reasoning.output_tokens"
  /** `gen_ai.usage.cache_read.input_tokens`: input tokens read from the provider's cache. */
  readonly cacheReadTokens: "gen_ai.usage.cache_read.input_tokens"
  /** `gen_ai.usage.cache_creation.input_tokens`: input tokens written to the provider's cache. */
  readonly cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens"
  /** `gen_ai.response.finish_reasons`: why the reply ended, as a one-element list. */
  readonly finishReasons: "gen_ai.response.finish_reasons"
  /** `gen_ai.input.messages` (content, opt-in): the history sent, as JSON. */
  readonly inputMessages: "gen_ai.input.messages"
  /** `gen_ai.output.messages` (content, opt-in): the reply, as JSON. */
  readonly outputMessages: "gen_ai.output.messages"
  /** `gen_ai.tool.name`: the tool a call names. */
  readonly toolName: "gen_ai.tool.name"
  /** `gen_ai.tool.call.id`: the call's tool_use id. */
  readonly toolCallId: "gen_ai.tool.call.id"
  /** `gen_ai.tool.type`: `function` (every tool here is a function tool). */
  readonly toolType: "gen_ai.tool.type"
  /** `gen_ai.tool.call.arguments` (content, opt-in): the arguments the model sent, as JSON. */
  readonly toolArguments: "gen_ai.tool.call.arguments"
  /** `gen_ai.tool.call.result` (content, opt-in): what the model is shown. */
  readonly toolResult: "gen_ai.tool.call.result"
  /** `gen_ai.agent.name`: the run's name, when it has one. */
  readonly agentName: "gen_ai.agent.name"
  /** `gen_ai.conversation.id`: the conversation's id, when it has one (a durable run's). */
  readonly conversationId: "gen_ai.conversation.id"
  /** `gen_ai.workflow.name`: a plan session's name. */
  readonly workflowName: "gen_ai.workflow.name"
  /** `error.type`: why a call or a run did not succeed ({@link ErrorType}). */
  readonly errorType: "error.type"
  /** `agent_harness.stop_reason`: why a loop run or a plan session stopped. */
  readonly stopReason: "agent_harness.stop_reason"
  /** `agent_harness.turns`: the model calls a run made. */
  readonly turns: "agent_harness.turns"
  /** `agent_harness.turn`: the model call a span belongs to, from 1. */
  readonly turn: "agent_harness.turn"
  /** `agent_harness.tool.original`: a replayed call's outcome when it ran. */
  readonly replayedOriginal: "agent_harness.tool.original"
  /** `agent_harness.plan.revision`: the plan a planner call made (0 the first, then each replan). */
  readonly planRevision: "agent_harness.plan.revision"
  /** `agent_harness.plan.steps`: how many steps that plan has. */
  readonly planSteps: "agent_harness.plan.steps"
  /** `agent_harness.step.id`: a plan step's id. */
  readonly stepId: "agent_harness.step.id"
  /** `agent_harness.step.outcome`: how a plan step ended (`succeeded`, `failed`, `cached`, `skipped`). */
  readonly stepOutcome: "agent_harness.step.outcome"
  /** `agent_harness.replans`: the replans a plan session made. */
  readonly replans: "agent_harness.replans"
} = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  workflowName: "gen_ai.workflow.name",
  errorType: "error.type",
  stopReason: "agent_harness.stop_reason",
  turns: "agent_harness.turns",
  turn: "agent_harness.turn",
  replayedOriginal: "agent_harness.tool.original",
  planRevision: "agent_harness.plan.revision",
  planSteps: "agent_harness.plan.steps",
  stepId: "agent_harness.step.id",
  stepOutcome: "agent_harness.step.outcome",
  replans: "agent_harness.replans"
}

/**
 * The `gen_ai.operation.name` values the spans use, as the conventions spell them.
 *
 * @since 0.3.0
 */
export const Operation: {
  /** A loop run. */
  readonly invokeAgent: "invoke_agent"
  /** One model call. */
  readonly chat: "chat"
  /** One tool call (or plan step). */
  readonly executeTool: "execute_tool"
  /** A plan session. */
  readonly invokeWorkflow: "invoke_workflow"
} = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
  invokeWorkflow: "invoke_workflow"
}

/**
 * The `error.type` of a tool call that did not succeed: `not_executed` (its arguments failed
 * the schema, or its tool is unknown), `refused` (a layer refused it: the run was stopped, a
 * breaker), `denied` (a permission gate denied it), `tool_error` (the tool failed), `defect`
 * (it threw or died), `timeout`, `interrupted`, `status_error` (an error envelope),
 * `outcome_unknown` (it may have run; a journal cannot tell), `replayed` (an error result given
 * again from a journal).
 *
 * @since 0.3.0
 */
export type ErrorType =
  | "not_executed"
  | "refused"
  | "denied"
  | "tool_error"
  | "defect"
  | "timeout"
  | "interrupted"
  | "status_error"
  | "outcome_unknown"
  | "replayed"

/**
 * The span event names, under `agent_harness.*`: what happened inside a span.
 *
 * @since 0.3.0
 */
export const Event: {
  /** A permission gate's decision on a call (`permission.decided` in the trace). */
  readonly permission: "agent_harness.permission.decided"
  /** A call or a reply given again from a journal. */
  readonly replayed: "agent_harness.journal.replayed"
  /** The repeated-call breaker tripped. */
  readonly breakerTripped: "agent_harness.breaker.tripped"
  /** A provider call retried. */
  readonly retried: "agent_harness.model.retried"
  /** The history compacted before a model call. */
  readonly compacted: "agent_harness.context.compacted"
  /** The history could not be made to fit the context window. */
  readonly contextRefused: "agent_harness.context.refused"
  /** A model call refused by the run's token or money budget. */
  readonly spendRefused: "agent_harness.spend.refused"
  /** A plan revised (`plan.diff`). */
  readonly planDiff: "agent_harness.plan.diff"
} = {
  permission: "agent_harness.permission.decided",
  replayed: "agent_harness.journal.replayed",
  breakerTripped: "agent_harness.breaker.tripped",
  retried: "agent_harness.model.retried",
  compacted: "agent_harness.context.compacted",
  contextRefused: "agent_harness.context.refused",
  spendRefused: "agent_harness.spend.refused",
  planDiff: "agent_harness.plan.diff"
}

/**
 * Whether a fiber's spans are read: tracing is enabled (`References.TracerEnabled`) and a tracer
 * other than Effect's in-process default is installed (an OTLP exporter's, a test's). The loop
 * opens its spans only then, so a run without telemetry pays nothing per call.
 *
 * @since 0.3.0
 */
export const isTracedBy = (fiber: { readonly getRef: <A>(ref: Context.Reference<A>) => A }): boolean =>
  fiber.getRef(References.TracerEnabled) && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/**
 * Whether the current fiber's spans are read ({@link isTracedBy}): a package that opens spans of
 * its own (the planner's sessions) asks this first.
 *
 * @since 0.3.0
 */
export const traced: Effect.Effect<boolean> = Effect.withFiber((fiber) => Effect.succeed(isTracedBy(fiber)))
