/**
 * The `Caller` of one served call: its requests go through the SDK's `extra.sendRequest` (so
 * over Streamable HTTP they travel on the call's own event stream), are checked against the
 * client's declared capabilities first, and the answers against the official result schemas
 * (and an accepted form against its `requestedSchema`). Every failure is a `CallerError`; an
 * interrupted call cancels its pending request (`notifications/cancelled`).
 *
 * @internal
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ClientCapabilities,
  CreateMessageRequestParamsSchema,
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitRequestFormParamsSchema,
  type ElicitResult,
  ElicitResultSchema,
  ErrorCode,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { Duration, Effect, Result, Schema } from "effect"
import * as Caller from "../Caller.ts"
import * as InputSchema from "../InputSchema.ts"
import * as Messages from "../Messages.ts"
import type * as StdioSession from "./StdioSession.ts"

/** How a request reaches the client: the SDK's `extra.sendRequest`, narrowed to what is used here. */
export type Send = (
  request: { readonly method: "sampling/createMessage" | "elicitation/create"; readonly params: object },
  resultSchema:
    | typeof CreateMessageResultSchema
    | typeof CreateMessageResultWithToolsSchema
    | typeof ElicitResultSchema,
  options: { readonly signal: AbortSignal; readonly timeout: number }
) => Promise<unknown>

/** The SDK's request timeout, when none is given. */
const defaultTimeout = 60_000

const describe = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an unreadable error"
  }
}

/** The first issues of a zod error (the SDK's result check), one line each: `path: message`. */
const issuesOf = (error: unknown): string | undefined => {
  try {
    if (typeof error !== "object" || error === null) return undefined
    const issues: unknown = (error as { readonly issues?: unknown }).issues
    if (!Array.isArray(issues) || issues.length === 0) return undefined
    return issues
      .slice(0, 3)
      .map((issue: { readonly path?: ReadonlyArray<PropertyKey>; readonly message?: unknown }) => {
        const path = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)"
        return `${path}: ${String(issue.message)}`
      })
      .join("; ")
  } catch {
    return undefined
  }
}

/** What went wrong with a request, as a `CallerError`. */
const failure = (method: string, timeout: number, error: unknown): Caller.CallerError => {
  if (error instanceof Caller.CallerError) return error
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new Caller.CallerError({
        method,
        reason: "TimedOut",
        message: `the MCP client did not answer ${method} within ${timeout} ms`
      })
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return new Caller.CallerError({
        method,
        reason: "Failed",
        message: `the connection to the MCP client closed before it answered ${method}`
      })
    }
    const said = describe(error).replace(/^(MCP error -?\d+: )+/, "")
    return new Caller.CallerError({
      method,
      reason: "Refused",
      message: `the MCP client refused ${method} (error ${error.code}): ${Messages.bounded(said)}`
    })
  }
  const issues = issuesOf(error)
  if (issues !== undefined) {
    return new Caller.CallerError({
      method,
      reason: "InvalidAnswer",
      message: `the MCP client's answer to ${method} is not a valid result: ${Messages.bounded(issues)}`
    })
  }
  return new Caller.CallerError({
    method,
    reason: "Failed",
    message: `${method} could not be sent to the MCP client: ${Messages.bounded(describe(error))}`
  })
}

/** The timeout asked for, in milliseconds, or a `CallerError` naming what is not a duration. */
const millis = (method: string, options: Caller.AskOptions | undefined): Result.Result<number, Caller.CallerError> => {
  if (options?.timeout === undefined) return Result.succeed(defaultTimeout)
  try {
    const ms = Duration.toMillis(Duration.fromInputUnsafe(options.timeout))
    if (ms > 0 && Number.isFinite(ms)) return Result.succeed(ms)
  } catch {
    // Said below.
  }
  return Result.fail(
    new Caller.CallerError({
      method,
      reason: "InvalidRequest",
      message: `${method}: the timeout '${Messages.bounded(describe(options.timeout), 80)}' is not a positive, finite duration`
    })
  )
}

/** The tool's own request, checked with the SDK's params schema (sent as given, not as parsed). */
const checkParams = (
  method: string,
  schema: typeof CreateMessageRequestParamsSchema | typeof ElicitRequestFormParamsSchema,
  params: unknown
): Caller.CallerError | undefined => {
  try {
    const parsed = schema.safeParse(params)
    if (parsed.success) return undefined
    return new Caller.CallerError({
      method,
      reason: "InvalidRequest",
      message: `the tool's ${method} request is not valid: ${Messages.bounded(issuesOf(parsed.error) ?? describe(parsed.error))}`
    })
  } catch (error) {
    return new Caller.CallerError({
      method,
      reason: "InvalidRequest",
      message: `the tool's ${method} request cannot be read: ${Messages.bounded(describe(error))}`
    })
  }
}

const notDeclared = (method: string, capability: string): Caller.CallerError =>
  new Caller.CallerError({
    method,
    reason: "NotDeclared",
    message: `the MCP client did not declare the '${capability}' capability, so it cannot be asked for ${method}`
  })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/**
 * Sends `params` as `method` once the checks pass; the answer parsed by `schema`. Interrupting
 * the Effect aborts the request (the SDK sends `notifications/cancelled`).
 */
const ask = (
  send: Send,
  method: "sampling/createMessage" | "elicitation/create",
  params: object,
  schema: Parameters<Send>[1],
  options: Caller.AskOptions | undefined
): Effect.Effect<unknown, Caller.CallerError> => {
  const timeout = millis(method, options)
  if (Result.isFailure(timeout)) return Effect.fail(timeout.failure)
  return Effect.tryPromise({
    try: (signal) => send({ method, params }, schema, { signal, timeout: timeout.success }),
    catch: (error) => failure(method, timeout.success, error)
  })
}

/** Whether `content` is what `requestedSchema` asks for; a `CallerError` saying what is not. */
const checkAccepted = (requestedSchema: unknown, content: unknown): Caller.CallerError | undefined => {
  try {
    const imported = InputSchema.fromJsonSchema(requestedSchema)
    if (imported.checkedBy === "server") return undefined
    const decoded = Schema.decodeUnknownResult(imported.parameters)(content, { errors: "all" })
    if (Result.isSuccess(decoded)) return undefined
    return new Caller.CallerError({
      method: "elicitation/create",
      reason: "InvalidAnswer",
      message: `the MCP client's answer to elicitation/create does not match the requested schema: ${Messages.bounded(decoded.failure.message)}`
    })
  } catch (error) {
    return new Caller.CallerError({
      method: "elicitation/create",
      reason: "InvalidAnswer",
      message: `the MCP client's answer to elicitation/create cannot be checked: ${Messages.bounded(describe(error))}`
    })
  }
}

/** The caller of one served call: `capabilities` reads what the client declared (none before it initialized). */
export const make = (capabilities: () => ClientCapabilities | undefined, send: Send): Caller.Caller => ({
  sample: (params, options) =>
    Effect.suspend(() => {
      const method = "sampling/createMessage"
      const declared = capabilities()?.sampling
      if (!isObject(declared)) return Effect.fail(notDeclared(method, "sampling"))
      const invalid = checkParams(method, CreateMessageRequestParamsSchema, params)
      if (invalid !== undefined) return Effect.fail(invalid)
      const withTools = params.tools !== undefined || params.toolChoice !== undefined
      if (withTools && !isObject(declared.tools)) return Effect.fail(notDeclared(method, "sampling.tools"))
      return ask(
        send,
        method,
        params,
        withTools ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema,
        options
      ) as Effect.Effect<Caller.Sampled, Caller.CallerError>
    }),
  elicit: (params, options) =>
    Effect.suspend(() => {
      const method = "elicitation/create"
      const declared = capabilities()?.elicitation
      // An empty `elicitation` capability means forms (MCP 2025-11-25); one that lists modes must list `form`.
      if (!isObject(declared) || (declared.url !== undefined && declared.form === undefined)) {
        return Effect.fail(notDeclared(method, "elicitation"))
      }
      const invalid = checkParams(method, ElicitRequestFormParamsSchema, params)
      if (invalid !== undefined) return Effect.fail(invalid)
      return Effect.flatMap(ask(send, method, params, ElicitResultSchema, options), (answer) => {
        const { action, content } = answer as ElicitResult
        if (action === "decline") {
          return Effect.fail(
            new Caller.CallerError({ method, reason: "Declined", message: "the user declined the elicitation" })
          )
        }
        if (action === "cancel") {
          return Effect.fail(
            new Caller.CallerError({
              method,
              reason: "Cancelled",
              message: "the user dismissed the elicitation without answering"
            })
          )
        }
        const accepted = content ?? {}
        const mismatch = checkAccepted(params.requestedSchema, accepted)
        return mismatch === undefined ? Effect.succeed(accepted) : Effect.fail(mismatch)
      })
    })
})

/**
 * The caller of one call served by the stdio session: `request` sends and gives the raw result or
 * a `StdioSession.Failure`, as the SDK's `extra.sendRequest` would, its answer checked here
 * with the SDK's result schema and its failure made the SDK's `McpError`.
 */
export const over = (
  capabilities: () => ClientCapabilities | undefined,
  request: StdioSession.Request
): Caller.Caller =>
  make(capabilities, (ask, schema, options) =>
    request(ask, options).then(
      (result) => {
        const parsed = schema.safeParse(result)
        if (!parsed.success) throw parsed.error
        return parsed.data
      },
      (failure: unknown) => {
        const { code, message, data } = failure as StdioSession.Failure
        throw typeof code === "number" ? McpError.fromError(code, message, data) : failure
      }
    )
  )
