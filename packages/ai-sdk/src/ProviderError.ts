/**
 * Why a model request failed, typed: the loop fails with one of these (inside its `ModelError`)
 * and the message names the cause. A missing API key is found before any request; a rejected
 * one, a forbidden model and an invalid request fail at once (HTTP 400, 401, 403, 404, 413,
 * 422...); rate limits, overloads, server errors and network errors (a reply cut off before its
 * end included) are retried (see `Retry`) and end as `ProviderUnavailable` when the retries run
 * out; a request with no complete reply within its timeout is retried too and ends as
 * `ProviderTimeout`.
 *
 * @since 0.1.0
 */
import { APICallError, LoadAPIKeyError } from "@ai-sdk/provider"
import { type Cause, Data } from "effect"

const MissingApiKeyBase: new (args: {
  readonly provider: string
  readonly variable: string | undefined
  readonly message: string
}) => Cause.YieldableError & {
  readonly _tag: "MissingApiKey"
  readonly provider: string
  readonly variable: string | undefined
  readonly message: string
} = Data.TaggedError("MissingApiKey")

/**
 * No API key: the provider found none before sending anything. `variable` is the environment
 * variable it reads (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`) when it says so.
 *
 * @since 0.1.0
 */
export class MissingApiKey extends MissingApiKeyBase {}

/**
 * What a refused request says about its cause: the API key was rejected (401), the key may not
 * use this model or endpoint (403), or the request itself was refused (400, 404, 413, 422...).
 *
 * @since 0.1.0
 */
export type Refusal = "api_key_rejected" | "forbidden" | "invalid_request"

const RequestRejectedBase: new (args: {
  readonly provider: string
  readonly status: number
  readonly refusal: Refusal
  readonly detail: string
}) => Cause.YieldableError & {
  readonly _tag: "RequestRejected"
  readonly provider: string
  readonly status: number
  readonly refusal: Refusal
  readonly detail: string
} = Data.TaggedError("RequestRejected")

const refusals: Readonly<Record<Refusal, string>> = {
  api_key_rejected: "rejected the API key",
  forbidden: "does not let this API key use this model or endpoint",
  invalid_request: "refused the request"
}

/**
 * The provider refused the request; sending it again would not help, so it was not retried.
 * `detail` is what the provider said.
 *
 * @since 0.1.0
 */
export class RequestRejected extends RequestRejectedBase {
  /** The provider, what it refused, the HTTP status and what it said. */
  override get message(): string {
    return `${this.provider} ${refusals[this.refusal]} (HTTP ${this.status}): ${this.detail}`
  }
}

const ProviderUnavailableBase: new (args: {
  readonly provider: string
  readonly status: number | undefined
  readonly attempts: number
  readonly detail: string
  readonly cutOff?: boolean | undefined
}) => Cause.YieldableError & {
  readonly _tag: "ProviderUnavailable"
  readonly provider: string
  readonly status: number | undefined
  readonly attempts: number
  readonly detail: string
  readonly cutOff?: boolean | undefined
} = Data.TaggedError("ProviderUnavailable")

const attemptsOf = (attempts: number): string => (attempts === 1 ? "1 attempt" : `${attempts} attempts`)

/**
 * The provider stayed rate-limited, overloaded, failing (5xx) or unreachable through every
 * attempt the retry policy allowed (or asked to wait past its time budget), or a streamed reply
 * broke after its first part (a transient error event, a read that failed): a half-streamed turn
 * is never sent again, so that is one attempt. `status` is the last HTTP status, `undefined`
 * for a network error; `cutOff` is `true` when the last reply began (HTTP 2xx) but its body
 * ended before it was whole.
 *
 * @since 0.1.0
 */
export class ProviderUnavailable extends ProviderUnavailableBase {
  /** The provider, its last status (or `unreachable`, or a reply cut off), the attempts made and the last detail. */
  override get message(): string {
    const tries = attemptsOf(this.attempts)
    if (this.cutOff === true) return `${this.provider} cut its reply off before the end, after ${tries}: ${this.detail}`
    const what = this.status === undefined ? "unreachable" : `unavailable (HTTP ${this.status})`
    return `${this.provider} is ${what} after ${tries}: ${this.detail}`
  }
}

const ProviderTimeoutBase: new (args: {
  readonly provider: string
  readonly timeoutMs: number
  readonly attempts: number
  readonly detail: string
}) => Cause.YieldableError & {
  readonly _tag: "ProviderTimeout"
  readonly provider: string
  readonly timeoutMs: number
  readonly attempts: number
  readonly detail: string
} = Data.TaggedError("ProviderTimeout")

/**
 * Spells a number of milliseconds for people: `90 s`, `1500 ms`.
 *
 * @since 0.1.0
 */
export const showMillis = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`)

/**
 * The provider accepted the request but gave no complete reply within the request timeout
 * (`AiSdkModel.Options.requestTimeout`) on the last attempt the retry policy allowed: the
 * headers never came, or the body stalled. Each timed-out request was aborted; nothing of a
 * reply was used. `detail` says what the retries met, when it was not a timeout each time.
 *
 * @since 0.1.0
 */
export class ProviderTimeout extends ProviderTimeoutBase {
  /** The provider, the timeout, the attempts made and what the retries met. */
  override get message(): string {
    return `${this.provider} gave no complete reply within the request timeout of ${showMillis(this.timeoutMs)}, after ${attemptsOf(this.attempts)}${this.detail === "" ? "" : `: ${this.detail}`}`
  }
}

const ProviderFailureBase: new (args: {
  readonly provider: string
  readonly detail: string
  readonly cause?: unknown
}) => Cause.YieldableError & {
  readonly _tag: "ProviderFailure"
  readonly provider: string
  readonly detail: string
} = Data.TaggedError("ProviderFailure")

/**
 * Any other failure of the provider SDK (an answer it could not read, a setting it does not
 * support): not retried. `detail` is its message.
 *
 * @since 0.1.0
 */
export class ProviderFailure extends ProviderFailureBase {
  /** The provider and what its SDK said. */
  override get message(): string {
    return `${this.provider} failed: ${this.detail}`
  }
}

/**
 * Any typed failure of a model request.
 *
 * @since 0.1.0
 */
export type ProviderError = MissingApiKey | RequestRejected | ProviderUnavailable | ProviderTimeout | ProviderFailure

/**
 * A failure worth another attempt: rate limited (429), overloaded (529), a server error (5xx),
 * a timeout or conflict (408, 409), a network error (no status), a reply cut off before its end
 * (`cutOff`), or no complete reply within the request timeout (`timeoutMs`). `retryAfterMs` is
 * what the provider asked for in `retry-after-ms` or `retry-after`.
 *
 * @since 0.1.0
 */
export interface Transient {
  /** Discriminates it from the typed failures. */
  readonly _tag: "Transient"
  /** The HTTP status, `undefined` for a network error, a cut-off reply or a timeout. */
  readonly status: number | undefined
  /** `true` when a reply began (2xx) and its body ended, or broke, before it was whole. */
  readonly cutOff?: boolean | undefined
  /** The request timeout, when this attempt ran out of it (and was aborted). */
  readonly timeoutMs?: number | undefined
  /** How long the provider asked to wait, in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined
  /** What the provider or the network said. */
  readonly detail: string
}

/**
 * How long a provider asks to wait, from its response headers: `retry-after-ms` (milliseconds),
 * else `retry-after` (seconds, or an HTTP date, relative to `now`). `undefined` when it asks
 * nothing readable; never negative.
 *
 * @since 0.1.0
 */
export const retryAfterMs = (
  headers: Readonly<Record<string, string | undefined>> | undefined,
  now: number
): number | undefined => {
  if (headers === undefined) return undefined
  const header = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
    return undefined
  }
  const ms = header("retry-after-ms")
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const after = header("retry-after")?.trim()
  if (after === undefined || after === "") return undefined
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const retryableStatus = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500

const refusalOf = (status: number): Refusal =>
  status === 401 ? "api_key_rejected" : status === 403 ? "forbidden" : "invalid_request"

const variableIn = (message: string): string | undefined => /\b([A-Z][A-Z0-9_]*_API_KEY)\b/.exec(message)?.[1]

const messageOf = (error: unknown): string => {
  if (error instanceof Error) return error.message === "" ? error.name : error.message
  try {
    return String(error)
  } catch {
    return "an unreadable error"
  }
}

/** The network's error codes for a connection that broke (Node and undici). */
const brokenConnection = new Set([
  "ECONNRESET",
  "EPIPE",
  "ECONNABORTED",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_BODY_TIMEOUT",
  "ERR_STREAM_PREMATURE_CLOSE"
])

/** The chain of causes of an error, at most 8 deep (a cycle cannot loop), read without throwing. */
const causesOf = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  let current: unknown = error
  for (let i = 0; i < 8 && typeof current === "object" && current !== null && !chain.includes(current); i++) {
    chain.push(current)
    try {
      current = (current as { readonly cause?: unknown }).cause
    } catch {
      break
    }
  }
  return chain
}

const fieldOf = (u: unknown, key: "code" | "message"): unknown => {
  try {
    return (u as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** A body read that broke (undici's `terminated`, or a connection error code among the causes): what the causes said. */
const brokeWhileReading = (error: unknown): string | undefined => {
  const causes = causesOf(error).slice(1)
  const broke = causes.some((cause) => {
    const code = fieldOf(cause, "code")
    return (typeof code === "string" && brokenConnection.has(code)) || fieldOf(cause, "message") === "terminated"
  })
  if (!broke) return undefined
  return causes
    .map((cause) => fieldOf(cause, "message"))
    .filter((m): m is string => typeof m === "string" && m !== "")
    .join(": ")
}

/** A body that ends inside its JSON (nothing, or a prefix of a document): the connection closed early. */
const endsEarly = (body: unknown): boolean => {
  if (typeof body !== "string") return false
  const text = body.trim()
  if (text === "") return true
  try {
    JSON.parse(text)
    return false
  } catch (error) {
    const message = messageOf(error)
    if (/Unexpected end of JSON input|Unterminated string/.test(message)) return true
    const at = /at position (\d+)/.exec(message)
    return at !== null && Number(at[1]) >= text.length
  }
}

/**
 * What a failure of `doGenerate` means: a typed `ProviderError` that is final, or a `Transient`
 * one to retry. `provider` names the model's provider in messages (`anthropic.messages`).
 *
 * @since 0.1.0
 */
export const classify = (provider: string, error: unknown, now: number): ProviderError | Transient => {
  if (LoadAPIKeyError.isInstance(error)) {
    return new MissingApiKey({
      provider,
      variable: variableIn(error.message),
      message: `no API key for ${provider}: ${error.message}`
    })
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    if (status !== undefined && status >= 200 && status < 300) {
      // A reply began and did not arrive whole: nothing of it was used, so it may be asked again.
      const broke = brokeWhileReading(error)
      if (broke !== undefined || (error.message === "Invalid JSON response" && endsEarly(error.responseBody))) {
        return {
          _tag: "Transient",
          status: undefined,
          cutOff: true,
          retryAfterMs: undefined,
          detail: `the reply (HTTP ${status}) ended before it was whole${broke === undefined || broke === "" ? " (its JSON is incomplete)" : ` (${broke})`}`
        }
      }
    }
    if (status === undefined || retryableStatus(status)) {
      return {
        _tag: "Transient",
        status,
        retryAfterMs: retryAfterMs(error.responseHeaders, now),
        detail: error.message
      }
    }
    if (status >= 400)
      return new RequestRejected({ provider, status, refusal: refusalOf(status), detail: error.message })
    return new ProviderFailure({ provider, detail: error.message, cause: error })
  }
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return new ProviderFailure({
      provider,
      detail: `its SDK could not read the reply, nested too deep (${error.message})`,
      cause: error
    })
  }
  return new ProviderFailure({ provider, detail: messageOf(error), cause: error })
}
