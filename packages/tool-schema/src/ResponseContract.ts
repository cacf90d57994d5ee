/**
 * The tool-response contract: a backend that answers with a status envelope
 * `{ status, error_code?, content? }` succeeded only when `status` is the ok value; otherwise it
 * failed with `error_code` (or `"UNKNOWN"`) and `message` (the content, or `""`). The verdict
 * comes from the structured status, never from the text of the content, and an empty result
 * with status ok is a valid answer.
 *
 * Which parser the harness uses is an Effect service, so variants of a harness (the buggy
 * `before` parser and the `fixed` contract) are layers.
 *
 * @since 0.1.0
 */
import { Context, Schema } from "effect"
import { renderValue } from "./Tool.ts"

/**
 * What a parser makes of a response.
 *
 * @since 0.1.0
 */
export const Parsed: Schema.Union<
  readonly [
    Schema.Struct<{ readonly ok: Schema.Literal<true>; readonly answer: Schema.Unknown }>,
    Schema.Struct<{
      readonly ok: Schema.Literal<false>
      readonly error_code: Schema.String
      readonly message: Schema.String
    }>
  ]
> = Schema.Union([
  Schema.Struct({ ok: Schema.Literal(true), answer: Schema.Unknown }),
  Schema.Struct({ ok: Schema.Literal(false), error_code: Schema.String, message: Schema.String })
])

/**
 * What a parser makes of a response: `{ ok: true, answer }`, or `{ ok: false, error_code,
 * message }` for a backend that reported a failure.
 *
 * @since 0.1.0
 */
export type Parsed = typeof Parsed.Type

/**
 * A response parser: a tool backend's raw answer → `Parsed`.
 *
 * @since 0.1.0
 */
export type Parser = (response: unknown) => Parsed

/**
 * The envelope's field names and the status value that means success.
 *
 * @since 0.1.0
 */
export interface Fields {
  /** The field that holds the status (`status`). */
  readonly status: string
  /** The status value that means success (`"ok"`); compared with `===`. */
  readonly ok: string | number | boolean
  /** The field that holds the error code of a failure (`error_code`). */
  readonly errorCode: string
  /** The field that holds the answer, or a failure's message (`content`). */
  readonly content: string
}

/** `status`, `"ok"`, `error_code`, `content`. @since 0.1.0 */
export const defaultFields: Fields = { status: "status", ok: "ok", errorCode: "error_code", content: "content" }

const field = (response: unknown, name: string): unknown =>
  typeof response === "object" && response !== null && !Array.isArray(response)
    ? (response as Record<string, unknown>)[name]
    : undefined

const code = (value: unknown): string =>
  typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : "UNKNOWN"

const text = (value: unknown): string => (value === undefined || value === null ? "" : renderValue(value))

/**
 * The contract: success only when the status field holds the ok value. A response that is not
 * an object has no status, so it is a failure (`UNKNOWN`). An ok response without content
 * answers `null`, as Python reads it (`response.get("content")` is `None`), so the
 * parsed result is the same JSON in both.
 *
 * @since 0.1.0
 */
export const contract = (fields: Partial<Fields> = {}): Parser => {
  const f = { ...defaultFields, ...fields }
  return (response) =>
    field(response, f.status) === f.ok
      ? { ok: true, answer: field(response, f.content) ?? null }
      : { ok: false, error_code: code(field(response, f.errorCode)), message: text(field(response, f.content)) }
}

/**
 * The `before` parser, kept to show the bug the contract fixes: a response with content is taken as
 * the answer, whatever its status says. Do not use it; it exists for regression demos.
 *
 * @since 0.1.0
 */
export const contentPresent = (fields: Partial<Fields> = {}): Parser => {
  const f = { ...defaultFields, ...fields }
  return (response) => {
    const content = field(response, f.content)
    return content !== undefined && content !== null
      ? { ok: true, answer: content }
      : { ok: false, error_code: code(field(response, f.errorCode)), message: "" }
  }
}

/**
 * The parser the executor applies to tools whose backend answers with an envelope (`envelope:
 * true` on the tool). The contract unless you provide another.
 *
 * @since 0.1.0
 */
export const ResponseParser: Context.Reference<Parser> = Context.Reference<Parser>(
  "@agent-harness/tool-schema/ResponseParser",
  { defaultValue: () => contract() }
)
