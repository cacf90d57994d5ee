/**
 * `execute(toolset, call)`: runs one tool call and answers it, whatever happens;
 * `executeAll(toolset, calls)` runs a batch of them (a turn's calls, a plan's group of steps) on
 * the one path every caller shares: the synchronous core when nothing stands around the calls,
 * lanes (`Tool.lane`) side by side, `concurrency` for the calls without one. The Effect
 * never fails and never dies: a call that fails its schema is not run and answers
 * `not executed: <reason>`; a typed failure, a throw, a rejection, a throw of a non-Error or a
 * defect answers an error with a readable message; a success answers its content. Hostile values
 * change nothing: an input that throws while it is checked is not run, and whatever a tool
 * throws, fails with or returns is described without throwing. The interruption of the caller
 * passes through, so the caller of the loop sees it.
 *
 * @since 0.1.0
 */
import {
  MessageCatalog,
  Render,
  ResponseContract,
  Tool,
  ToolContent,
  Toolset,
  Violation
} from "@agent-harness/tool-schema"
import { Cause, Context, Duration, Effect, Exit, Layer, Option, Result } from "effect"
import { dual } from "effect/Function"
import * as Boundary from "./Boundary.ts"
import * as Lanes from "./internal/lanes.ts"
import * as Spanning from "./internal/spans.ts"
import * as Rich from "./internal/rich.ts"
import type * as Outcome from "./Outcome.ts"
import * as Progress from "./Progress.ts"

/**
 * Options of one execution.
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * Interrupt the call after this long; it answers an error saying it may have partly run. A
   * duration longer than zero (`Infinity`: no limit); anything else refuses the call (`Refused`,
   * nothing runs).
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * The most characters of a result's text the model is shown (default: the `Limits` in use);
   * past it the text is cut with a marker saying how many were not shown. A number above zero
   * (`Infinity`: no cut); anything else refuses the call.
   */
  readonly maxContent?: number | undefined
  /**
   * The most bytes (decoded) of one image, sound or blob of a rich result (default: the
   * `Limits` in use); a bigger part is dropped and the text says so. A number of at least zero.
   */
  readonly maxPartBytes?: number | undefined
}

/**
 * How much of a result the model is shown: `maxContent` characters of text (past it, the text
 * is cut with a marker: `… 12,345 more characters not shown`) and `maxPartBytes` bytes per
 * image, sound or blob (a bigger one is dropped, and the text says so).
 *
 * @since 0.1.0
 */
export interface Limits {
  /** The most characters of a result's text; `Infinity`: no cut. */
  readonly maxContent: number
  /** The most bytes (decoded) of one rich part. */
  readonly maxPartBytes: number
}

/**
 * The default limits: 120,000 characters, above what the file tools ever answer (100,000 bytes
 * of lines and their own line saying what they left out), so their cut is the one the model
 * reads; 5 MiB per part, Anthropic's limit for one image.
 *
 * @since 0.1.0
 */
export const defaultLimits: Limits = { maxContent: 120_000, maxPartBytes: 5 * 1024 * 1024 }

/**
 * The limits in use: `defaultLimits` unless provided
 * (`Effect.provideService(Execute.Limits, { maxContent: 20_000, maxPartBytes: 1_000_000 })`);
 * the loop and every `execute` read them. `Options` override them per call.
 *
 * @since 0.1.0
 */
export const Limits: Context.Reference<Limits> = Context.Reference<Limits>("@agent-harness/executor/Limits", {
  defaultValue: () => defaultLimits
})

/** The content of a tool that does not give its own: text as it is, other values rendered. */
const renderValue = Tool.renderValue

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
 * The message of something a tool threw, failed or died with: an `Error`'s (or any object's)
 * message, a string as it is, anything else described through the catalogue. Never throws: a
 * value that cannot be read (a revoked `Proxy`, a throwing getter) is described by what reading
 * it threw, and a catalogue that throws is replaced by English.
 *
 * @since 0.1.0
 */
export const thrownMessage = (catalog: MessageCatalog.MessageCatalog, thrown: unknown): string => {
  const message = Render.messageOf(thrown)
  if (message !== undefined) return message
  // An `Error` without a message says its name; anything else is rendered.
  const name = emptyErrorName(thrown)
  return name === undefined
    ? MessageCatalog.say(catalog, (c) => c.thrownValue(Render.thrown(thrown)))
    : MessageCatalog.say(catalog, (c) => c.emptyError(name))
}

/** The name of an `Error` without a message (empty, or unreadable), or `undefined`. */
const emptyErrorName = (thrown: unknown): string | undefined => {
  try {
    if (!(thrown instanceof Error)) return undefined
    const name: unknown = thrown.name
    return typeof name === "string" && name !== "" ? name : "Error"
  } catch {
    return undefined
  }
}

/** A typed failure's text: the tool's `failureMessage`, never empty, never throwing. */
const failureText = (catalog: MessageCatalog.MessageCatalog, tool: Tool.Any, failure: unknown): string => {
  try {
    const text: unknown = (tool.failureMessage as (error: unknown) => unknown)(failure)
    return typeof text === "string" && text !== "" ? text : thrownMessage(catalog, failure)
  } catch (error) {
    return thrownMessage(catalog, error)
  }
}

/** A typed failure as rich content: itself when it is a `ToolContent`, or the tool's `failureContent` of it. */
const failureContentOf = (tool: Tool.Any, failure: unknown): ToolContent.Content | undefined => {
  if (ToolContent.isContent(failure)) return failure
  try {
    const content: unknown =
      tool.failureContent === undefined ? undefined : (tool.failureContent as (error: unknown) => unknown)(failure)
    return ToolContent.isContent(content) ? content : undefined
  } catch {
    // A failureContent that throws: the failureMessage text says the failure.
    return undefined
  }
}

/**
 * The outcome of a typed failure: its text (cut), and its parts when it is a `ToolContent` or
 * the tool's `failureContent` gives one.
 */
const fromFailure = (
  catalog: MessageCatalog.MessageCatalog,
  limits: Limits,
  tool: Tool.Any,
  id: string,
  failure: unknown
): Outcome.Outcome => {
  const given = failureContentOf(tool, failure)
  if (given !== undefined) {
    const rich = Rich.fromContent(catalog, limits, given)
    const content = rich.content === "" ? thrownMessage(catalog, failure) : rich.content
    const failed: { -readonly [K in keyof Outcome.Failed]: Outcome.Failed[K] } = {
      _tag: "Failed",
      id,
      name: tool.name,
      failure: { _tag: "ToolError", error: failure },
      content
    }
    if (rich.parts !== undefined) failed.parts = rich.parts
    if (rich.structured !== undefined) failed.structured = rich.structured
    return failed
  }
  return {
    _tag: "Failed",
    id,
    name: tool.name,
    failure: { _tag: "ToolError", error: failure },
    content: Rich.cut(catalog, limits.maxContent, failureText(catalog, tool, failure))
  }
}

/** A success: its text (cut), and its parts and structured content when it is a `ToolContent`. */
const succeeded = (
  catalog: MessageCatalog.MessageCatalog,
  limits: Limits,
  id: string,
  name: string,
  value: unknown,
  rendered: unknown
): Outcome.Outcome => {
  if (typeof rendered === "string") {
    return { _tag: "Succeeded", id, name, value, content: Rich.cut(catalog, limits.maxContent, rendered) }
  }
  if (!ToolContent.isContent(rendered)) {
    throw new TypeError(`the tool's content function returned ${rendered === null ? "null" : typeof rendered}`)
  }
  const rich = Rich.fromContent(catalog, limits, rendered)
  const outcome: { -readonly [K in keyof Outcome.Succeeded]: Outcome.Succeeded[K] } = {
    _tag: "Succeeded",
    id,
    name,
    value,
    content: rich.content
  }
  if (rich.parts !== undefined) outcome.parts = rich.parts
  if (rich.structured !== undefined) outcome.structured = rich.structured
  return outcome
}

/** The outcome of a value the tool returned: its content, or the status error its envelope says. */
const fromValue = (
  catalog: MessageCatalog.MessageCatalog,
  parser: ResponseContract.Parser,
  limits: Limits,
  tool: Tool.Any,
  id: string,
  returned: unknown
): Outcome.Outcome => {
  const name = tool.name
  let value = returned
  try {
    if (tool.envelope) {
      const parsed = parser(value)
      if (!parsed.ok) {
        const { error_code: errorCode, message } = parsed
        return {
          _tag: "Failed",
          id,
          name,
          failure: { _tag: "StatusError", errorCode, message },
          content: MessageCatalog.say(catalog, (c) => c.statusError(errorCode, message))
        }
      }
      value = parsed.answer
      // An ok envelope without content (`answer: null`) is an empty answer, not the text "null".
      if (value === null) return { _tag: "Succeeded", id, name, value, content: "" }
    }
    // A run function that returned a `ToolContent` gave its content itself.
    const rendered: unknown =
      typeof value === "object" && value !== null && ToolContent.isContent(value)
        ? value
        : (tool.content as (value: unknown) => unknown)(value)
    return succeeded(catalog, limits, id, name, value, rendered)
  } catch (defect) {
    return fromDefect(catalog, tool, id, defect, limits)
  }
}

/** The outcome of a tool that threw, rejected or died. */
const fromDefect = (
  catalog: MessageCatalog.MessageCatalog,
  tool: Tool.Any,
  id: string,
  defect: unknown,
  limits: Limits = defaultLimits
): Outcome.Outcome => ({
  _tag: "Failed",
  id,
  name: tool.name,
  failure: { _tag: "Defect", defect },
  content: Rich.cut(catalog, limits.maxContent, thrownMessage(catalog, defect))
})

const fromExit = (
  catalog: MessageCatalog.MessageCatalog,
  parser: ResponseContract.Parser,
  limits: Limits,
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
        content: MessageCatalog.say(catalog, (c) => c.timedOut(ms))
      })
    }
    return Effect.succeed(fromValue(catalog, parser, limits, tool, id, exit.value.value))
  }
  const cause = exit.cause
  const error = Cause.findError(cause)
  if (Result.isSuccess(error)) return Effect.succeed(fromFailure(catalog, limits, tool, id, error.success))
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) return Effect.succeed(fromDefect(catalog, tool, id, defect.success, limits))
  // Only interruptions are left. An interruption of the caller never reaches this point (the
  // fiber stops at `Effect.exit`), so this is the tool interrupting itself: it ran and failed.
  return Effect.succeed({
    _tag: "Failed",
    id,
    name,
    failure: { _tag: "Interrupted" },
    content: MessageCatalog.say(catalog, (c) => c.interrupted)
  })
}

/**
 * A call as middleware sees it: the call as it will run. `input` is the decoded value the tool
 * receives (trimmed, lower-cased, defaults filled in, transformed: whatever its schema does),
 * read from the model's input once; `raw` is that input as the model sent it, for display only.
 * Decide and key on `input`: the tool never sees anything else, so a rule or a journal key on
 * `input` holds on what runs, and a getter that answers differently on each read cannot matter.
 *
 * @since 0.1.0
 */
export interface Call extends Toolset.RawCall {
  /** The decoded input: exactly the value the tool runs with. */
  readonly input: unknown
  /** The input as the model sent it (read once, before decoding), for display only. */
  readonly raw: unknown
}

/**
 * A layer around the execution of calls that passed their schema: it sees the call as it will
 * run (`Call`: its decoded input, and the raw one for display) and its tool, and decides
 * whether and how `run` happens (a journal replays recorded outcomes and refuses to re-run
 * calls whose outcome is unknown). It cannot change what runs: `run` runs the tool on
 * `call.input`. It must not fail: it answers with an `Outcome`.
 *
 * @since 0.1.0
 */
export type Middleware = <R>(
  call: Call,
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

/**
 * What the synchronous core reads from the harness: its texts and its response parser. Inside
 * an Effect they come from the services (`MessageCatalog`, `ResponseParser`); `harness` reads
 * them.
 *
 * @since 0.1.0
 */
export interface Harness {
  /** The words the model is shown (`MessageCatalog`). */
  readonly catalog: MessageCatalog.MessageCatalog
  /** How envelope tools' responses are read (`ResponseParser`). */
  readonly parser: ResponseContract.Parser
  /** How much of a result the model is shown (`Limits`; `defaultLimits` when absent). */
  readonly limits?: Limits | undefined
}

/**
 * The harness of the current fiber: its catalogue and its response parser.
 *
 * @since 0.1.0
 */
export const harness: Effect.Effect<Harness> = Effect.withFiber((fiber) =>
  Effect.succeed({
    catalog: fiber.getRef(MessageCatalog.MessageCatalog),
    parser: fiber.getRef(ResponseContract.ResponseParser),
    limits: fiber.getRef(Limits)
  })
)

const defaultHarness: Harness = {
  catalog: MessageCatalog.english,
  parser: ResponseContract.contract(),
  limits: defaultLimits
}

/** A refused call's outcome. */
const notExecuted = (
  catalog: MessageCatalog.MessageCatalog,
  call: Toolset.RawCall,
  violation: Violation.Violation
): Outcome.Outcome => ({
  _tag: "NotExecuted",
  id: call.id,
  name: call.name,
  violation,
  content: MessageCatalog.notExecuted(catalog, violation)
})

/**
 * The synchronous core of `execute`, for callers that already hold the harness (a loop reads it
 * once): decodes the call, runs the tool and answers with the `Outcome`, without the Effect
 * runtime, when the call finishes at once — it fails its schema, the tool returns a plain
 * value, or it throws. When the tool returns an Effect or a promise, the answer is the Effect
 * that finishes the call: the tool has been called, so run that Effect once (it never fails,
 * as `execute` never does). No middleware and no timeout apply here; `execute` applies them.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Execute } from "@agent-harness/executor"
 *
 * declare const toolset: Parameters<typeof Execute.executeSync>[0]
 * const now = Execute.executeSync(toolset, { id: "c1", name: "read", input: { path: "a.txt" } })
 * const outcome = Effect.isEffect(now) ? Effect.runSync(now) : now
 * ```
 *
 * @since 0.1.0
 */
export const executeSync = <T extends Tool.Any>(
  toolset: Toolset.Toolset<T>,
  call: Toolset.RawCall,
  harness: Harness = defaultHarness
): Outcome.Outcome | Effect.Effect<Outcome.Outcome, never, Tool.Services<T>> => {
  const now = start(toolset, call, harness)
  return now instanceof Pending ? (now.effect as Effect.Effect<Outcome.Outcome, never, Tool.Services<T>>) : now
}

/** The rest of a call whose tool returned an Effect or a promise. */
class Pending {
  readonly effect: Effect.Effect<Outcome.Outcome, never, unknown>
  constructor(effect: Effect.Effect<Outcome.Outcome, never, unknown>) {
    this.effect = effect
  }
}

/**
 * A call up to its answer, or to the Effect that finishes it. Kept small, so that the engine can
 * inline it where it is called: the common case (an input the compiled decoder accepts, a tool
 * answering text) goes through `start` and `run` only.
 */
const start = (
  toolset: Toolset.Toolset<Tool.Any>,
  call: Toolset.RawCall,
  harness: Harness
): Outcome.Outcome | Pending => {
  const entry = Toolset.entry(toolset, call.name)
  if (entry === undefined) return notExecuted(harness.catalog, call, Violation.unknownTool(call.name))
  let input: unknown
  try {
    input = call.input
  } catch (thrown) {
    return notExecuted(harness.catalog, call, Violation.uncheckableInput(Render.thrown(thrown)))
  }
  // Most inputs: accepted at once by the compiled decoder, nothing built but the decoded value.
  const decoded = Toolset.decodeAtOnce(entry, input)
  return decoded === undefined ? decodeThenRun(entry, call, input, harness) : run(entry.tool, call.id, decoded, harness)
}

/** The rest of the decode, then the tool. Never throws: an input or a check that throws is `UncheckableInput`. */
const decodeThenRun = (
  entry: Toolset.Entry,
  call: Toolset.RawCall,
  input: unknown,
  harness: Harness
): Outcome.Outcome | Pending => {
  const decoded = Toolset.decodeRest(entry, input)
  if (Result.isFailure(decoded)) return notExecuted(harness.catalog, call, decoded.failure)
  return run(entry.tool, call.id, decoded.success, harness)
}

/** Runs the tool on the decoded input: its outcome when it answered text, otherwise `answer`. */
const run = (tool: Tool.Any, id: string, decoded: unknown, harness: Harness): Outcome.Outcome | Pending => {
  let out: unknown
  try {
    out = (tool.run as (input: unknown, context: Tool.CallContext) => unknown)(decoded, { id })
    // Text from a tool that renders its value as it is (no envelope, the default content): the
    // outcome `fromValue` builds, without its steps.
    if (typeof out === "string" && tool.content === renderValue && !tool.envelope) {
      const max = (harness.limits ?? defaultLimits).maxContent
      // Within the limit (the common case) the text is the content, as `Rich.cut` answers it.
      const content = out.length > max ? Rich.cut(harness.catalog, max, out) : out
      return { _tag: "Succeeded", id, name: tool.name, value: out, content }
    }
  } catch (defect) {
    return fromDefect(harness.catalog, tool, id, defect, harness.limits ?? defaultLimits)
  }
  return answer(tool, id, out, harness)
}

/** What a tool returned, other than text it renders as it is: an Effect or a promise to finish, or a value. */
const answer = (tool: Tool.Any, id: string, out: unknown, harness: Harness): Outcome.Outcome | Pending => {
  const catalog = harness.catalog
  const limits = harness.limits ?? defaultLimits
  // `Effect.isEffect` and `then` read the value: a revoked Proxy or a throwing `then` getter
  // throws there.
  try {
    // Strings, numbers, `undefined`...: neither an Effect nor a promise.
    if ((typeof out === "object" || typeof out === "function") && out !== null) {
      if (Effect.isEffect(out)) return finishLater(catalog, harness.parser, limits, tool, id, out)
      if (isPromiseLike(out)) {
        const promise = out
        return finishLater(
          catalog,
          harness.parser,
          limits,
          tool,
          id,
          Effect.promise(() => promise)
        )
      }
    }
  } catch (defect) {
    return fromDefect(catalog, tool, id, defect, limits)
  }
  return fromValue(catalog, harness.parser, limits, tool, id, out)
}

/** The rest of a call whose tool returned an Effect or a promise: run it once, answer its exit. */
const finishLater = (
  catalog: MessageCatalog.MessageCatalog,
  parser: ResponseContract.Parser,
  limits: Limits,
  tool: Tool.Any,
  id: string,
  running: Effect.Effect<unknown, unknown, unknown>
): Pending =>
  new Pending(
    Effect.flatMap(Effect.exit(Effect.asSome(running)), (exit) =>
      fromExit(catalog, parser, limits, tool, id, exit, undefined)
    )
  )

/** A call refused because an option of the harness is invalid: nothing runs. */
const invalidOption = (
  catalog: MessageCatalog.MessageCatalog,
  call: Toolset.RawCall,
  option: string,
  value: unknown
): Outcome.Outcome => {
  const shown = Boundary.show(value)
  return {
    _tag: "Refused",
    id: call.id,
    name: call.name,
    reason: `the option '${option}' is invalid: ${shown}`,
    content: MessageCatalog.say(catalog, (c) => c.notExecuted(c.invalidOption(option, shown)))
  }
}

/**
 * The harness of a fiber's context, read once per context: a running loop or session calls
 * `execute` many times in one context.
 */
const harnesses = new WeakMap<object, FiberHarness>()

interface FiberHarness extends Harness {
  readonly limits: Limits
  readonly middleware: Middleware | undefined
  readonly spanning: Spanning.Spanning
}

const harnessOf = (context: object, fiber: { readonly getRef: <A>(ref: Context.Reference<A>) => A }): FiberHarness => {
  let current = harnesses.get(context)
  if (current === undefined) {
    current = {
      catalog: fiber.getRef(MessageCatalog.MessageCatalog),
      parser: fiber.getRef(ResponseContract.ResponseParser),
      limits: fiber.getRef(Limits),
      middleware: fiber.getRef(Middleware),
      spanning: Spanning.spanningOf(fiber)
    }
    harnesses.set(context, current)
  }
  return current
}

/**
 * Executes one raw call against a toolset and answers it with an `Outcome`. Never fails,
 * never dies; interruption of the caller passes through.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Execute, Outcome } from "@agent-harness/executor"
 * import { Tool, Toolset } from "@agent-harness/tool-schema"
 *
 * const Weather = Tool.make("weather", {
 *   description: "Today's weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   run: ({ city }) => Effect.succeed(`sunny in ${city}`)
 * })
 * const toolset = Toolset.make(Weather)
 *
 * const program = Effect.gen(function* () {
 *   const outcome = yield* Execute.execute(toolset, { id: "c1", name: "weather", input: { town: "Sevilla" } })
 *   // outcome._tag: "NotExecuted"; outcome.content: "not executed: missing field 'city'"
 *   return Outcome.toToolResult(outcome) // { type: "tool_result", tool_use_id: "c1", content, is_error: true }
 * })
 * ```
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
    executeIn(toolset, call, options) as Effect.Effect<Outcome.Outcome, never, Tool.Services<T>>
)

const executeIn = (
  toolset: Toolset.Toolset<Tool.Any>,
  call: Toolset.RawCall,
  options: Options | undefined
): Effect.Effect<Outcome.Outcome, never, unknown> =>
  Effect.withFiber((fiber) => {
    const current = harnessOf(fiber.context, fiber)
    const running = executeWith(current, toolset, call, options)
    if (!current.spanning.traced) return running
    // Someone reads spans: the call, its middleware included, inside its `execute_tool` span.
    return Spanning.toolCall(call, current.spanning.content, running)
  })

const executeWith = (
  harness: FiberHarness,
  toolset: Toolset.Toolset<Tool.Any>,
  call: Toolset.RawCall,
  options: Options | undefined
): Effect.Effect<Outcome.Outcome, never, unknown> => {
  let current = harness
  const { catalog, parser, middleware } = current
  if (options?.maxContent !== undefined || options?.maxPartBytes !== undefined) {
    const maxContent = options.maxContent ?? current.limits.maxContent
    const maxPartBytes = options.maxPartBytes ?? current.limits.maxPartBytes
    if (typeof maxContent !== "number" || !(maxContent > 0)) {
      return Effect.succeed(invalidOption(catalog, call, "maxContent", options.maxContent))
    }
    if (typeof maxPartBytes !== "number" || !(maxPartBytes >= 0)) {
      return Effect.succeed(invalidOption(catalog, call, "maxPartBytes", options.maxPartBytes))
    }
    current = { ...current, limits: { maxContent, maxPartBytes } }
  }
  const limits = current.limits
  if (middleware === undefined && options?.timeout === undefined) {
    // Nothing stands between the call and its tool: the synchronous core, which enters no
    // Effect of its own for plain-value tools.
    const now = start(toolset, call, current)
    return now instanceof Pending ? now.effect : Effect.succeed(now)
  }
  let millis: number | undefined
  if (options?.timeout !== undefined) {
    millis = Boundary.millis(options.timeout)
    if (millis === undefined || millis === 0) {
      return Effect.succeed(invalidOption(catalog, call, "timeout", options.timeout))
    }
    if (millis === Infinity) millis = undefined
  }
  const entry = Toolset.entry(toolset, call.name)
  if (entry === undefined) return Effect.succeed(notExecuted(catalog, call, Violation.unknownTool(call.name)))
  // The model's input is read once; everything after sees the decoded value only.
  let raw: unknown
  try {
    raw = call.input
  } catch (thrown) {
    return Effect.succeed(notExecuted(catalog, call, Violation.uncheckableInput(Render.thrown(thrown))))
  }
  const decoded = Toolset.decodeInput(entry, raw)
  if (Result.isFailure(decoded)) return Effect.succeed(notExecuted(catalog, call, decoded.failure))
  const tool = entry.tool
  const input = decoded.success
  const running = runTool(tool, input, call.id)
  const bounded = millis === undefined ? Effect.asSome(running) : Effect.timeoutOption(running, Duration.millis(millis))
  const run = Effect.flatMap(Effect.exit(bounded), (exit) =>
    fromExit(catalog, parser, limits, tool, call.id, exit, millis)
  )
  if (middleware === undefined) return run
  const asRuns: Call = { id: call.id, name: call.name, input, raw }
  return around(middleware, asRuns, tool, run, catalog)
}

/**
 * The middleware around a call, guarded: a middleware that throws or dies answers the call as a
 * `Defect` (it may have run) instead of killing the caller. Interruption passes through.
 */
const around = (
  middleware: Middleware,
  call: Call,
  tool: Tool.Any,
  run: Effect.Effect<Outcome.Outcome, never, unknown>,
  catalog: MessageCatalog.MessageCatalog
): Effect.Effect<Outcome.Outcome, never, unknown> =>
  Effect.catchDefect(
    Effect.suspend(() => middleware(call, tool, run)),
    (defect) => Effect.succeed(fromDefect(catalog, tool, call.id, defect))
  )

/**
 * Middleware that adds nothing: `run` as it is.
 */
const identity: Middleware = (_call, _tool, run) => run

/**
 * Several middlewares as one, in order: the first is the outermost. `compose(gate, journal)`
 * asks the gate first, and only a call the gate lets through reaches the journal, then the
 * tool; an inner middleware is not even called for a call an outer one answers itself.
 * `compose()` is a middleware that adds nothing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Execute } from "@agent-harness/executor"
 *
 * declare const gate: Execute.Middleware
 * declare const journal: Execute.Middleware
 * declare const program: Effect.Effect<void>
 * const guarded = Effect.provideService(program, Execute.Middleware, Execute.compose(gate, journal))
 * ```
 *
 * @since 0.1.0
 */
export const compose = (...middlewares: ReadonlyArray<Middleware>): Middleware => {
  const list = [...middlewares]
  if (list.length === 0) return identity
  if (list.length === 1) return list[0] as Middleware
  return (call, tool, run) =>
    list.reduceRight<Effect.Effect<Outcome.Outcome, never, never>>(
      (inner, middleware) => Effect.suspend(() => middleware(call, tool, inner)),
      run as Effect.Effect<Outcome.Outcome, never, never>
    ) as typeof run
}

/**
 * Where a middleware added to the one in use goes: `"inside"` (the default) runs it after the
 * one in use, closer to the tool (the one in use sees each call first); `"outside"` runs it
 * first, in front of the one in use (a permission gate, so that a denied call reaches nothing).
 *
 * @since 0.1.0
 */
export type Placement = "inside" | "outside"

/** The middleware in use with one more, placed as asked. */
const added = (current: Middleware | undefined, middleware: Middleware, placement: Placement): Middleware =>
  current === undefined
    ? middleware
    : placement === "outside"
      ? compose(middleware, current)
      : compose(current, middleware)

/**
 * Runs an effect with one more middleware: the one in use (if any) and `middleware`, composed
 * (`compose`) as `placement` says (`"inside"` by default), instead of replacing it as
 * `Effect.provideService(Execute.Middleware, m)` does.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Execute } from "@agent-harness/executor"
 *
 * declare const gate: Execute.Middleware
 * declare const journal: Execute.Middleware
 * declare const program: Effect.Effect<void>
 * // The gate in front of the journal, whichever is added first.
 * const guarded = program.pipe(Execute.withMiddleware(journal), Execute.withMiddleware(gate, "outside"))
 * ```
 *
 * @since 0.1.0
 */
export const withMiddleware: {
  (middleware: Middleware, placement?: Placement): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, middleware: Middleware, placement?: Placement): Effect.Effect<A, E, R>
} = dual(
  (args) => Effect.isEffect(args[0]),
  <A, E, R>(self: Effect.Effect<A, E, R>, middleware: Middleware, placement: Placement = "inside") =>
    Effect.withFiber((fiber) =>
      Effect.provideService(self, Middleware, added(fiber.getRef(Middleware), middleware, placement))
    )
)

/**
 * A layer that adds a middleware to the one in use where the layer is built (see
 * `withMiddleware`), instead of replacing it: provide a gate's layer and a journal's layer one
 * around the other (`Effect.provide(a)`, then `Effect.provide(b)`; or `Layer.provideMerge`) and
 * both act. Layers merged side by side (`Layer.mergeAll`) are built in the same context and do
 * not see each other: the last one wins there, as with any service.
 *
 * @since 0.1.0
 */
export const layerMiddleware = <E = never, R = never>(
  middleware: Middleware | Effect.Effect<Middleware, E, R>,
  placement: Placement = "inside"
): Layer.Layer<never, E, R> =>
  Layer.effect(
    Middleware,
    Effect.flatMap(Effect.isEffect(middleware) ? middleware : Effect.succeed(middleware), (given) =>
      Effect.map(Effect.service(Middleware), (current) => added(current, given, placement))
    )
  )

/**
 * Options of a batch of calls (`executeAll`): those of each call (`Options`), and how the
 * batch runs.
 *
 * @since 0.1.0
 */
export interface AllOptions<C extends Toolset.RawCall = Toolset.RawCall> extends Options {
  /**
   * How many calls without a lane (`Tool.lane`) run at once; default 1. A whole number of at
   * least 1 or `"unbounded"`; anything else refuses every call (nothing runs).
   */
  readonly concurrency?: number | "unbounded" | undefined
  /**
   * Whether the calls run in their tools' lanes (default `true`): one lane's calls one after
   * another in call order, the lanes (and the calls without one, as `concurrency` says) side by
   * side. `false`: every call as `concurrency` says.
   */
  readonly lanes?: boolean | undefined
  /** Called before each call starts (a trace records the call), with the call and its index. */
  readonly onCall?: ((call: C, index: number) => Effect.Effect<void>) | undefined
  /** Where the calls' progress (`Progress.report`) goes, provided around the calls. */
  readonly reporter?: Progress.Reporter | undefined
}

/**
 * Executes a batch of calls and answers each with its `Outcome`, in call order, whatever order
 * they finished in. It owns the choice of path: with no middleware, no timeout and the calls
 * run one at a time, the synchronous core (`executeSync`) per call, without an Effect per call
 * (a tool that returns an Effect or a promise is finished in this fiber); with lanes, one
 * lane's calls one after another and the lanes side by side; otherwise an `execute` per call,
 * `concurrency` at once. Never fails, never dies; interruption of the caller passes through.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Execute } from "@agent-harness/executor"
 *
 * declare const toolset: Parameters<typeof Execute.executeAll>[0]
 * const outcomes = Execute.executeAll(toolset, [
 *   { id: "c1", name: "read", input: { path: "a.txt" } },
 *   { id: "c2", name: "read", input: { path: "b.txt" } }
 * ], { concurrency: 2 })
 * ```
 *
 * @since 0.1.0
 */
export const executeAll = <T extends Tool.Any, C extends Toolset.RawCall>(
  toolset: Toolset.Toolset<T>,
  calls: ReadonlyArray<C>,
  options?: AllOptions<C>
): Effect.Effect<ReadonlyArray<Outcome.Outcome>, never, Tool.Services<T>> =>
  executeAllIn(toolset, calls, options as AllOptions | undefined) as Effect.Effect<
    ReadonlyArray<Outcome.Outcome>,
    never,
    Tool.Services<T>
  >

const isConcurrency = (u: unknown): u is number | "unbounded" =>
  u === "unbounded" || (typeof u === "number" && Number.isSafeInteger(u) && u >= 1)

const executeAllIn = (
  toolset: Toolset.Toolset<Tool.Any>,
  calls: ReadonlyArray<Toolset.RawCall>,
  options: AllOptions | undefined
): Effect.Effect<ReadonlyArray<Outcome.Outcome>, never, unknown> =>
  Effect.withFiber((fiber) => {
    if (calls.length === 0) return Effect.succeed([])
    const current = harnessOf(fiber.context, fiber)
    const concurrency = options?.concurrency ?? 1
    if (!isConcurrency(concurrency)) {
      return Effect.succeed(calls.map((call) => invalidOption(current.catalog, call, "concurrency", concurrency)))
    }
    const onCall = options?.onCall
    const reporter = options?.reporter
    const bare =
      current.middleware === undefined &&
      options?.timeout === undefined &&
      options?.maxContent === undefined &&
      options?.maxPartBytes === undefined
    const lanes = options?.lanes === false || !Lanes.anyLane(toolset) ? undefined : Lanes.lanesOf(toolset, calls)
    const reported = <A>(effect: Effect.Effect<A, never, unknown>): Effect.Effect<A, never, unknown> =>
      reporter === undefined ? effect : Effect.provideService(effect, Progress.Reporter, reporter)
    const one = (call: Toolset.RawCall, index: number): Effect.Effect<Outcome.Outcome, never, unknown> => {
      const run = executeIn(toolset, call, options)
      return onCall === undefined ? run : Effect.andThen(onCall(call, index), run)
    }
    switch (Lanes.pathOf({ lanes, bare, concurrency, calls: calls.length })) {
      case "sync":
        // One call at a time, nothing around it: the synchronous core, no Effect per call
        // (with spans read, each call's span opened and ended around it).
        if (current.spanning.traced) return spannedSync(toolset, calls, current, onCall, reported)
        return Effect.gen(function* () {
          const done: Array<Outcome.Outcome> = []
          for (const [index, call] of calls.entries()) {
            if (onCall !== undefined) yield* onCall(call, index)
            const now = start(toolset, call, current)
            done.push(now instanceof Pending ? yield* reported(now.effect) : now)
          }
          return done
        })
      case "lanes": {
        // Lanes side by side; in each, its calls in call order (the calls without a lane as
        // `concurrency` says); every outcome put back at its call's place.
        const done: Array<Outcome.Outcome> = new Array(calls.length)
        return Effect.map(
          reported(
            Effect.forEach(
              [...(lanes ?? [])],
              ([lane, indices]) =>
                Effect.forEach(
                  indices,
                  (index) =>
                    Effect.map(one(calls[index] as Toolset.RawCall, index), (outcome) => {
                      done[index] = outcome
                    }),
                  { concurrency: lane === undefined ? concurrency : 1, discard: true }
                ),
              { concurrency: "unbounded", discard: true }
            )
          ),
          () => done
        )
      }
      case "oneLane":
        return reported(Effect.forEach(calls, one, { concurrency: 1 }))
      case "each":
        return reported(Effect.forEach(calls, one, { concurrency }))
    }
  })

/**
 * The synchronous core with spans read: each call's `execute_tool` span opened before it and
 * ended with its outcome (a pending call's effect runs under it), one Effect per call for the span.
 */
const spannedSync = (
  toolset: Toolset.Toolset<Tool.Any>,
  calls: ReadonlyArray<Toolset.RawCall>,
  harness: FiberHarness,
  onCall: AllOptions["onCall"],
  reported: <A>(effect: Effect.Effect<A, never, unknown>) => Effect.Effect<A, never, unknown>
): Effect.Effect<ReadonlyArray<Outcome.Outcome>, never, unknown> =>
  Effect.clockWith((clock) =>
    Effect.gen(function* () {
      const content = harness.spanning.content
      const done: Array<Outcome.Outcome> = []
      for (const [index, call] of calls.entries()) {
        if (onCall !== undefined) yield* onCall(call, index)
        const span = yield* Effect.makeSpan(Spanning.toolSpanName(call), Spanning.toolSpanOptions(call, content))
        const now = start(toolset, call, harness)
        if (!(now instanceof Pending)) {
          Spanning.endToolSpan(span, call.name, now, content, clock.currentTimeNanosUnsafe())
          done.push(now)
          continue
        }
        const ran = yield* reported(Effect.withParentSpan(now.effect, span, { captureStackTrace: false })).pipe(
          Effect.onInterrupt(() => Effect.sync(() => span.end(clock.currentTimeNanosUnsafe(), Exit.interrupt())))
        )
        Spanning.endToolSpan(span, call.name, ran, content, clock.currentTimeNanosUnsafe())
        done.push(ran)
      }
      return done
    })
  )
