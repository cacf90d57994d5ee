/** The journal's lines as Schemas, and reading a journal's text (pure). */
import { Usage } from "@agent-harness/executor"
import { Result, Schema } from "effect"
import type { TrialRecord } from "../TrialRecord.ts"

/** The header line. */
export const Header = Schema.Struct({
  type: Schema.Literal("trials.journal"),
  format: Schema.Literal(1),
  model: Schema.String,
  trials: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  variants: Schema.Array(Schema.String),
  run: Schema.optionalKey(Schema.String)
})

const Failure = Schema.Struct({ kind: Schema.String, message: Schema.String })

/** A finished trial's line. */
export const Trial = Schema.Struct({
  type: Schema.Literal("trial"),
  file: Schema.String,
  digest: Schema.String,
  variant: Schema.String,
  index: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  passed: Schema.Boolean,
  stop: Schema.NullOr(Schema.String),
  failures: Schema.Array(Failure),
  usage: Usage.Usage,
  cost: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  durationMs: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)),
  trace: Schema.optionalKey(Schema.String),
  scenario: Schema.optionalKey(Schema.String),
  captureError: Schema.optionalKey(Schema.String),
  runner: Schema.optionalKey(Schema.String)
})

const decodeHeader = Schema.decodeUnknownResult(Header)
const decodeTrial = Schema.decodeUnknownResult(Trial)

const parse = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(JSON.parse(text))
  } catch {
    return Result.fail("not JSON")
  }
}

const firstLine = (message: string): string => message.split("\n").join(" ")

/** One trial line's text read back as a record, or what is wrong with it. */
export const trial = (text: string): Result.Result<TrialRecord, string> => {
  const json = parse(text)
  if (Result.isFailure(json)) return Result.fail(json.failure)
  return Result.match(decodeTrial(json.success), {
    onFailure: (error) => Result.fail(`not a trial line: ${firstLine(error.message)}`),
    onSuccess: ({ type: _type, ...record }) => Result.succeed(record)
  })
}

/** A header's fields. */
export type HeaderFields = Omit<typeof Header.Type, "type" | "format">

/** What a journal's text holds, or the first problem (with its 1-based line number). */
export type Read =
  | {
      readonly _tag: "Read"
      readonly header: HeaderFields | undefined
      readonly records: ReadonlyArray<TrialRecord>
      /** The length in characters of the text that holds only whole, good lines. */
      readonly kept: number
    }
  | { readonly _tag: "Malformed"; readonly line: number; readonly problem: string }

/**
 * Reads a journal's text: the header, then each trial line. The last line, when it does not
 * read (a write cut short), is dropped; any other bad line is `Malformed`.
 */
export const read = (text: string): Read => {
  const lines = text.split("\n")
  const records: Array<TrialRecord> = []
  let header: HeaderFields | undefined
  let offset = 0
  let kept = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ""
    const end = offset + line.length + (i < lines.length - 1 ? 1 : 0)
    const isLast = lines.slice(i + 1).every((rest) => rest.trim() === "")
    if (line.trim() === "") {
      offset = end
      if (!isLast) kept = end
      continue
    }
    const json = parse(line)
    const problem: string | undefined = Result.isFailure(json)
      ? json.failure
      : header === undefined
        ? Result.match(decodeHeader(json.success), {
            onFailure: (error) => `not a journal header: ${firstLine(error.message)}`,
            onSuccess: (decoded) => {
              header = {
                model: decoded.model,
                trials: decoded.trials,
                variants: decoded.variants,
                ...(decoded.run === undefined ? {} : { run: decoded.run })
              }
              return undefined
            }
          })
        : Result.match(decodeTrial(json.success), {
            onFailure: (error) => `not a trial line: ${firstLine(error.message)}`,
            onSuccess: (decoded) => {
              const { type: _type, ...record } = decoded
              records.push(record)
              return undefined
            }
          })
    // A bad last line is a write cut short (kill -9): dropped; its good predecessors are kept.
    if (problem !== undefined) {
      if (isLast && i === lines.length - 1) return { _tag: "Read", header, records, kept }
      return { _tag: "Malformed", line: i + 1, problem }
    }
    offset = end
    kept = end
  }
  return { _tag: "Read", header, records, kept }
}
