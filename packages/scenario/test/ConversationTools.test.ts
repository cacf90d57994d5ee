import { ResponseContract } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Conversation, ScenarioFile, Suite, Variant } from "../src/index.ts"
import { at, catalogoTimeout, decodeConversation, type Json, load } from "./fixtures/files.ts"

const FILE = "cases/tools.json"

const decode = (json: Json): ScenarioFile.Conversation => decodeConversation(FILE, json)

const invalid = (json: Json) => {
  const result = ScenarioFile.decode(FILE, json)
  if (Result.isSuccess(result)) throw new Error("the file should be invalid")
  return { path: result.failure.path, problem: result.failure.problem }
}

const timeout = "Tiempo de espera agotado: el catálogo no respondió en 5 segundos."

/** A one-call conversation: the model calls `name` with `input`, is shown `expect`, then ends. */
const oneCall = (
  tools: Json,
  expect: ReadonlyArray<{ readonly is_error: boolean; readonly content: string }>,
  calls: ReadonlyArray<{ readonly name: string; readonly input?: unknown }> = [{ name: "lookup" }]
): Json => ({
  format: 1,
  kind: "conversation",
  tools,
  turns: [
    {
      reply: calls.map((c, i) => ({ type: "tool_use", id: `c${i + 1}`, name: c.name, input: c.input ?? {} })),
      expect: expect.map((e, i) => ({ type: "tool_result", tool_use_id: `c${i + 1}`, ...e }))
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done" }
})

describe("conversation scripted tools: envelope tools under each variant", () => {
  it.effect("the shipped TIMEOUT conversation passes under fixed: an is_error observation with code and message", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(decode(load(catalogoTimeout)), FILE)
      assert.strictEqual(verdict.variant, "fixed")
      assert.deepStrictEqual(verdict.failures, [])
      assert.strictEqual(verdict.passed, true)
    })
  )

  it.effect("under before it diverges at turn 1: the timeout is shown as the catalogue's answer", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(decode(load(catalogoTimeout)), FILE, { variant: Variant.before })
      assert.strictEqual(verdict.variant, "before")
      assert.strictEqual(verdict.passed, false)
      assert.deepStrictEqual(verdict.failures, [
        {
          kind: "divergence",
          turn: 1,
          tool_use_id: "c1",
          expected: `c1 is_error=true "TIMEOUT: ${timeout}"`,
          seen: `c1 is_error=false "${timeout}"`,
          message: `turn 1, tool_use_id c1: a different observation\n  expected: c1 is_error=true "TIMEOUT: ${timeout}"\n  seen:     c1 is_error=false "${timeout}"`
        }
      ])
    })
  )

  it.effect("Suite.run passes the variant to conversations", () =>
    Effect.gen(function* () {
      const scenario = decode(load(catalogoTimeout))
      assert.strictEqual((yield* Suite.run(scenario, FILE)).passed, true)
      assert.strictEqual((yield* Suite.run(scenario, FILE, Variant.before)).passed, false)
    })
  )

  it.effect("an ok envelope: its content is the observation under both variants; an object content as JSON", () =>
    Effect.gen(function* () {
      const json = oneCall(
        {
          lookup: {
            envelope: true,
            results: [
              { status: "ok", content: "2 copies" },
              { status: "ok", content: { copies: 0 } }
            ]
          }
        },
        [
          { is_error: false, content: "2 copies" },
          { is_error: false, content: `{"copies":0}` }
        ],
        [{ name: "lookup" }, { name: "lookup", input: { title: "x" } }]
      )
      for (const variant of [Variant.fixed, Variant.before]) {
        const verdict = yield* Conversation.run(decode(json), FILE, { variant })
        assert.deepStrictEqual(verdict.failures, [], variant.name)
      }
    })
  )

  it.effect("a failure status without code or content: UNKNOWN under fixed", () =>
    Effect.gen(function* () {
      const json = oneCall({ lookup: { envelope: true, results: [{ status: "unavailable" }] } }, [
        { is_error: true, content: "UNKNOWN" }
      ])
      assert.deepStrictEqual((yield* Conversation.run(decode(json), FILE)).failures, [])
    })
  )

  it.effect("calls past the end of the results get the last one", () =>
    Effect.gen(function* () {
      const json = oneCall(
        {
          lookup: {
            envelope: true,
            results: [
              { status: "ok", content: "first" },
              { status: "error", error_code: "E", content: "last" }
            ]
          }
        },
        [
          { is_error: false, content: "first" },
          { is_error: true, content: "E: last" },
          { is_error: true, content: "E: last" }
        ],
        [{ name: "lookup" }, { name: "lookup" }, { name: "lookup" }]
      )
      assert.deepStrictEqual((yield* Conversation.run(decode(json), FILE)).failures, [])
    })
  )

  it.effect("the variant's parser is what the executor reads envelopes with, not a default one", () =>
    Effect.gen(function* () {
      const json = oneCall({ lookup: { envelope: true, results: [{ status: "error", content: "x" }] } }, [
        { is_error: true, content: "UNKNOWN: x" }
      ])
      // A ResponseParser provided from outside is overridden by the variant the run is given.
      const verdict = yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(ResponseContract.ResponseParser, ResponseContract.contentPresent())
      )
      assert.deepStrictEqual(verdict.failures, [])
    })
  )
})

describe("conversation scripted tools: plain tools and the file tools", () => {
  it.effect("{ ok } and { error } results, with any object arguments", () =>
    Effect.gen(function* () {
      const json = oneCall(
        { lookup: { results: [{ ok: "found" }, { error: "not found" }] } },
        [
          { is_error: false, content: "found" },
          { is_error: true, content: "not found" }
        ],
        [
          { name: "lookup", input: { any: ["thing"], n: 1 } },
          { name: "lookup", input: {} }
        ]
      )
      assert.deepStrictEqual((yield* Conversation.run(decode(json), FILE)).failures, [])
    })
  )

  it.effect("input that is not an object is not executed", () =>
    Effect.gen(function* () {
      const json = oneCall(
        { lookup: { results: [{ ok: "found" }] } },
        [{ is_error: true, content: "not executed: input must be an object" }],
        [{ name: "lookup", input: "title" }]
      )
      assert.deepStrictEqual((yield* Conversation.run(decode(json), FILE)).failures, [])
    })
  )

  it.effect("scripted tools are merged with the locale's file tools; one with a file tool's name replaces it", () =>
    Effect.gen(function* () {
      const json = oneCall(
        {
          lookup: { results: [{ ok: "found" }] },
          read: { description: "a scripted read", results: [{ ok: "scripted" }] }
        },
        [
          { is_error: false, content: "found" },
          { is_error: false, content: "scripted" },
          { is_error: false, content: "" }
        ],
        [
          { name: "lookup" },
          { name: "read", input: { path: "list.txt", extra: 1 } },
          { name: "list", input: { folder: "x/" } }
        ]
      )
      assert.deepStrictEqual((yield* Conversation.run(decode(json), FILE)).failures, [])
      const tools = Conversation.toolset(decode(json).file).tools
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        ["list", "search", "write", "append", "lookup", "read"]
      )
      assert.strictEqual(tools.find((t) => t.name === "read")?.description, "a scripted read")
      assert.strictEqual(tools.find((t) => t.name === "lookup")?.description, "scripted tool 'lookup'")
      assert.deepStrictEqual(
        tools.map((t) => t.envelope),
        [false, false, false, false, false, false]
      )
    })
  )

  it.effect("each run starts the results afresh", () =>
    Effect.gen(function* () {
      const scenario = decode(
        oneCall({ lookup: { results: [{ ok: "first" }, { ok: "second" }] } }, [{ is_error: false, content: "first" }])
      )
      assert.isTrue((yield* Conversation.run(scenario, FILE)).passed)
      assert.isTrue((yield* Conversation.run(scenario, FILE)).passed)
    })
  )
})

describe("conversation scripted tools: invalid files", () => {
  it("a plain tool's result must be { ok } or { error }, with its path", () => {
    assert.deepStrictEqual(invalid(oneCall({ lookup: { results: [{ ok: "x" }, "text"] } }, [])), {
      path: "tools.lookup.results[1]",
      problem: `expected { "ok": string } or { "error": string }, got "text"`
    })
    assert.deepStrictEqual(invalid(oneCall({ lookup: { results: [{ ok: 3 }] } }, [])), {
      path: "tools.lookup.results[0].ok",
      problem: "expected string, got 3"
    })
  })

  it("an envelope given to a plain tool says so", () => {
    const json = load(catalogoTimeout)
    at(json, "tools", "catalogo.buscar").envelope = false
    assert.deepStrictEqual(invalid(json), {
      path: `tools["catalogo.buscar"].results[0].status`,
      problem: `unexpected field (a status envelope needs "envelope": true)`
    })
  })

  it("no results, an empty list, a wrong envelope flag, an unknown field", () => {
    assert.deepStrictEqual(invalid(oneCall({ lookup: {} }, [])), { path: "tools.lookup.results", problem: "missing" })
    assert.deepStrictEqual(invalid(oneCall({ lookup: { envelope: true, results: [] } }, [])), {
      path: "tools.lookup.results",
      problem: "expected a value with a length of at least 1, got []"
    })
    assert.deepStrictEqual(invalid(oneCall({ lookup: { envelope: "yes", results: [1] } }, [])), {
      path: "tools.lookup.envelope",
      problem: `expected boolean, got "yes"`
    })
    assert.deepStrictEqual(invalid(oneCall({ lookup: { result: [] } }, [])), {
      path: "tools.lookup.result",
      problem: "unexpected field"
    })
  })

  it("an envelope tool's results may be any JSON value", () => {
    const json = oneCall({ lookup: { envelope: true, results: ["text", 3, null, [1], { status: "ok" }] } }, [])
    assert.isTrue(Result.isSuccess(ScenarioFile.decode(FILE, json)))
  })
})

describe("Variant", () => {
  it("fixed and before by name; fixed is the default", () => {
    assert.deepStrictEqual(Variant.names, ["fixed", "before"])
    assert.strictEqual(Variant.byName.fixed, Variant.fixed)
    assert.strictEqual(Variant.byName.before, Variant.before)
    assert.strictEqual(Variant.defaultVariant, Variant.fixed)
  })

  it("fixed parses with the contract, before with content-present", () => {
    const response = { status: "error", error_code: "TIMEOUT", content: "late" }
    assert.deepStrictEqual(Variant.fixed.parser()(response), { ok: false, error_code: "TIMEOUT", message: "late" })
    assert.deepStrictEqual(Variant.before.parser()(response), { ok: true, answer: "late" })
    assert.deepStrictEqual(Variant.fixed.parser({ status: "s" })({ s: "ok", content: 1 }), { ok: true, answer: 1 })
  })

  it.effect("provide and layer give the variant's ResponseParser", () =>
    Effect.gen(function* () {
      const response = { status: "error", content: "x" }
      const provided = yield* Effect.map(Effect.service(ResponseContract.ResponseParser), (p) => p(response)).pipe(
        Variant.provide(Variant.before)
      )
      assert.deepStrictEqual(provided, { ok: true, answer: "x" })
      const layered = yield* Effect.map(Effect.service(ResponseContract.ResponseParser), (p) => p(response)).pipe(
        Effect.provide(Variant.layer(Variant.before))
      )
      assert.deepStrictEqual(layered, { ok: true, answer: "x" })
      const byDefault = yield* Effect.map(Effect.service(ResponseContract.ResponseParser), (p) => p(response))
      assert.deepStrictEqual(byDefault, { ok: false, error_code: "UNKNOWN", message: "x" })
    })
  )
})
