/**
 * The journal keys on what runs, over both stores: the decoded input the tool gets, not the raw
 * one the model sent. A call whose raw input differs only by what the schema normalizes (a trim,
 * a case, a default, a `decodeTo` transform) is the same call, replayed, never run twice; a
 * different decoded input under the same id is refused.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Execute, type Outcome } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema, SchemaGetter, type Scope } from "effect"
import { Journal, MemoryStore, SqliteStore } from "../src/index.ts"
import { isoDate, lowerCased } from "../../executor/test/fixtures/decoding.ts"

const temp = mkdtempSync(join(tmpdir(), "idempotency-what-runs-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))
let files = 0

const backends: ReadonlyArray<{
  readonly name: string
  readonly store: Effect.Effect<Journal.Store, Journal.JournalError, Scope.Scope>
}> = [
  { name: "MemoryStore", store: MemoryStore.make },
  {
    name: "SqliteStore",
    store: Effect.suspend(() => {
      files += 1
      return SqliteStore.make(join(temp, `journal-${files}.sqlite`))
    })
  }
]

/** Not idempotent tools (the default annotations) that record the input each run had. */
const ran: Array<unknown> = []
const recording = <P extends Tool.Parameters>(name: string, parameters: P) =>
  Tool.make(name, {
    description: name,
    parameters,
    run: (input) => {
      ran.push(input)
      return `ran ${ran.length}`
    }
  })

/** A value class a `decodeTo` produces: `Canonical` cannot encode it, the schema can. */
class Amount {
  readonly cents: bigint
  constructor(cents: bigint) {
    this.cents = cents
  }
}

const tools = Toolset.make(
  recording("trim", Schema.Struct({ path: Schema.Trim })),
  recording("lower", Schema.Struct({ path: lowerCased })),
  recording(
    "defaulted",
    Schema.Struct({
      path: Schema.String,
      mode: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("append")))
    })
  ),
  recording("dated", Schema.Struct({ at: isoDate })),
  recording(
    "charge",
    Schema.Struct({
      amount: Schema.String.pipe(
        Schema.decodeTo(Schema.instanceOf(Amount), {
          decode: SchemaGetter.transform((s: string) => new Amount(BigInt(s.trim()))),
          encode: SchemaGetter.transform((a: Amount) => a.cents.toString())
        })
      )
    })
  )
)

const run = (store: Journal.Store, calls: ReadonlyArray<Toolset.RawCall>) =>
  Effect.forEach(calls, (c) => Execute.execute(tools, c)).pipe(
    Effect.provideService(Execute.Middleware, Journal.middleware(store))
  )

const tags = (outcomes: ReadonlyArray<Outcome.Outcome>) => outcomes.map((o) => o._tag)

for (const backend of backends) {
  describe(`the journal over ${backend.name} keys on the decoded input`, () => {
    const cases: ReadonlyArray<readonly [string, unknown, unknown, unknown]> = [
      ["trim", { path: " notes/a " }, { path: "notes/a" }, { path: "notes/b" }],
      ["lower", { path: "NOTES/A" }, { path: "notes/a" }, { path: "notes/b" }],
      ["defaulted", { path: "a" }, { path: "a", mode: "append" }, { path: "a", mode: "replace" }],
      ["dated", { at: "2026-01-02T03:04:05Z" }, { at: "2026-01-02T03:04:05.000Z" }, { at: "2027-01-01T00:00:00Z" }],
      ["charge", { amount: " 150" }, { amount: "150" }, { amount: "151" }]
    ]
    for (const [name, first, same, other] of cases) {
      it.effect(
        `${name}: a raw input that differs only by what the schema normalizes replays; another is refused`,
        () =>
          Effect.scoped(
            Effect.gen(function* () {
              ran.length = 0
              const store = yield* backend.store
              const outcomes = yield* run(store, [
                { id: "c1", name, input: first },
                { id: "c1", name, input: same },
                { id: "c1", name, input: other }
              ])
              assert.deepStrictEqual(tags(outcomes), ["Succeeded", "Replayed", "Refused"])
              assert.strictEqual(ran.length, 1)
              const entries = yield* store.entries
              assert.strictEqual(entries.length, 1)
            })
          )
      )
    }

    it.effect("what is recorded is the decoded input (the schema's encoding where Canonical cannot encode it)", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* backend.store
          yield* run(store, [
            { id: "t", name: "trim", input: { path: "  x  " } },
            { id: "d", name: "defaulted", input: { path: "a" } },
            { id: "c", name: "charge", input: { amount: " 7" } }
          ])
          const entries = yield* store.entries
          assert.deepStrictEqual(
            entries.map((e) => e.input),
            [{ path: "x" }, { mode: "append", path: "a" }, { amount: "7" }]
          )
        })
      )
    )
  })
}

describe("Journal.recordedInput", () => {
  it("a value neither Canonical nor the schema can encode is refused, naming what", () => {
    const tool = recording("opaque", Schema.Struct({ n: Schema.BigInt }))
    const out = Journal.recordedInput(tool, { n: 1n })
    assert.isTrue(Result.isFailure(out))
    if (Result.isFailure(out)) assert.include(out.failure.message, "bigint")
  })
})
