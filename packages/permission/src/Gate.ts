/**
 * The permission gate: executor middleware that decides, for every call that passed its schema
 * and before anything runs, whether it runs. The policy decides (`Policy.decide`); on `ask`, the
 * `Approver` in the context answers; a denied call is not executed and the model reads
 * `not executed: denied: <reason>` (`Outcome.denied`). Every decision is a `permission.decided`
 * trace event (`Decided`): which rule, what it said, the answer, whether the call runs, why.
 *
 * The loop does not change: provide the gate as `Execute.Middleware` (`Gate.layer`), alone or in
 * front of a journal (`Gate.layer(options, Journal.middleware(store))`, `Execute.compose`, or
 * `Gate.layer` and `Journal.layer` provided one around the other: the gate's layer adds the gate
 * in front of the middleware in use), so that a denied call never reaches the journal.
 *
 * It decides on what runs: the call's decoded input (`Execute.Call`), read by meaning (a rule on
 * `path` reads `leer`'s `ruta`; a rule on `command` reads `comando`'s `programa` and
 * `argumentos`, or a shell line, through its wrappers), the tool's name or its provider-safe
 * alias. Around each call it lets run it provides a `PathGuard` that allows a path only when
 * the policy allows the same call on that path (or the path is the call's own, which the gate
 * just decided), so a tool that lists or searches leaves out what a path rule keeps from the
 * model.
 *
 * The gate fails closed. An approver that throws, dies, interrupts itself, answers nonsense or
 * does not answer within `approvalTimeout`, an argument that throws when read, a call with too
 * many readings, a command too large to read: each denies the call and says why; a command that
 * could not be read fully (`sh -c "$CMD"`) is decided as any command a rule names, and its
 * denial says so. The gate never answers a call as failed, so the model is never told that a
 * call it was denied may have run.
 *
 * @since 0.1.0
 */
import { Execute, Outcome } from "@agent-harness/executor"
import { PathGuard, Render, Tool } from "@agent-harness/tool-schema"
import { Duration, Effect, Exit, type Layer, Option, Result, Semaphore } from "effect"
import * as Approver from "./Approver.ts"
import * as Decided from "./Decided.ts"
import * as Messages from "./Messages.ts"
import * as Policy from "./Policy.ts"
import * as Untrusted from "./Untrusted.ts"

/**
 * What the gate enforces.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The policy (checked by `make`). */
  readonly policy: Policy.Policy
  /**
   * Mark the text of every result a tool produced as untrusted data (`Untrusted.mark`); add
   * `Untrusted.notice` to your system prompt. Default `false`.
   */
  readonly untrustedOutput?: boolean | undefined
  /**
   * How long an approver may take to answer before the call is denied (`no answer came in
   * time`): a duration longer than zero, or `Infinity` (wait for ever). Default
   * {@link defaultApprovalTimeout}. An invalid value fails `make` (`InvalidPolicy` at
   * `(approvalTimeout)`).
   */
  readonly approvalTimeout?: Duration.Input | undefined
}

/**
 * How long the gate waits for an approver by default: 10 minutes.
 *
 * @since 0.1.0
 */
export const defaultApprovalTimeout: Duration.Duration = Duration.minutes(10)

/** An approval timeout in milliseconds (`Infinity`: none), or `undefined` when it is invalid. */
const timeoutMillis = (input: unknown): number | undefined => {
  if (typeof input === "number" && Number.isNaN(input)) return undefined
  let millis: number
  try {
    millis = Duration.toMillis(Duration.fromInputUnsafe(input as Duration.Input))
  } catch {
    return undefined
  }
  return millis > 0 ? millis : undefined
}

/** A wait as people say it: `10 minutes`, `90 seconds`, `250 ms`. */
const waited = (millis: number): string => {
  if (millis % 60_000 === 0) return `${millis / 60_000} minute${millis === 60_000 ? "" : "s"}`
  if (millis % 1000 === 0) return `${millis / 1000} second${millis === 1000 ? "" : "s"}`
  return `${millis} ms`
}

type Answered = "yes" | "no" | "always" | "remembered"

/** An approver's answer, checked: anything that is not an `Answer` denies. */
const checkAnswer = (messages: Messages.Messages, out: unknown): Checked => {
  try {
    if (typeof out === "object" && out !== null) {
      const { answer, reason, by } = out as {
        readonly answer?: unknown
        readonly reason?: unknown
        readonly by?: unknown
      }
      const who = typeof by === "string" && by !== "" ? by : undefined
      if (answer === "yes" || answer === "always") return { answer, reason: undefined, by: who }
      if (answer === "no")
        return { answer, reason: typeof reason === "string" && reason !== "" ? reason : messages.refused, by: who }
    }
  } catch {
    // An answer that throws when read is no answer.
  }
  return { answer: "no", reason: messages.approverAnswered(Render.value(out)), by: undefined }
}

type Checked = {
  readonly answer: "yes" | "no" | "always"
  readonly reason: string | undefined
  readonly by?: string | undefined
}

/**
 * Asks the approver, guarded and bounded: a throw, a defect or a failure denies, with what it
 * was; so does an approver that interrupts itself (the caller's own interruption passes
 * through) or that does not answer within `millis` (`undefined`: no bound).
 */
const askGuarded = (
  approver: Approver.Approver,
  request: Approver.Request,
  messages: Messages.Messages,
  millis: number | undefined
): Effect.Effect<Checked> => {
  const asked = Effect.suspend((): Effect.Effect<unknown, unknown> => {
    const out: unknown = approver.ask(request)
    return Effect.isEffect(out)
      ? (out as Effect.Effect<unknown, unknown>)
      : Effect.die(new TypeError(`ask returned ${Render.value(out)} instead of an Effect`))
  }).pipe(
    Effect.map((out) => checkAnswer(messages, out)),
    Effect.catch((failure) =>
      Effect.succeed({ answer: "no" as const, reason: messages.approverFailed(Render.thrown(failure)) })
    ),
    Effect.catchDefect((defect) =>
      Effect.succeed({ answer: "no" as const, reason: messages.approverFailed(Render.thrown(defect)) })
    )
  )
  const bounded = millis === undefined ? Effect.asSome(asked) : Effect.timeoutOption(asked, Duration.millis(millis))
  // An interruption of the caller stops the fiber at `Effect.exit`; one that reaches the exit is
  // the approver interrupting itself.
  return Effect.map(
    Effect.exit(bounded),
    (exit): Checked =>
      Exit.isFailure(exit)
        ? { answer: "no", reason: messages.approverInterrupted }
        : Option.isNone(exit.value)
          ? { answer: "no", reason: messages.approvalTimedOut(waited(millis ?? 0)) }
          : exit.value.value
  )
}

const annotationsOf = (tool: Tool.Any): Tool.Annotations => {
  try {
    const annotations = tool.annotations
    return typeof annotations === "object" && annotations !== null ? annotations : Tool.defaultAnnotations
  } catch {
    // Unreadable annotations are no annotations: MCP's defaults, the most dangerous kind.
    return Tool.defaultAnnotations
  }
}

const problemText = (messages: Messages.Messages, problem: Policy.Problem): string => {
  switch (problem._tag) {
    case "Unreadable":
      return messages.unreadable(problem.field, problem.message)
    case "TooManyReadings":
      return messages.tooManyReadings(problem.readings, Policy.maxReadings)
    case "CommandTooLarge":
      return messages.commandTooLarge(problem.limit, problem.size, problem.max)
  }
}

/** The tool's field meanings, or none when they cannot be read. */
const meaningsOf = (tool: Tool.Any): Policy.Meanings => {
  try {
    return tool.fields
  } catch {
    return undefined
  }
}

/** Whether a tool declares what some of its fields mean (then an approver is told). */
const declares = (meanings: Policy.Meanings): meanings is Tool.FieldMeanings => {
  try {
    return typeof meanings === "object" && meanings !== null && Object.keys(meanings).length > 0
  } catch {
    return false
  }
}

/**
 * The path guard of a call the gate lets run: a path is allowed when the policy allows the same
 * call on it, or when it is one of the call's own paths (decided, and let through, already).
 * Each path is decided once per call.
 */
const guardOf = (
  policy: Policy.Compiled,
  call: Execute.Call,
  annotations: Tool.Annotations,
  meanings: Policy.Meanings
): PathGuard.PathGuard => {
  const verdicts = Policy.pathVerdicts(policy, call, annotations, meanings)
  if (verdicts === undefined) return { allows: () => false }
  const decided = new Map<string, boolean>()
  return {
    allows: (path) => {
      if (typeof path !== "string") return false
      const known = decided.get(path)
      if (known !== undefined) return known
      const allowed =
        verdicts.own.has(path) ||
        verdicts.own.has(Policy.normalizePath(path)) ||
        verdicts.verdict(path).decision === "allow"
      decided.set(path, allowed)
      return allowed
    }
  }
}

/**
 * The gate over a policy, as executor middleware. Fails with `InvalidPolicy` when the policy
 * does not decode (a policy built in code is checked like one read from a file).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Execute } from "@agent-harness/executor"
 * import { Gate } from "@agent-harness/permission"
 *
 * declare const program: Effect.Effect<void>
 * const guarded = Effect.gen(function* () {
 *   // Read-only tools run; anything else is denied: the model reads "not executed: denied: …".
 *   const gate = yield* Gate.make({
 *     policy: { rules: [{ annotations: { readOnly: true }, decision: "allow" }], default: "deny" }
 *   })
 *   return yield* program.pipe(Execute.withMiddleware(gate, "outside"))
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Execute.Middleware, Policy.InvalidPolicy> =>
  Effect.gen(function* () {
    const compiled = Policy.compile(options.policy)
    if (Result.isFailure(compiled)) return yield* compiled.failure
    const policy = compiled.success
    const timeout = options.approvalTimeout === undefined ? defaultApprovalTimeout : options.approvalTimeout
    let millis = timeoutMillis(timeout)
    if (millis === undefined) {
      return yield* new Policy.InvalidPolicy({
        path: "(approvalTimeout)",
        problem: `expected a duration longer than zero or Infinity, got ${Render.value(timeout)}`
      })
    }
    if (millis === Infinity) millis = undefined
    const untrusted = options.untrustedOutput === true
    // One question at a time; `always` answers, by rule and tool, for the gate's lifetime.
    const asking = yield* Semaphore.make(1)
    const always = new Set<string>()
    const middleware: Execute.Middleware = <R>(
      call: Execute.Call,
      tool: Tool.Any,
      run: Effect.Effect<Outcome.Outcome, never, R>
    ): Effect.Effect<Outcome.Outcome, never, R> =>
      Effect.gen(function* () {
        const messages = yield* Messages.current
        const { catalog } = yield* Execute.harness
        const annotations = annotationsOf(tool)
        const meanings = meaningsOf(tool)
        // `call.input` is the decoded value the tool runs with: decide on what runs.
        const verdict = Policy.decide(policy, call, annotations, meanings)
        // A command that could not be read fully: the reason says so, with the rule's own.
        const reason =
          verdict.opaque === undefined ? verdict.reason : messages.opaqueCommand(verdict.opaque, verdict.reason)
        const record = (
          allowed: boolean,
          answer: Answered | undefined,
          reason: string | undefined,
          by?: string | undefined
        ) =>
          Decided.event.record({
            type: "permission.decided",
            tool_use_id: call.id,
            name: call.name,
            ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
            decision: verdict.decision,
            ...(answer === undefined ? {} : { answer }),
            allowed,
            ...(reason === undefined ? {} : { reason }),
            ...(by === undefined ? {} : { by }),
            ...(allowed && untrusted ? { untrusted_output: true } : {})
          })
        const deny = (answer: Answered | undefined, reason: string, by?: string | undefined) =>
          Effect.as(record(false, answer, reason, by), Outcome.denied(call, reason, catalog))
        const allow = (answer: Answered | undefined, by?: string | undefined) => {
          const guarded = Effect.provideService(run, PathGuard.PathGuard, guardOf(policy, call, annotations, meanings))
          return Effect.andThen(
            record(true, answer, verdict.reason, by),
            untrusted ? Effect.map(guarded, Untrusted.mark) : guarded
          )
        }
        switch (verdict.decision) {
          case "deny":
            return yield* deny(
              undefined,
              verdict.problem !== undefined
                ? problemText(messages, verdict.problem)
                : (reason ?? messages.policyDenies(verdict.rule))
            )
          case "allow":
            return yield* allow(undefined)
          case "ask": {
            const key = `${verdict.rule ?? "default"}\u0000${call.name}`
            if (always.has(key)) return yield* allow("remembered")
            const approver = yield* Effect.service(Approver.Approver)
            const request: Approver.Request = {
              id: call.id,
              name: call.name,
              input: call.input,
              raw: call.raw,
              annotations,
              ...(declares(meanings) ? { fields: meanings } : {}),
              rule: verdict.rule,
              reason
            }
            // Another call of this tool may have been answered `always` while this one waited.
            const answered = yield* asking.withPermit(
              Effect.suspend(
                (): Effect.Effect<{
                  readonly answer: Answered
                  readonly reason: string | undefined
                  readonly by?: string | undefined
                }> =>
                  always.has(key)
                    ? Effect.succeed({ answer: "remembered", reason: undefined })
                    : askGuarded(approver, request, messages, millis)
              )
            )
            if (answered.answer === "no") return yield* deny("no", answered.reason ?? messages.refused, answered.by)
            if (answered.answer === "always") always.add(key)
            return yield* allow(answered.answer, answered.by)
          }
        }
      })
    return middleware
  })

/**
 * The gate as the executor's middleware, in front of `inner` middlewares (a journal) and of the
 * middleware already in use where the layer is built (it adds, never replaces: see
 * `Execute.layerMiddleware`): only the calls it lets through reach them.
 *
 * @example
 * ```ts
 * import { Journal } from "@agent-harness/idempotency"
 * import { Gate } from "@agent-harness/permission"
 *
 * declare const store: Journal.Store
 * const layer = Gate.layer({ policy: { rules: [{ annotations: { readOnly: true }, decision: "allow" }] } }, Journal.middleware(store))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (
  options: Options,
  ...inner: ReadonlyArray<Execute.Middleware>
): Layer.Layer<never, Policy.InvalidPolicy> =>
  Execute.layerMiddleware(
    Effect.map(make(options), (gate) => Execute.compose(gate, ...inner)),
    "outside"
  )
