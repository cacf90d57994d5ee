/**
 * Tools shared by the tool-schema tests, and a deep value; the executor's hostile-input tests
 * use `Checked` and `nested` too.
 */
import { Effect, Result, Schema } from "effect"
import { Tool, Toolset, type Violation } from "../src/index.ts"

/** Two fields, a string then a finite number: the order tests use it. */
export const Pair = Tool.make("pair", {
  description: "A string a and a number b",
  parameters: Schema.Struct({ a: Schema.String, b: Schema.Finite }),
  run: ({ a, b }) => Effect.succeed(`${a}:${b}`)
})

/** Fields declared b first, then a: the declared order is not alphabetical. */
export const Reversed = Tool.make("reversed", {
  description: "Declared b then a",
  parameters: Schema.Struct({ b: Schema.String, a: Schema.String }),
  run: ({ a, b }) => `${b}${a}`
})

/** One field of each kind the diagnosis names. */
export const Kinds = Tool.make("kinds", {
  description: "Every kind of field",
  parameters: Schema.Struct({
    s: Schema.String,
    f: Schema.Finite,
    i: Schema.Int,
    flag: Schema.Boolean,
    tags: Schema.Array(Schema.String),
    mode: Schema.Literals(["a", "b"]),
    limit: Schema.optionalKey(Schema.Int),
    opts: Schema.optionalKey(Schema.Struct({ depth: Schema.Finite }))
  }),
  run: (input) => input
})

/** A valid input of `Kinds`, without its optional fields. */
export const kindsInput = { s: "x", f: 1.5, i: 2, flag: true, tags: ["p", "q"], mode: "a" } as const

export const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => Effect.succeed(`contents of ${path}`)
})

export const toolset = Toolset.make(Pair, Reversed, Kinds, Read)

/** Decodes a call of `toolset` and returns its violation, failing the test if it decoded. */
export const violationOf = (name: string, input: unknown): Violation.Violation => {
  const decoded = Toolset.decode(toolset, { id: "call-1", name, input })
  if (Result.isSuccess(decoded)) throw new Error(`expected a violation, got ${JSON.stringify(decoded.success.input)}`)
  return decoded.failure
}

/** A tool whose schema check throws on the path `boom` (`filter boom`) and passes any other. */
export const Checked = Tool.make("checked", {
  description: "A schema check that throws",
  parameters: Schema.Struct({
    path: Schema.String.check(
      Schema.makeFilter((path) => {
        if (path === "boom") throw new Error("filter boom")
        return true
      })
    )
  }),
  run: ({ path }) => path
})

/** An object nested `levels` deep: `{ a: { a: ... { a: {} } } }`. */
export const nested = (levels: number): Record<string, unknown> => {
  const root: Record<string, unknown> = {}
  let current = root
  for (let i = 0; i < levels; i++) {
    const next: Record<string, unknown> = {}
    current.a = next
    current = next
  }
  return root
}
