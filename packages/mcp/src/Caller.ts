/**
 * Asking the MCP client that called a tool: its model (`sampling/createMessage`) or its user
 * (`elicitation/create`). `Serve` provides a `Caller` to every call it answers, bound to that
 * call (over Streamable HTTP the request travels on the call's own event stream); anywhere else
 * (a tool run by the loop, or by a mount) the default `Caller` fails with `NoClient`, so a tool
 * that asks still runs everywhere and says why it could not ask.
 *
 * Each failure is a `CallerError` naming the method and what went wrong (`reason`): no client,
 * a capability the client did not declare, the client refusing, the user declining or
 * cancelling, no answer in time, or an answer that is not a valid result. A tool that does not
 * catch it fails with its message, which the executor makes an `is_error` observation.
 *
 * @example
 * ```ts
 * import { Caller } from "@agent-harness/mcp"
 * import { Tool } from "@agent-harness/tool-schema"
 * import { Effect, Schema } from "effect"
 *
 * const Summarize = Tool.make("summarize", {
 *   description: "Summarizes a text with the client's model",
 *   parameters: Schema.Struct({ text: Schema.String }),
 *   run: ({ text }) =>
 *     Caller.sample({
 *       messages: [{ role: "user", content: { type: "text", text: `Summarize:\n${text}` } }],
 *       maxTokens: 200
 *     }).pipe(Effect.map(Caller.text))
 * })
 * ```
 *
 * @since 0.1.0
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CreateMessageRequestParams,
  CreateMessageResultWithTools,
  ElicitRequestFormParams,
  ElicitResult
} from "@modelcontextprotocol/sdk/types.js"
import { type Cause, Context, type Duration, Effect, Schema } from "effect"

/**
 * What a `sampling/createMessage` request carries: the messages, `maxTokens`, and optionally a
 * system prompt, model preferences, tools (the client must declare `sampling.tools`).
 *
 * @since 0.1.0
 */
export type SampleParams = CreateMessageRequestParams

/**
 * The client's sampled message: the model's name, its role, its content (one block, or several
 * when tools were offered), why it stopped.
 *
 * @since 0.1.0
 */
export type Sampled = CreateMessageResultWithTools

/**
 * What a form `elicitation/create` request carries: the message for the user and the
 * `requestedSchema` (flat properties of strings, numbers, booleans and enums, with defaults),
 * sent as given.
 *
 * @since 0.1.0
 */
export type ElicitParams = ElicitRequestFormParams

/**
 * What the user submitted when they accepted: one value per field of the requested schema.
 *
 * @since 0.1.0
 */
export type Elicited = NonNullable<ElicitResult["content"]>

/**
 * Options of one request to the client.
 *
 * @since 0.1.0
 */
export interface AskOptions {
  /** Give up after this long without an answer (default 60 seconds): a `TimedOut` failure. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * Why a request to the client failed: `NoClient` (the tool is not served over MCP),
 * `NotDeclared` (the client did not declare the capability), `Refused` (the client answered an
 * error), `Declined` / `Cancelled` (the user declined or dismissed an elicitation), `TimedOut`,
 * `InvalidAnswer` (the answer is not a valid result, or not what was asked for),
 * `InvalidRequest` (the tool's own request is not valid: nothing was sent), `Failed` (the request
 * could not be sent, or the connection closed).
 *
 * @since 0.1.0
 */
export type Reason =
  | "NoClient"
  | "NotDeclared"
  | "Refused"
  | "Declined"
  | "Cancelled"
  | "TimedOut"
  | "InvalidAnswer"
  | "InvalidRequest"
  | "Failed"

const reasonList = [
  "NoClient",
  "NotDeclared",
  "Refused",
  "Declined",
  "Cancelled",
  "TimedOut",
  "InvalidAnswer",
  "InvalidRequest",
  "Failed"
] as const satisfies ReadonlyArray<Reason>

const reasons: Schema.Literals<typeof reasonList> = Schema.Literals(reasonList)

const CallerErrorBase: Schema.Class<
  CallerError,
  Schema.TaggedStruct<
    "CallerError",
    { readonly method: Schema.String; readonly reason: typeof reasons; readonly message: Schema.String }
  >,
  Cause.YieldableError
> = Schema.TaggedError<CallerError>()("CallerError", {
  method: Schema.String,
  reason: reasons,
  message: Schema.String
})

/**
 * A request to the MCP client failed: the method asked (`sampling/createMessage`,
 * `elicitation/create`), why (`reason`), and what happened, in words (`message`).
 *
 * @since 0.1.0
 */
export class CallerError extends CallerErrorBase {}

/**
 * The MCP client of the call being answered, as a tool sees it.
 *
 * @since 0.1.0
 */
export interface Caller {
  /** Asks the client's model for a message (`sampling/createMessage`). */
  readonly sample: (params: SampleParams, options?: AskOptions) => Effect.Effect<Sampled, CallerError>
  /** Asks the client's user to fill in a form (`elicitation/create`); what they accepted. */
  readonly elicit: (params: ElicitParams, options?: AskOptions) => Effect.Effect<Elicited, CallerError>
}

const noClient = (method: string): CallerError =>
  new CallerError({
    method,
    reason: "NoClient",
    message: `no MCP client to ask (${method}): only a tool served over MCP (Serve) can ask the client that called it`
  })

/**
 * The caller of a tool that is not answering an MCP client: every request fails with
 * `NoClient`.
 *
 * @since 0.1.0
 */
export const none: Caller = {
  sample: () => Effect.fail(noClient("sampling/createMessage")),
  elicit: () => Effect.fail(noClient("elicitation/create"))
}

/**
 * The caller in use: `none` unless provided (`Serve` provides one per call).
 *
 * @since 0.1.0
 */
export const Caller: Context.Reference<Caller> = Context.Reference<Caller>("@agent-harness/mcp/Caller", {
  defaultValue: () => none
})

/**
 * Asks the client of the call being answered for a message from its model
 * (`sampling/createMessage`).
 *
 * @since 0.1.0
 */
export const sample = (params: SampleParams, options?: AskOptions): Effect.Effect<Sampled, CallerError> =>
  Effect.withFiber((fiber) => fiber.getRef(Caller).sample(params, options))

/**
 * Asks the user of the client of the call being answered to fill in a form
 * (`elicitation/create`): what they submitted, checked against `requestedSchema`. A declined or
 * cancelled form is a `CallerError` (`Declined`, `Cancelled`).
 *
 * @since 0.1.0
 */
export const elicit = (params: ElicitParams, options?: AskOptions): Effect.Effect<Elicited, CallerError> =>
  Effect.withFiber((fiber) => fiber.getRef(Caller).elicit(params, options))

/**
 * The text of a sampled message: its text blocks, joined; other blocks (an image, a tool use)
 * are named in brackets.
 *
 * @since 0.1.0
 */
export const text = (sampled: Sampled): string => {
  const blocks = Array.isArray(sampled.content) ? sampled.content : [sampled.content]
  return blocks.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("")
}
