/**
 * Retries of model requests, never of tool calls: a request that was rate limited (429),
 * overloaded (529), failed on the server (5xx), timed out or conflicted (408, 409) or never
 * reached the provider (a network error) is sent again, the same request byte for byte, after
 * an exponential backoff with jitter, or after exactly what the provider asked for in
 * `retry-after-ms` / `retry-after`. Bounded twice: by attempts and by a total time budget (a
 * wait that would end past the budget is not started). Each retry is a `model.retry` event in
 * the trace. A refused request (400, 401, 403...) or a missing API key fails at once.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { Clock, Duration, Effect, Schedule } from "effect"
import * as ProviderError from "./ProviderError.ts"

/**
 * How model requests are retried. Every field is optional.
 *
 * @since 0.1.0
 */
export interface Policy {
  /** Attempts in all, the first included; default 4. `1` never retries. */
  readonly attempts?: number | undefined
  /** Time for all attempts and waits together; default 60 seconds. */
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
 * under the policy; `turn` names the model call in the trace's `model.retry` events. Fails
 * with a typed `ProviderError`: the final one at once, `ProviderUnavailable` when a transient
 * failure outlasts the policy. Interrupting it aborts the request in flight.
 *
 * @since 0.1.0
 */
export const send = <A>(options: {
  readonly provider: string
  readonly policy: ReturnType<typeof resolve>
  readonly turn: number
  readonly send: (signal: AbortSignal) => PromiseLike<A>
}): Effect.Effect<A, ProviderError.ProviderError> => {
  const { provider, policy, turn } = options
  let attempts = 0
  const attempt = Effect.suspend(() => {
    attempts++
    return Effect.tryPromise({
      try: (signal) => options.send(signal),
      catch: (error) => ProviderError.classify(provider, error, Date.now())
    })
  })
  // The schedule is built only once a request has failed transiently: the first attempt, the
  // common case, costs one request and nothing more.
  const retryAfter = (first: ProviderError.Transient, start: number) => {
    let pastBudget: number | undefined
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
      Schedule.modifyDelay(({ input, duration }) =>
        Effect.succeed(
          input._tag === "Transient" && input.retryAfterMs !== undefined
            ? input.retryAfterMs
            : Math.min(Duration.toMillis(duration), policy.maxDelay)
        )
      ),
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
          ? Trace.record({
              type: "model.retry",
              turn,
              attempt,
              delay_ms: Math.round(Duration.toMillis(duration)),
              ...(input.status === undefined ? {} : { status: input.status }),
              message: input.detail
            })
          : Effect.void
      )
    )
    return again.pipe(
      Effect.retry(schedule),
      Effect.mapError((error) =>
        error._tag === "Transient"
          ? new ProviderError.ProviderUnavailable({
              provider,
              status: error.status,
              attempts,
              detail:
                pastBudget === undefined
                  ? error.detail
                  : `${error.detail} (the next try, in ${Math.round(pastBudget)} ms, would end past the retry budget of ${policy.budget} ms)`
            })
          : error
      )
    )
  }
  return Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.catchTag(attempt, "Transient", (error) => retryAfter(error, start))
  )
}
