/**
 * The models `harness agent --model PROVIDER:MODEL` reaches, through the AI SDK's providers:
 * `anthropic` (the Messages API), `openai` (Chat Completions, which every OpenAI-compatible
 * server speaks: vLLM, Ollama, llama.cpp, OpenRouter) and `openai-responses` (OpenAI's
 * Responses API). The key comes from the provider's variable (`ANTHROPIC_API_KEY`,
 * `OPENAI_API_KEY`) and is required: without it nothing is sent. The base URL is `--base-url`,
 * else the provider's variable (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`), else the provider's
 * own; like the SDK's `baseURL`, it includes the API version (`http://localhost:11434/v1`).
 * `--request-timeout` bounds each request, from sending it to the reply's last byte (10 minutes
 * by default, as the providers' own SDKs): a request past it is aborted and retried, and when
 * the retries run out the run fails naming the timeout (`ProviderTimeout`).
 *
 * @since 0.1.0
 */
import type { AiSdkModel } from "@agent-harness/ai-sdk"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { Result } from "effect"

/**
 * The providers `--model` names.
 *
 * @since 0.1.0
 */
export const providers = ["anthropic", "openai", "openai-responses"] as const

/**
 * A provider `--model` names.
 *
 * @since 0.1.0
 */
export type Provider = (typeof providers)[number]

/**
 * Where each provider's key and base URL come from.
 *
 * @since 0.1.0
 */
export const variables: Readonly<Record<Provider, { readonly key: string; readonly baseUrl: string }>> = {
  anthropic: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  "openai-responses": { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" }
}

/**
 * A model to reach: its provider, its id, the key, and the base URL (`undefined`: the
 * provider's own).
 *
 * @since 0.1.0
 */
export interface Resolved {
  readonly provider: Provider
  readonly model: string
  readonly apiKey: string
  readonly baseUrl: string | undefined
  /** The request timeout in milliseconds (`--request-timeout`); `undefined`: the adapter's default. */
  readonly requestTimeoutMs?: number | undefined
}

const units: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000
}

/**
 * A `--request-timeout` as milliseconds: a number with a unit (`90s`, `2m`, `500ms`, `1.5h`; a
 * bare number is seconds), greater than zero and at most a day; else what is wrong, naming the
 * flag.
 *
 * @since 0.1.0
 */
export const requestTimeoutMs = (text: string): Result.Result<number, string> => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h)?\s*$/.exec(text)
  const ms = match === null ? Number.NaN : Number(match[1]) * (units[match[2] ?? "s"] ?? Number.NaN)
  if (!(ms >= 1 && ms <= 86_400_000)) {
    return Result.fail(
      `--request-timeout ${JSON.stringify(text)}: expected a duration greater than zero and at most a day, such as 90s, 2m or 500ms`
    )
  }
  return Result.succeed(Math.round(ms))
}

/**
 * An AI SDK language model (spec v4), as `AiSdkModel` takes it.
 *
 * @since 0.1.0
 */
export type LanguageModel = Parameters<typeof AiSdkModel.make>[0]

const isProvider = (name: string): name is Provider => (providers as ReadonlyArray<string>).includes(name)

/**
 * `--model`, the key and the base URL from the flags and the environment, or what is wrong (in
 * words, naming the flag or the variable): a `--model` that is not `PROVIDER:MODEL` with a
 * known provider, a missing or empty key (unless it is looked for elsewhere), a base URL that is not an `http(s)://` URL, a
 * `--request-timeout` that is not a duration (`requestTimeoutMs`).
 *
 * @since 0.1.0
 */
export const resolve = (
  model: string,
  baseUrl: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  requestTimeout?: string | undefined,
  options?: {
    /** The key is another process's (a runner's): not looked for here, `apiKey` is `""`. */
    readonly keyElsewhere?: boolean | undefined
  }
): Result.Result<Resolved, string> => {
  const colon = model.indexOf(":")
  const provider = colon < 0 ? model : model.slice(0, colon)
  const id = colon < 0 ? "" : model.slice(colon + 1)
  const known = providers.join(", ")
  if (!isProvider(provider)) {
    return Result.fail(
      `--model ${JSON.stringify(model)}: expected PROVIDER:MODEL, with PROVIDER one of ${known} (anthropic:claude-sonnet-4-5, openai:gpt-5-mini)`
    )
  }
  if (id.trim() === "") {
    return Result.fail(`--model ${JSON.stringify(model)}: no model after '${provider}:' (${provider}:<model id>)`)
  }
  const names = variables[provider]
  const apiKey = options?.keyElsewhere === true ? "" : env[names.key]
  if (options?.keyElsewhere !== true && (apiKey === undefined || apiKey.trim() === "")) {
    return Result.fail(
      `no API key for ${provider}: set ${names.key}${apiKey === undefined ? "" : " (it is empty)"}; nothing was sent`
    )
  }
  const url = baseUrl ?? (env[names.baseUrl] === "" ? undefined : env[names.baseUrl])
  if (url !== undefined) {
    const where = baseUrl === undefined ? names.baseUrl : "--base-url"
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return Result.fail(`${where} ${JSON.stringify(url)}: expected an http:// or https:// URL`)
    }
  }
  let timeout: number | undefined
  if (requestTimeout !== undefined) {
    const parsed = requestTimeoutMs(requestTimeout)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    timeout = parsed.success
  }
  return Result.succeed({
    provider,
    model: id,
    apiKey: apiKey ?? "",
    baseUrl: url,
    ...(timeout === undefined ? {} : { requestTimeoutMs: timeout })
  })
}

/**
 * The adapter's options of a resolved `--model`: its request timeout, when one was given.
 *
 * @since 0.1.0
 */
export const modelOptions = (resolved: Resolved): AiSdkModel.Options =>
  resolved.requestTimeoutMs === undefined ? {} : { requestTimeout: resolved.requestTimeoutMs }

/**
 * The AI SDK model of a resolved `--model`.
 *
 * @since 0.1.0
 */
export const languageModel = (resolved: Resolved): LanguageModel => {
  const settings = { apiKey: resolved.apiKey, ...(resolved.baseUrl === undefined ? {} : { baseURL: resolved.baseUrl }) }
  switch (resolved.provider) {
    case "anthropic":
      return createAnthropic(settings)(resolved.model)
    case "openai":
      return createOpenAI(settings).chat(resolved.model)
    case "openai-responses":
      return createOpenAI(settings).responses(resolved.model)
  }
}
