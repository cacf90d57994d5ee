import { describe, expect, it } from "@effect/vitest"
import { Result, Schema, SchemaIssue } from "effect"
import { MessageCatalog, Tool, Toolset } from "../src/index.ts"

// A check on the whole input may name the field at fault (`{ path, issue }`): the violation is
// that field's, as for the field's own schema (checks backed by a JSON Schema validator do this).
const Signup = Tool.make("signup", {
  description: "Creates an account",
  parameters: Schema.Struct({
    password: Schema.String,
    confirm: Schema.String,
    invite: Schema.optionalKey(Schema.String)
  }).check(
    Schema.makeFilter((input: { readonly password: string; readonly confirm: string; readonly invite?: string }) => {
      if (input.password !== input.confirm) return { path: ["confirm"], issue: "the same text as 'password'" }
      if (input.password === "open") return { path: ["invite"], issue: new SchemaIssue.MissingKey(undefined) }
      if (input.invite === "") return { path: ["invite"], issue: new SchemaIssue.InvalidType(Schema.Finite.ast, "") }
      return undefined
    })
  ),
  run: () => "ok"
})
const tools = Toolset.make(Signup)

const text = (input: unknown): string => {
  const decoded = Toolset.decode(tools, { id: "c1", name: "signup", input })
  return Result.isFailure(decoded) ? MessageCatalog.notExecuted(MessageCatalog.english, decoded.failure) : "ok"
}

describe("a check on the whole input that names a field", () => {
  it("is reported at that field", () => {
    expect(text({ password: "a", confirm: "b" })).toBe(
      "not executed: field 'confirm' must be the same text as 'password'"
    )
    expect(text({ password: "open", confirm: "open" })).toBe("not executed: missing field 'invite'")
    expect(text({ password: "a", confirm: "a", invite: "" })).toBe("not executed: field 'invite' must be a number")
    expect(text({ password: "a", confirm: "a" })).toBe("ok")
  })

  it("comes after the fields' own violations", () => {
    expect(text({ password: 1, confirm: "b" })).toBe("not executed: field 'password' must be a string")
  })
})
