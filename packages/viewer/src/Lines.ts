/**
 * JSON Lines as the viewer reads them: every line that parses is kept with its number, every
 * line that does not becomes a `Problem` naming the line, and reading goes on. Values are
 * decoded against the harness's own schemas leniently (fields a newer harness adds are kept,
 * not refused), and a value that does not match names its first bad JSON path, as scenario
 * files do (`ScenarioFile.firstProblem`).
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import { ScenarioFile } from "@agent-harness/scenario"
import { Result, type Schema, SchemaParser } from "effect"
import type * as Model from "./Model.ts"

/**
 * A line that parsed: its number (from 1) and its value. A value read from inside a whole JSON
 * file instead (the events of a `SessionResult`) has no line but the JSON path it sits at.
 *
 * @since 0.1.0
 */
export interface Line {
  /** The line number, from 1; `null` for a value inside a whole JSON file. */
  readonly line: number | null
  /** The JSON path of a value inside a whole JSON file. */
  readonly at?: string | undefined
  /** The parsed value. */
  readonly json: Model.Json
}

/**
 * Where a line is, in words: `line 7`, or the JSON path of a value inside a whole file.
 *
 * @since 0.1.0
 */
export const where = (line: Line): string => (line.line === null ? (line.at ?? "(root)") : `line ${line.line}`)

/**
 * A problem at a JSON path inside a line.
 *
 * @since 0.1.0
 */
export const problem = (line: Line, path: string, message: string): Model.Problem =>
  line.at === undefined
    ? { line: line.line, path, message }
    : {
        line: line.line,
        path: path === "(root)" ? line.at : path.startsWith("[") ? `${line.at}${path}` : `${line.at}.${path}`,
        message
      }

/**
 * The lines of a text that parsed, and a problem for each that did not.
 *
 * @since 0.1.0
 */
export interface Read {
  /** The lines that parsed, in order. */
  readonly lines: ReadonlyArray<Line>
  /** One problem per line that did not parse. */
  readonly problems: ReadonlyArray<Model.Problem>
}

/**
 * How deep a value may nest (objects and arrays, the line's value counting as 1). Deeper values
 * are refused: drawing or printing them would overflow the stack.
 *
 * @since 0.1.0
 */
export const maxDepth = 128

/** A value still to visit: how deep it is, and how it was reached (for the path). */
interface Visit {
  readonly value: Model.Json
  readonly depth: number
  readonly key: string | number
  readonly parent: Visit | undefined
}

const pathOf = (visit: Visit): ReadonlyArray<string | number> => {
  const path: Array<string | number> = []
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) path.unshift(at.key)
  return path
}

/** The path to the first value nested deeper than `maxDepth`, or `undefined`; without recursion. */
const tooDeep = (root: Model.Json): ReadonlyArray<string | number> | undefined => {
  if (typeof root !== "object" || root === null) return undefined
  const stack: Array<Visit> = [{ value: root, depth: 1, key: "", parent: undefined }]
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value, depth } = visit
    if (typeof value !== "object" || value === null) continue
    if (depth > maxDepth) return pathOf(visit)
    if (Array.isArray(value)) {
      const items: ReadonlyArray<Model.Json> = value
      for (let i = 0; i < items.length; i++) {
        const item = items[i] ?? null
        if (typeof item === "object" && item !== null)
          stack.push({ value: item, depth: depth + 1, key: i, parent: visit })
      }
    } else {
      for (const key in value) {
        const item = (value as { readonly [key: string]: Model.Json })[key] ?? null
        if (typeof item === "object" && item !== null) stack.push({ value: item, depth: depth + 1, key, parent: visit })
      }
    }
  }
  return undefined
}

/**
 * Reads JSON Lines: blank lines are skipped, `\r\n` endings and a leading byte order mark are
 * accepted, a line that is not JSON (or nests deeper than `maxDepth`) is a problem at `(line)`.
 *
 * @since 0.1.0
 */
export const read = (text: string): Read => {
  const lines: Array<Line> = []
  const problems: Array<Model.Problem> = []
  const all = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n")
  for (let i = 0; i < all.length; i++) {
    const raw = all[i] ?? ""
    if (raw.trim() === "") continue
    const line = i + 1
    let json: Model.Json
    try {
      // JSON.parse gives JSON values only.
      json = JSON.parse(raw) as Model.Json
    } catch (error) {
      problems.push({
        line,
        path: "(line)",
        message: `invalid JSON: ${error instanceof Error ? error.message : String(error)}`
      })
      continue
    }
    const deep = tooDeep(json)
    if (deep !== undefined) {
      problems.push({ line, path: ScenarioFile.pathText(deep), message: `nested deeper than ${maxDepth} levels` })
      continue
    }
    lines.push({ line, json })
  }
  return { lines, problems }
}

/**
 * The lines with every event as written today (`Trace.upgrade`): a trace written before the one
 * event grammar (`start`, `observation`, `session.start`...) reads as a new one.
 *
 * @since 0.2.0
 */
export const upgraded = (read: Read): Read => ({
  lines: read.lines.map((line) => ({ ...line, json: json(Trace.upgrade(line.json)) })),
  problems: read.problems
})

/**
 * Reads a whole text as one JSON value (a `SessionResult` file, pretty-printed), or `undefined`
 * when it is not one.
 *
 * @since 0.1.0
 */
export const whole = (text: string): Model.Json | undefined => {
  try {
    // JSON.parse gives JSON values only.
    const json = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text) as Model.Json
    return tooDeep(json) === undefined ? json : undefined
  } catch {
    return undefined
  }
}

/** Lenient: the first problem only; fields the schema does not name are ignored, not refused. */
const options = { errors: "first" } as const

/**
 * Decodes a value against a schema: the value, or the first bad JSON path and what is wrong.
 *
 * @since 0.1.0
 */
export const decode = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S
): ((json: unknown) => Result.Result<S["Type"], { readonly path: string; readonly problem: string }>) => {
  const decoder = SchemaParser.decodeUnknownResult(schema, options)
  return (json) => {
    const decoded = decoder(json)
    return Result.isSuccess(decoded)
      ? Result.succeed(decoded.success)
      : Result.fail(ScenarioFile.firstProblem(decoded.failure))
  }
}

/**
 * Whether a value is a JSON object (not an array, not `null`).
 *
 * @since 0.1.0
 */
export const isObject = (json: Model.Json | undefined): json is { readonly [key: string]: Model.Json } =>
  typeof json === "object" && json !== null && !Array.isArray(json)

/**
 * A value that came from JSON and went through a schema as `unknown`, as JSON again.
 *
 * @since 0.1.0
 */
export const json = (value: unknown): Model.Json =>
  // Every value the viewer decodes comes from JSON.parse; schemas keep `unknown` fields as they are.
  value as Model.Json

/**
 * An event the viewer does not know, or could not read, as a generic event.
 *
 * @since 0.1.0
 */
export const generic = (line: Line, problem?: string): Model.Generic => {
  const fields = isObject(line.json) ? line.json : { value: line.json }
  const type = typeof fields.type === "string" ? fields.type : "(no type)"
  const at = where(line)
  return problem === undefined ? { where: at, type, fields } : { where: at, type, fields, problem }
}
