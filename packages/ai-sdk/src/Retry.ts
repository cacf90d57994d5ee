/**
 * Retries of model requests, never of tool calls: a request that was rate limited (429),
 * overloaded (529), failed on the server (5xx), timed out or conflicted (408, 409), never
 * reached the provider (a network error), got a reply cut off before its end, or got no
 * complete reply within the request timeout (`send`'s `timeout`: the request is aborted) is sent
 * again, the same request byte for byte, after an exponential backoff with jitter, or after
 * exactly what the provider asked for in `retry-after-ms` / `retry-after`. Nothing of a failed
 * attempt's reply was used, so sending it again is safe. Bounded twice: by attempts and by a
 * time budget that starts at the first failure (a wait that would end past the budget is not
 * started). Each retry is a `model.retried` event in the trace (`Retried`, declared here). A refused request (400, 401,
 * 403...) or a missing API key fails at once. A streamed turn (`AiSdkModel`'s `stream`) goes
 * through `send` only until its stream opens (the provider's 2xx answer): once a reply has begun
 * streaming, nothing of it is sent again. Requests given one shared `Backoff` (`send`'s
 * `backoff`) pause together: a 429, 503 or 529 of any of them holds them all.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Clock, Duration, Effect, Schedule, Schema } from "effect"
import * as Backoff from "./Backoff.ts"
import * as ProviderError from "./ProviderError.ts"

/**
 * A model request failed and is sent again after `delay_ms` (model requests only, never tool
 * calls): `attempt` is the attempt that failed, from 1; `status` its HTTP status, if any;
 * `shared` is `true` when the wait is longer than the request's own because a shared
 * `Backoff` is held (another request sharing it was refused for rate or load).
 *
 * Declared here, by the edge that retries (it was the executor's `Trace.ModelRetry` before
 * 0.2, `model.retry` in an old trace; `Trace.upgrade` reads it).
 *
 * @since 0.2.0
 */
export const Retried: Schema.Struct<{
  readonly type: Schema.Literal<"model.retried">
  readonly turn: Schema.Int
  readonly attempt: Schema.Int
  readonly delay_ms: Schema.Int
  readonly status: Schema.optionalKey<Schema.Int>
  readonly message: Schema.String
  readonly shared: Schema.optionalKey<Schema.Boolean>
}> = Schema.Struct({
  type: Schema.Literal("model.retried"),
  turn: Schema.Int,
  attempt: Schema.Int,
  delay_ms: Schema.Int,
  status: Schema.optionalKey(Schema.Int),
  message: Schema.String,
  shared: Schema.optionalKey(Schema.Boolean)
})

/** A `model.retried` event. @since 0.2.0 */
export type Retried = typeof Retried.Type

/**
 * The `model.retried` event as the trace takes it: `retried.record(event)` records one on the
 * current trace, `retried.is(entry)` tells one among a trace's entries.
 *
 * @since 0.2.0
 */
export const retried: Trace.Declared<typeof Retried> = Trace.declare(Retried)

/**
 * How model requests are retried. Every field is optional.
 *
 * @since 0.1.0
 */
export interface Policy {
  /** Attempts in all, the first included; default 4. `1` never retries. */
  readonly attempts?: number | undefined
  /**
   * Time for the retries: from the end of the first failed attempt, every wait and every further
   * attempt together; default 60 seconds. (The first attempt is bounded by the request timeout,
   * not by this.)
   */
  readonly budget?: Duration.Input | undefined
  /** The first backoff, doubled after each retry (with ±20% jitter); default 1 second. */
  readonly base?: Duration.Input | undefined
  /** The longest backoff (a provider's `retry-after` is honoured even when longer); default 20 seconds. */
  readonly maxDelay?: Duration.Input | undefined
}

/**
 * The policy used when none is given: 4 attempts within 60 seconds, backoff from 1 second up
 * to 20.
 *
 * @since 0.1.0
 */
export const defaults: {
  readonly attempts: number
  readonly budget: Duration.Duration
  readonly base: Duration.Duration
  readonly maxDelay: Duration.Duration
} = {
  attempts: 4,
  budget: Duration.seconds(60),
  base: Duration.seconds(1),
  maxDelay: Duration.seconds(20)
}

/**
 * Never retry: one attempt.
 *
 * @since 0.1.0
 */
export const none: Policy = { attempts: 1 }

const millisOf = (input: Duration.Input | undefined, fallback: Duration.Duration, option: string): number => {
  if (input === undefined) return Duration.toMillis(fallback)
  let ms: number
  try {
    ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  } catch {
    ms = Number.NaN
  }
  if (!(ms >= 0)) throw new RangeError(`Retry: '${option}' must be a duration of at least zero, got ${String(input)}`)
  return ms
}

/**
 * The request timeout used when none is given: 10 minutes for the whole reply, the bound the
 * official OpenAI and Anthropic SDKs give a request. A reply that is not streamed comes whole:
 * its headers and its body arrive once the model has finished, so a long generation (many
 * thousands of output tokens, long reasoning) sends nothing for minutes, and an idle timer
 * between bytes would cut it off; the bound has to be on the whole reply. Set a shorter one for
 * short replies (`maxOutputTokens` of a few thousand).
 *
 * @since 0.1.0
 */
export const defaultTimeout: Duration.Duration = Duration.minutes(10)

/**
 * A request timeout in milliseconds: `defaultTimeout` when not given, `undefined` (no timeout)
 * for an infinite duration; throws a `RangeError` naming the option when it is not a duration
 * greater than zero.
 *
 * @since 0.1.0
 */
export const timeoutOf = (input: Duration.Input | undefined, option = "requestTimeout"): number | undefined => {
  if (input === undefined) return Duration.toMillis(defaultTimeout)
  let ms: number
  try {
    ms = Duration.toMillis(Duration.fromInputUnsafe(input))
  } catch {
    ms = Number.NaN
  }
  if (!(ms > 0)) throw new RangeError(`'${option}' must be a duration greater than zero, got ${String(input)}`)
  return Number.isFinite(ms) ? ms : undefined
}

/**
 * A policy with every field filled in and checked; throws a `RangeError` naming the field when
 * one is not a duration or `attempts` is not a whole number of at least 1.
 *
 * @since 0.1.0
 */
export const resolve = (
  policy: Policy | undefined
): { readonly attempts: number; readonly budget: number; readonly base: number; readonly maxDelay: number } => {
  const attempts = policy?.attempts ?? defaults.attempts
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`Retry: 'attempts' must be a whole number of at least 1, got ${String(attempts)}`)
  }
  return {
    attempts,
    budget: millisOf(policy?.budget, defaults.budget, "budget"),
    base: millisOf(policy?.base, defaults.base, "base"),
    maxDelay: millisOf(policy?.maxDelay, defaults.maxDelay, "maxDelay")
  }
}

/**
 * Runs one model request (`send` is called once per attempt, with the attempt's abort signal)
 * under the policy; `turn` names the model call in the trace's `model.retried` events; `timeout`
 * (milliseconds, none when `undefined` or infinite) bounds each attempt, from sending to the
 * last byte of the reply: an attempt past it is aborted and is a transient failure. Fails with
 * a typed `ProviderError`: the final one at once, `ProviderUnavailable` when a transient
 * failure outlasts the policy, `ProviderTimeout` when the last attempt timed out. Interrupting
 * it aborts the request in flight.
 *
 * With a `backoff` (shared with other requests, see `Backoff`): every attempt, the first
 * included, waits first until the backoff's hold has passed; a 429, 503 or 529 holds it for
 * what the provider asked in `retry-after-ms` / `retry-after`, else for this request's own
 * backoff delay. The wait before a retry is the longer of the request's own delay and the
 * hold, and counts in the retry budget as any wait does (a hold that would end past the budget
 * is not waited for: the request fails as when `retry-after` asks too much). The wait before a
 * first attempt counts in nothing: the retry budget starts at the first failure and the
 * request timeout when the request is sent, so another request's refusal never fails a
 * request that has not been sent yet, it only delays it.
 *
 * @since 0.1.0
 */
export const send = <A>(options: {
  readonly provider: string
  readonly policy: ReturnType<typeof resolve>
  readonly turn: number
  readonly timeout?: number | undefined
  readonly backoff?: Backoff.Backoff | undefined
  readonly send: (signal: AbortSignal) => PromiseLike<A>
}): Effect.Effect<A, ProviderError.ProviderError> => {
  const { provider, policy, turn, backoff } = options
  const timeout =
    options.timeout === undefined || !Number.isFinite(options.timeout) ? undefined : Math.max(0, options.timeout)
  let attempts = 0
  let timeouts = 0
  const request = Effect.suspend(() =>
    Effect.tryPromise({
      try: (signal) => options.send(signal),
      catch: (error) => ProviderError.classify(provider, error, Date.now())
    })
  )
  const timedOut = (ms: number): ProviderError.Transient => ({
    _tag: "Transient",
    status: undefined,
    retryAfterMs: undefined,
    timeoutMs: ms,
    detail: `no complete reply within ${ProviderError.showMillis(ms)} (the request was aborted)`
  })
  const timed = Effect.suspend(() => {
    attempts++
    return timeout === undefined
      ? request
      : Effect.timeoutOrElse(request, {
          duration: timeout,
          orElse: () =>
            Effect.suspend(() => {
              timeouts++
              return Effect.fail(timedOut(timeout))
            })
        })
  })
  // A shared hold is waited out before the attempt is sent, outside its timeout.
  const attempt = backoff === undefined ? timed : Effect.andThen(backoff.wait, timed)
  // The schedule is built only once a request has failed transiently: the first attempt, the
  // common case, costs one request and nothing more.
  const retryAfter = (first: ProviderError.Transient, start: number) => {
    let pastBudget: number | undefined
    /** Whether the last delay was lengthened by a shared hold. */
    let lengthened = false
    let replay: ProviderError.Transient | undefined = first
    const again = Effect.suspend(() => {
      if (replay === undefined) return attempt
      const failure = replay
      replay = undefined
      return Effect.fail(failure)
    })
    const schedule = Schedule.exponential(policy.base).pipe(
      Schedule.setInputType<ProviderError.ProviderError | ProviderError.Transient>(),
      Schedule.jittered,
      Schedule.modifyDelay(({ input, duration }) => {
        const own =
          input._tag === "Transient" && input.retryAfterMs !== undefined
            ? input.retryAfterMs
            : Math.min(Duration.toMillis(duration), policy.maxDelay)
        lengthened = false
        if (backoff === undefined || input._tag !== "Transient") return Effect.succeed(own)
        return Effect.andThen(
          Backoff.holds(input.status) ? backoff.hold(own) : Effect.void,
          Effect.map(Clock.currentTimeMillis, (now) => {
            const held = backoff.heldUntil() - now
            if (!(held > own)) return own
            lengthened = true
            return held
          })
        )
      }),
      Schedule.while(({ input, attempt, now, duration }) => {
        if (input._tag !== "Transient" || attempt >= policy.attempts) return false
        const wait = Duration.toMillis(duration)
        if (now - start + wait > policy.budget) {
          pastBudget = wait
          return false
        }
        return true
      }),
      Schedule.tap(({ input, attempt, duration }) =>
        input._tag === "Transient"
          ? retried.record({
              type: "model.retried",
              turn,
              attempt,
              delay_ms: Math.round(Duration.toMillis(duration)),
              ...(input.status === undefined ? {} : { status: input.status }),
              message: input.detail,
              ...(lengthened ? { shared: true } : {})
            })
          : Effect.void
      )
    )
    return again.pipe(
      Effect.retry(schedule),
      Effect.mapError((error): ProviderError.ProviderError => {
        if (error._tag !== "Transient") return error
        const budget =
          pastBudget === undefined
            ? ""
            : ` (the next try, in ${Math.round(pastBudget)} ms, would end past the retry budget of ${policy.budget} ms)`
        if (error.timeoutMs !== undefined) {
          const others = attempts - timeouts
          return new ProviderError.ProviderTimeout({
            provider,
            timeoutMs: error.timeoutMs,
            attempts,
            detail:
              `${others === 0 ? "" : `${others} other attempt${others === 1 ? "" : "s"} failed otherwise`}${budget}`.trim()
          })
        }
        return new ProviderError.ProviderUnavailable({
          provider,
          status: error.status,
          attempts,
          detail: `${error.detail}${budget}`,
          ...(error.cutOff === true ? { cutOff: true } : {})
        })
      })
    )
  }
  // The retry budget starts when the first attempt fails: a first attempt that ran long (up to
  // its timeout) leaves the retries their whole budget.
  return Effect.catchTag(attempt, "Transient", (error) =>
    Effect.flatMap(Clock.currentTimeMillis, (start) => retryAfter(error, start))
  )
}
