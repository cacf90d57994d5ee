/**
 * `execute(toolset, call)`: runs one tool call and answers it, whatever happens. The Effect
 * never fails and never dies: a call that fails its schema is not run and answers
 * `not executed: <reason>`; a typed failure, a throw, a rejection, a throw of a non-Error or a
 * defect answers an error with a readable message; a success answers its content. The
 * interruption of the caller passes through, so the caller of the loop sees it.
 *
 * @since 0.1.0
 */
import { MessageCatalog, ResponseContract, type Tool, Toolset } from "@agent-harness/tool-schema"
import { Cause, Context, Duration, Effect, Exit, Option, Result } from "effect"
import { dual } from "effect/Function"
import type * as Outcome from "./Outcome.ts"

/**
 * Options of one execution.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Interrupt the call after this long; it answers an error saying it may have partly run. */
  readonly timeout?: Duration.Input | undefined
}

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && "then" in u && typeof u.then === "function"

const runTool = (tool: Tool.Any, input: unknown, id: string): Effect.Effect<unknown, unknown, unknown> =>
  Effect.suspend(() => {
    const out = (tool.run as (input: unknown, context: Tool.CallContext) => unknown)(input, { id })
    if (Effect.isEffect(out)) return out
    if (isPromiseLike(out)) return Effect.promise(() => out)
    return Effect.succeed(out)
  })

/**
 * The message of something a tool threw: an `Error`'s message, a string as it is, anything
 * else described through the catalogue.
 *
 * @since 0.1.0
 */
export const thrownMessage = (catalog: MessageCatalog.MessageCatalog, thrown: unknown): string => {
  try {
    if (thrown instanceof Error) return thrown.message === "" ? catalog.emptyError(thrown.name) : thrown.message
    if (typeof thrown === "string") return thrown === "" ? catalog.thrownValue("''") : thrown
    if (typeof thrown === "object" && thrown !== null && "message" in thrown) {
      const message = thrown.message
      if (typeof message === "string" && message !== "") return message
    }
    if (thrown === undefined) return catalog.thrownValue("undefined")
    return catalog.thrownValue(JSON.stringify(thrown) ?? String(thrown))
  } catch {
    // A value that cannot be described (a throwing getter, a bigint inside, no prototype).
    return catalog.thrownValue(describeType(thrown))
  }
}

const describeType = (u: unknown): string => {
  try {
    return String(u)
  } catch {
    return Object.prototype.toString.call(u)
  }
}

/** A typed failure's text: the tool's `failureMessage`, never empty, never throwing. */
const failureText = (catalog: MessageCatalog.MessageCatalog, tool: Tool.Any, failure: unknown): string => {
  try {
    const text = (tool.failureMessage as (error: unknown) => string)(failure)
    return typeof text === "string" && text !== "" ? text : thrownMessage(catalog, failure)
  } catch (error) {
    return thrownMessage(catalog, error)
  }
}

const fromExit = (
  catalog: MessageCatalog.MessageCatalog,
  parser: ResponseContract.Parser,
  tool: Tool.Any,
  id: string,
  exit: Exit.Exit<Option.Option<unknown>, unknown>,
  millis: number | undefined
): Effect.Effect<Outcome.Outcome> => {
  const name = tool.name
  if (Exit.isSuccess(exit)) {
    if (Option.isNone(exit.value)) {
      const ms = millis ?? 0
      return Effect.succeed({
        _tag: "Failed",
        id,
        name,
        failure: { _tag: "TimedOut", millis: ms },
        content: catalog.timedOut(ms)
      })
    }
    let value = exit.value.value
    try {
      if (tool.envelope) {
        const parsed = parser(value)
        if (!parsed.ok) {
          return Effect.succeed({
            _tag: "Failed",
            id,
            name,
            failure: { _tag: "StatusError", error_code: parsed.error_code, message: parsed.message },
            content: catalog.statusError(parsed.error_code, parsed.message)
          })
        }
        value = parsed.answer
      }
      const content = (tool.content as (value: unknown) => string)(value)
      if (typeof content !== "string") throw new TypeError(`the tool's content function returned ${typeof content}`)
      return Effect.succeed({ _tag: "Succeeded", id, name, value, content })
    } catch (defect) {
      return Effect.succeed({
        _tag: "Failed",
        id,
        name,
        failure: { _tag: "Defect", defect },
        content: thrownMessage(catalog, defect)
      })
    }
  }
  const cause = exit.cause
  const error = Cause.findError(cause)
  if (Result.isSuccess(error)) {
    const failure = error.success
    return Effect.succeed({
      _tag: "Failed",
      id,
      name,
      failure: { _tag: "ToolError", error: failure },
      content: failureText(catalog, tool, failure)
    })
  }
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) {
    return Effect.succeed({
      _tag: "Failed",
      id,
      name,
      failure: { _tag: "Defect", defect: defect.success },
      content: thrownMessage(catalog, defect.success)
    })
  }
  // Only interruptions are left. An interruption of the caller never reaches this point (the
  // fiber stops at `Effect.exit`), so this is the tool interrupting itself: it ran and failed.
  return Effect.succeed({
    _tag: "Failed",
    id,
    name,
    failure: { _tag: "Interrupted" },
    content: catalog.interrupted
  })
}

/**
 * A layer around the execution of calls that passed their schema: it sees the call and its
 * tool, and decides whether and how `run` happens (a journal replays recorded outcomes and
 * refuses to re-run calls whose outcome is unknown). It must not fail: it answers with an
 * `Outcome`.
 *
 * @since 0.1.0
 */
export type Middleware = <R>(
  call: Toolset.RawCall,
  tool: Tool.Any,
  run: Effect.Effect<Outcome.Outcome, never, R>
) => Effect.Effect<Outcome.Outcome, never, R>

/**
 * The middleware in use: none unless provided (`Effect.provideService(Execute.Middleware, m)`).
 * The loop does not change: it calls `execute`, which consults this.
 *
 * @since 0.1.0
 */
export const Middleware: Context.Reference<Middleware | undefined> = Context.Reference<Middleware | undefined>(
  "@agent-harness/executor/Middleware",
  { defaultValue: () => undefined }
)

/** The harness's texts, response parser and middleware, read once per call. */
const harness = Effect.all({
  catalog: Effect.service(MessageCatalog.MessageCatalog),
  parser: Effect.service(ResponseContract.ResponseParser),
  middleware: Effect.service(Middleware)
})

/**
 * Executes one raw call against a toolset and answers it with an `Outcome`. Never fails,
 * never dies; interruption of the caller passes through.
 *
 * @since 0.1.0
 */
export const execute: {
  (
    call: Toolset.RawCall,
    options?: Options
  ): <T extends Tool.Any>(toolset: Toolset.Toolset<T>) => Effect.Effect<Outcome.Outcome, never, Tool.Services<T>>
  <T extends Tool.Any>(
    toolset: Toolset.Toolset<T>,
    call: Toolset.RawCall,
    options?: Options
  ): Effect.Effect<Outcome.Outcome, never, Tool.Services<T>>
} = dual(
  (args) => Toolset.isToolset(args[0]),
  <T extends Tool.Any>(
    toolset: Toolset.Toolset<T>,
    call: Toolset.RawCall,
    options?: Options
  ): Effect.Effect<Outcome.Outcome, never, Tool.Services<T>> =>
    Effect.flatMap(harness, ({ catalog, parser, middleware }) => {
      const decoded = Toolset.decode(toolset, call)
      if (Result.isFailure(decoded)) {
        return Effect.succeed<Outcome.Outcome>({
          _tag: "NotExecuted",
          id: call.id,
          name: call.name,
          violation: decoded.failure,
          content: MessageCatalog.notExecuted(catalog, decoded.failure)
        })
      }
      const { tool, input } = decoded.success
      const running = runTool(tool, input, call.id)
      const millis =
        options?.timeout === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(options.timeout))
      const bounded =
        millis === undefined ? Effect.asSome(running) : Effect.timeoutOption(running, Duration.millis(millis))
      const run = Effect.flatMap(Effect.exit(bounded), (exit) => fromExit(catalog, parser, tool, call.id, exit, millis))
      return middleware === undefined ? run : middleware(call, tool, run)
    }) as Effect.Effect<Outcome.Outcome, never, Tool.Services<T>>
)
