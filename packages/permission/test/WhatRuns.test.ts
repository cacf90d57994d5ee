/**
 * Rules hold on what runs: the gate decides on the decoded input the tool gets (a trim, a
 * lower-case, a default, a `decodeTo` transform applied), reads `args` by what a field means
 * (`leer {ruta}` under a rule on `path`), and matches tool globs on the name or the
 * provider-safe alias (`anadir` for `añadir`). Tools record the input they ran with.
 */
import { Execute, Outcome } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, SchemaGetter } from "effect"
import { Gate, type Policy } from "../src/index.ts"
import { lowerCased } from "../../executor/test/fixtures/decoding.ts"

const ran: Array<{ readonly name: string; readonly input: unknown }> = []
const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
const recording = <P extends Tool.Parameters>(name: string, parameters: P, fields?: Tool.FieldMeanings) =>
  Tool.make(name, {
    description: name,
    parameters,
    annotations: readOnly,
    ...(fields === undefined ? {} : { fields }),
    run: (input) => {
      ran.push({ name, input })
      return "ran"
    }
  })

/** A path that decodes to a URL object: what `Canonical` and globs cannot read as text. */
const tools = Toolset.make(
  recording("trim", Schema.Struct({ path: Schema.Trim })),
  recording("lower", Schema.Struct({ path: lowerCased })),
  recording(
    "defaulted",
    Schema.Struct({ path: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("secrets/k"))) })
  ),
  recording(
    "decoded",
    Schema.Struct({
      path: Schema.String.pipe(
        Schema.decodeTo(Schema.String, {
          decode: SchemaGetter.transform((s: string) => s.replace(/^file:\/\/\/?/, "")),
          encode: SchemaGetter.transform((s: string) => `file:///${s}`)
        })
      )
    })
  ),
  recording("leer", Schema.Struct({ ruta: Schema.String }), { ruta: "path" }),
  recording("añadir", Schema.Struct({ ruta: Schema.String, texto: Schema.String }), { ruta: "path", texto: "content" })
)

const policy: Policy.Policy = {
  rules: [{ args: { path: "secrets/**" }, decision: "deny", reason: "secrets stay secret" }],
  default: "allow"
}

const behind = (p: Policy.Policy, calls: ReadonlyArray<Toolset.RawCall>) =>
  Effect.gen(function* () {
    ran.length = 0
    const gate = yield* Gate.make({ policy: p })
    const outcomes = yield* Effect.forEach(calls, (c) => Execute.execute(tools, c)).pipe(
      Effect.provideService(Execute.Middleware, gate)
    )
    return { outcomes, ran: [...ran] }
  })

describe("the gate decides on the decoded input", () => {
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ["trim", { path: " secrets/k" }],
    ["lower", { path: "SECRETS/K" }],
    ["defaulted", {}],
    ["decoded", { path: "file:///secrets/k" }]
  ]
  for (const [name, input] of cases) {
    it.effect(`${name}: a raw input that only decodes to a denied path is denied, and nothing runs`, () =>
      Effect.gen(function* () {
        const { outcomes, ran } = yield* behind(policy, [{ id: "c1", name, input }])
        assert.isTrue(Outcome.isDenied(outcomes[0] as Outcome.Outcome))
        assert.strictEqual(outcomes[0]?.content, "not executed: denied: secrets stay secret")
        assert.deepStrictEqual(ran, [])
      })
    )
  }

  it.effect("an allowed call runs with exactly the input the gate decided on", () =>
    Effect.gen(function* () {
      const { outcomes, ran } = yield* behind(policy, [{ id: "c1", name: "trim", input: { path: "  notes/a " } }])
      assert.strictEqual(outcomes[0]?._tag, "Succeeded")
      assert.deepStrictEqual(ran, [{ name: "trim", input: { path: "notes/a" } }])
    })
  )

  it.effect("a getter that answers differently on each read cannot change what the gate saw vs what ran", () =>
    Effect.gen(function* () {
      const flip = (first: string, then: string) => {
        let reads = 0
        return {
          get path(): string {
            reads += 1
            return reads === 1 ? first : then
          }
        }
      }
      // Allowed the first time it is read: it runs with that value, never with the second.
      const allowed = yield* behind(policy, [{ id: "c1", name: "trim", input: flip("notes/a", "secrets/k") }])
      assert.strictEqual(allowed.outcomes[0]?._tag, "Succeeded")
      assert.deepStrictEqual(allowed.ran, [{ name: "trim", input: { path: "notes/a" } }])
      // Denied the first time it is read: it never runs, whatever it says after.
      const denied = yield* behind(policy, [{ id: "c2", name: "trim", input: flip("secrets/k", "notes/a") }])
      assert.isTrue(Outcome.isDenied(denied.outcomes[0] as Outcome.Outcome))
      assert.deepStrictEqual(denied.ran, [])
    })
  )
})

describe("rules name what a field means", () => {
  it.effect("a rule on path applies to leer {ruta} and añadir {ruta}", () =>
    Effect.gen(function* () {
      const { outcomes, ran } = yield* behind(policy, [
        { id: "c1", name: "leer", input: { ruta: "secrets/k" } },
        { id: "c2", name: "añadir", input: { ruta: "notes/../secrets/k", texto: "x" } },
        { id: "c3", name: "leer", input: { ruta: "notes/a" } }
      ])
      assert.deepStrictEqual(
        outcomes.map((o) => Outcome.isDenied(o)),
        [true, true, false]
      )
      assert.deepStrictEqual(ran, [{ name: "leer", input: { ruta: "notes/a" } }])
    })
  )

  it.effect(
    "a rule on content reads texto; a rule on the field's own spelling no longer matches a tool that gives it a meaning",
    () =>
      Effect.gen(function* () {
        const p: Policy.Policy = {
          rules: [
            { args: { content: "*password*" }, decision: "deny", reason: "no passwords" },
            { args: { ruta: "**" }, decision: "deny", reason: "spelt" }
          ],
          default: "allow"
        }
        const { outcomes } = yield* behind(p, [
          { id: "c1", name: "añadir", input: { ruta: "notes/a", texto: "my password" } },
          { id: "c2", name: "añadir", input: { ruta: "notes/a", texto: "milk" } }
        ])
        assert.deepStrictEqual(
          outcomes.map((o) => o.content),
          ["not executed: denied: no passwords", "ran"]
        )
      })
  )
})

describe("tool globs match the provider-safe alias too", () => {
  it.effect("--deny anadir denies añadir; !añadir does not reach it through its alias", () =>
    Effect.gen(function* () {
      const alias = yield* behind({ rules: [{ tool: "anadir", decision: "deny" }], default: "allow" }, [
        { id: "c1", name: "añadir", input: { ruta: "a", texto: "x" } }
      ])
      assert.isTrue(Outcome.isDenied(alias.outcomes[0] as Outcome.Outcome))
      const negated = yield* behind({ rules: [{ tool: "!añadir", decision: "allow" }], default: "deny" }, [
        { id: "c1", name: "añadir", input: { ruta: "a", texto: "x" } },
        { id: "c2", name: "leer", input: { ruta: "a" } }
      ])
      assert.deepStrictEqual(
        negated.outcomes.map((o) => Outcome.isDenied(o)),
        [true, false]
      )
      assert.deepStrictEqual(alias.ran, [])
    })
  )
})
