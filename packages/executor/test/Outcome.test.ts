/**
 * Outcomes are TypeScript values: camelCase fields (`errorCode`, `isError`); the wire block the
 * model reads keeps the seeds' snake_case (`tool_use_id`, `is_error`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Outcome } from "../src/index.ts"

const replayed = (isError: boolean): Outcome.Outcome => ({
  _tag: "Replayed",
  id: "c1",
  name: "append",
  original: isError ? "Failed" : "Succeeded",
  isError,
  content: isError ? "disk full" : "appended"
})

describe("Outcome: camelCase values, snake_case wire blocks", () => {
  it("a Replayed outcome says isError; its tool_result says is_error", () => {
    expect(Outcome.isError(replayed(true))).toBe(true)
    expect(Outcome.isError(replayed(false))).toBe(false)
    expect(Outcome.toToolResult(replayed(true))).toStrictEqual({
      type: "tool_result",
      tool_use_id: "c1",
      content: "disk full",
      is_error: true
    })
  })

  it("a StatusError carries errorCode", () => {
    const failed: Outcome.Outcome = {
      _tag: "Failed",
      id: "c2",
      name: "catalog_search",
      failure: { _tag: "StatusError", errorCode: "TIMEOUT", message: "late" },
      content: "TIMEOUT: late"
    }
    expect(failed.failure._tag === "StatusError" && failed.failure.errorCode).toBe("TIMEOUT")
    expect(Outcome.toToolResult(failed).is_error).toBe(true)
  })
})
