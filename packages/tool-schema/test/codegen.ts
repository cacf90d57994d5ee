/**
 * Parameters and inputs decoded both in the test process and, run as a script, under
 * `node --disallow-code-generation-from-strings`: there nothing is compiled, and the answers must
 * be the same. As a script it prints `{ compiled, answers }` as JSON.
 */
import { fileURLToPath } from "node:url"
import { Effect, Schema } from "effect"
import { Tool, Toolset } from "../src/index.ts"

/** A struct with every covered kind of field, nested ones included. */
export const parameters = Schema.Struct({
  path: Schema.String,
  limit: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  tags: Schema.Array(Schema.String),
  mode: Schema.Literals(["read", "write"]),
  opts: Schema.optional(Schema.Struct({ depth: Schema.Finite, follow: Schema.NullOr(Schema.Boolean) }))
})

/** Valid inputs, and one of each common mistake. */
export const cases: ReadonlyArray<unknown> = [
  { path: "a", tags: [], mode: "read" },
  { path: "a", limit: 3, tags: ["x"], mode: "write", opts: { depth: 1, follow: null } },
  { path: "a", tags: [], mode: "read", opts: null },
  { limit: 3, tags: [], mode: "read" },
  { path: 1, tags: [], mode: "read" },
  { path: "a", limit: 0, tags: [], mode: "read" },
  { path: "a", limit: 1.5, tags: [], mode: "read" },
  { path: "a", tags: ["x", 2], mode: "read" },
  { path: "a", tags: [], mode: "delete" },
  { path: "a", tags: [], mode: "read", extra: true },
  { path: "a", tags: [], mode: "read", opts: { depth: 1, follow: true, more: 1 } },
  { path: "a", tags: [], mode: "read", opts: { follow: true } },
  JSON.parse('{"path":"a","tags":[],"mode":"read","__proto__":{"polluted":true}}'),
  [],
  "a",
  null
]

const toolset = Toolset.make(Tool.make("t", { description: "t", parameters, run: () => Effect.void }))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entry = Toolset.entry(toolset, "t")
  if (entry === undefined) throw new Error("no entry")
  const answers = cases.map((input) => Toolset.decodeInput(entry, input))
  process.stdout.write(JSON.stringify({ compiled: entry.fast?.compiled !== undefined, answers }))
}
