/**
 * What every row calls: one tool (`read`, a string and a finite number, answering a plain value),
 * a valid call and an invalid one (the required field missing), and A, the hand-written baseline.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Schema } from "effect"

export const Read = Tool.make("read", {
  description: "Reads up to `limit` bytes of a file",
  parameters: Schema.Struct({ path: Schema.String, limit: Schema.Finite }),
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: ({ path }) => `contents of ${path}`
})

export const toolset = Toolset.make(Read)

export interface Call {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

export const valid: Call = { id: "call_1", name: "read", input: { path: "notes/todo.txt", limit: 4096 } }

/** The required `path` is missing. */
export const invalid: Call = { id: "call_2", name: "read", input: { limit: 4096 } }

export const missingPathText = "not executed: missing field 'path'"

/** The tool's work, as the hand-written baseline calls it. */
const readFile = (path: string): string => `contents of ${path}`

export interface BaselineOutcome {
  readonly _tag: "NotExecuted" | "Succeeded" | "Failed"
  readonly id: string
  readonly name: string
  readonly content: string
}

/**
 * A: a hand-written `typeof` check of the input, `try`/`catch` around the tool, and the result
 * object the model's answer is built from.
 */
export const baseline = (call: Call): BaselineOutcome => {
  const input = call.input
  if (typeof input !== "object" || input === null) {
    return { _tag: "NotExecuted", id: call.id, name: call.name, content: "not executed: input must be an object" }
  }
  const { path, limit } = input as { readonly path?: unknown; readonly limit?: unknown }
  if (typeof path !== "string") return { _tag: "NotExecuted", id: call.id, name: call.name, content: missingPathText }
  if (typeof limit !== "number" || !Number.isFinite(limit)) {
    return {
      _tag: "NotExecuted",
      id: call.id,
      name: call.name,
      content: "not executed: field 'limit' must be a number"
    }
  }
  try {
    return { _tag: "Succeeded", id: call.id, name: call.name, content: readFile(path) }
  } catch (error) {
    return { _tag: "Failed", id: call.id, name: call.name, content: String(error) }
  }
}

/** Fails the run at once when a fixture does not do what the row claims to measure. */
export const check = (condition: boolean, what: string): void => {
  if (!condition) throw new Error(`bench fixture: ${what}`)
}
