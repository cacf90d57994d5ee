/**
 * Middleware sees the call as it will run: `input` is the decoded value the tool gets (a trim, a
 * lower-case, a default, a `decodeTo` transform applied), `raw` is what the model sent. The
 * model's input is read once, so a getter that answers differently on each read cannot show the
 * middleware one value and the tool another.
 */
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Execute } from "../src/index.ts"
import { isoDate, lowerCased } from "./fixtures/decoding.ts"

/** A tool that records the input it ran with. */
const recording = <P extends Tool.Parameters>(name: string, parameters: P) => {
  const ran: Array<unknown> = []
  const tool = Tool.make(name, {
    description: name,
    parameters,
    run: (input) => {
      ran.push(input)
      return "ok"
    }
  })
  return { tool, ran }
}

const trim = recording("trim", Schema.Struct({ path: Schema.Trim }))
const lower = recording("lower", Schema.Struct({ path: lowerCased }))
const withDefault = recording(
  "defaulted",
  Schema.Struct({ path: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("secrets/k"))) })
)
const dated = recording("dated", Schema.Struct({ at: isoDate }))
const tools = Toolset.make(trim.tool, lower.tool, withDefault.tool, dated.tool)

/** Executes `call` with a middleware that records what it was shown. */
const seen = (call: Toolset.RawCall) =>
  Effect.gen(function* () {
    const shown: Array<Execute.Call> = []
    const middleware: Execute.Middleware = (c, _tool, run) => {
      shown.push({ id: c.id, name: c.name, input: c.input, raw: c.raw })
      return run
    }
    const outcome = yield* Execute.execute(tools, call).pipe(Effect.provideService(Execute.Middleware, middleware))
    return { shown, outcome }
  })

describe("middleware sees the decoded input the tool runs with, and the raw one", () => {
  it.effect("Schema.Trim", () =>
    Effect.gen(function* () {
      trim.ran.length = 0
      const { shown } = yield* seen({ id: "c1", name: "trim", input: { path: " secrets/k " } })
      assert.deepStrictEqual(shown, [
        { id: "c1", name: "trim", input: { path: "secrets/k" }, raw: { path: " secrets/k " } }
      ])
      assert.deepStrictEqual(trim.ran, [{ path: "secrets/k" }])
    })
  )

  it.effect("a lower-case transform", () =>
    Effect.gen(function* () {
      lower.ran.length = 0
      const { shown } = yield* seen({ id: "c1", name: "lower", input: { path: "SECRETS/K" } })
      assert.deepStrictEqual(shown[0]?.input, { path: "secrets/k" })
      assert.deepStrictEqual(lower.ran, [{ path: "secrets/k" }])
    })
  )

  it.effect("a default", () =>
    Effect.gen(function* () {
      withDefault.ran.length = 0
      const { shown } = yield* seen({ id: "c1", name: "defaulted", input: {} })
      assert.deepStrictEqual(shown[0]?.input, { path: "secrets/k" })
      assert.deepStrictEqual(shown[0]?.raw, {})
      assert.deepStrictEqual(withDefault.ran, [{ path: "secrets/k" }])
    })
  )

  it.effect("a decodeTo transform to a value that is not text", () =>
    Effect.gen(function* () {
      dated.ran.length = 0
      const { shown } = yield* seen({ id: "c1", name: "dated", input: { at: "2026-01-02T03:04:05.000Z" } })
      assert.deepStrictEqual(shown[0]?.input, { at: new Date("2026-01-02T03:04:05.000Z") })
      assert.deepStrictEqual(dated.ran, [shown[0]?.input])
    })
  )

  it.effect("a getter that answers differently on each read: the middleware and the tool see one value", () =>
    Effect.gen(function* () {
      trim.ran.length = 0
      let reads = 0
      const input = {
        get path(): string {
          reads += 1
          return reads === 1 ? "notes/a" : "secrets/k"
        }
      }
      let inputReads = 0
      const call = {
        id: "c1",
        name: "trim",
        get input() {
          inputReads += 1
          return input
        }
      }
      const { shown } = yield* seen(call)
      assert.strictEqual(inputReads, 1)
      assert.deepStrictEqual(shown[0]?.input, { path: "notes/a" })
      assert.deepStrictEqual(trim.ran, [shown[0]?.input])
      // The very value the middleware was shown is the one the tool got.
      assert.strictEqual(trim.ran[0], shown[0]?.input)
    })
  )
})
