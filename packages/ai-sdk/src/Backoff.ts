/**
 * One pause shared by many model requests: give the same `Backoff` to every model that talks
 * to one provider (`AiSdkModel.Options.backoff`, e.g. every trial of `harness test --trials`),
 * and when any of their requests is refused for rate or load, all of them hold off together
 * instead of each finding the limit for itself.
 *
 * A refusal that holds is HTTP 429 (rate limited), 529 (Anthropic's overloaded) or 503
 * (service unavailable: OpenAI's "engine is overloaded", and the status HTTP gives
 * `retry-after` to): each says the provider as a whole wants fewer requests, not that one
 * request went wrong. A 500, 502 or 504, a timeout, a network error or a cut-off reply is one
 * request's misfortune and does not hold the others (that request still retries on its own).
 * The hold lasts what the provider asked (`retry-after-ms` / `retry-after`), else the refused
 * request's own backoff delay (`Retry.Policy`). Holds only extend, never shorten. Every request
 * sharing it waits, before each attempt (first attempts included), until the hold has passed.
 * Time is Effect's `Clock`, so `TestClock` drives it in tests.
 *
 * @example
 * ```ts
 * import { AiSdkModel, Backoff } from "@agent-harness/ai-sdk"
 * import { anthropic } from "@ai-sdk/anthropic"
 *
 * const backoff = Backoff.make()
 * // every trial's model shares it: one 429 pauses them all
 * const layerOfTrial = () => AiSdkModel.layer(anthropic("claude-sonnet-4-5"), { backoff })
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"

/**
 * A pause shared by every model request given it (see the module). Made by `make`; its state
 * is its own (nothing global), so two `Backoff`s never hold each other.
 *
 * @since 0.1.0
 */
export interface Backoff {
  /**
   * The `Clock` time, in milliseconds since the epoch, until which requests sharing it wait;
   * `0` before any hold. Past times mean it is open.
   */
  readonly heldUntil: () => number
  /**
   * Holds every request sharing it until at least `delayMs` from now (`Clock` time); a hold
   * that would end sooner than the current one changes nothing. A `delayMs` that is not a
   * number of at least zero is taken as zero.
   */
  readonly hold: (delayMs: number) => Effect.Effect<void>
  /**
   * Waits until the hold has passed (at once when it is open), again if it was extended while
   * waiting; succeeds with the milliseconds waited. Interruptible.
   */
  readonly wait: Effect.Effect<number>
}

class Shared implements Backoff {
  #openAt = 0
  readonly heldUntil = (): number => this.#openAt
  readonly hold = (delayMs: number): Effect.Effect<void> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const until = now + (Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0)
      if (until > this.#openAt) this.#openAt = until
    })
  readonly wait: Effect.Effect<number> = Effect.suspend(() => this.#waitFrom(0))
  /** Sleeps until the hold's end as it is now, then looks again: a hold extended meanwhile is waited for too. */
  #waitFrom(waited: number): Effect.Effect<number> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const left = this.#openAt - now
      return left > 0 ? Effect.flatMap(Effect.sleep(left), () => this.#waitFrom(waited + left)) : Effect.succeed(waited)
    })
  }
}

/**
 * A new backoff, open (nothing held). Synchronous; share the one value among the models that
 * should pause together.
 *
 * @since 0.1.0
 */
export const make = (): Backoff => new Shared()

/**
 * Whether a value is a `Backoff` made by `make` (a look-alike object is not). Never throws,
 * not even on a hostile value (a `Proxy` whose traps throw).
 *
 * @since 0.1.0
 */
export const isBackoff = (u: unknown): u is Backoff => {
  try {
    return u instanceof Shared
  } catch {
    return false
  }
}

/**
 * Whether a refusal with this HTTP status holds a shared backoff: 429 (rate limited), 503
 * (service unavailable) and 529 (overloaded); any other status, or none, does not.
 *
 * @since 0.1.0
 */
export const holds = (status: number | undefined): boolean => status === 429 || status === 503 || status === 529

/** What a value is, in a message, read without touching it (no getter, no trap runs). */
const kindOf = (u: unknown): string => {
  if (u === null) return "null"
  if (Array.isArray(u)) return "an array"
  switch (typeof u) {
    case "object":
      return "an object that Backoff.make did not make"
    case "function":
      return "a function"
    case "string":
      return `the string ${JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u)}`
    default:
      return `${typeof u} ${String(u)}`
  }
}

/**
 * Checks an option that should be a `Backoff`: `undefined` (none) or a value `make` made.
 * Throws a `TypeError` naming the option (`<where>: 'backoff' must be …`) and what it got
 * otherwise.
 *
 * @since 0.1.0
 */
export const check = (u: unknown, where: string, option = "backoff"): void => {
  if (u === undefined || isBackoff(u)) return
  throw new TypeError(`${where}: '${option}' must be a Backoff (from Backoff.make()), got ${kindOf(u)}`)
}
