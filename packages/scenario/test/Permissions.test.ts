/**
 * Conversation scenarios behind a permission gate (`policy`, `approvals`, `untrustedOutput`):
 * decoding, the gate made by the `Permissions` service (here a fake one: the scenario package
 * never imports the permission package), the refusal without one, scripted approvals that are
 * missing or unused, and capture keeping the declarations. Reasoning blocks in replies too.
 */
import { Execute, Outcome, Trace } from "@agent-harness/executor"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref, Result } from "effect"
import { Capture, Conversation, Permissions, type ScenarioFile, Suite } from "../src/index.ts"
import { decodeConversation, type Json, oneFileDisk, problemOf } from "./fixtures/files.ts"

const FILE = "cases/gate.json"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A fake `Permissions`: the policy is `{ "ask": [tool names] }`, an approval `"yes"` or `"no"`.
 * A call of a tool it asks about takes the next approval; without approvals, or with none left,
 * it is denied (a problem when approvals were scripted).
 */
const fakePermissions = () => {
  const made: Array<Permissions.Declared> = []
  type Problem = { readonly field: "policy" | "approvals"; readonly path: string; readonly problem: string }
  const decode = (declared: Permissions.Declared): Result.Result<ReadonlyArray<string>, Problem> => {
    const policy = declared.policy
    if (!isRecord(policy)) return Result.fail({ field: "policy", path: "(root)", problem: "expected an object" })
    for (const key of Object.keys(policy)) {
      if (key !== "ask") return Result.fail({ field: "policy", path: key, problem: "unexpected field" })
    }
    const ask = Array.isArray(policy.ask) ? policy.ask.map(String) : []
    for (const [i, answer] of (declared.approvals ?? []).entries()) {
      if (answer !== "yes" && answer !== "no") {
        return Result.fail({ field: "approvals", path: `[${i}]`, problem: `expected "yes" or "no"` })
      }
    }
    return Result.succeed(ask)
  }
  const permissions = Permissions.Permissions.of({
    check: (declared) =>
      Result.match(decode(declared), {
        onFailure: (problem) => Effect.fail(new Permissions.InvalidPermissions(problem)),
        onSuccess: () => Effect.void
      }),
    gate: (declared) =>
      Effect.gen(function* () {
        const decoded = decode(declared)
        if (Result.isFailure(decoded)) return yield* new Permissions.InvalidPermissions(decoded.failure)
        made.push(declared)
        const ask = decoded.success
        const scripted = declared.approvals
        const used = yield* Ref.make(0)
        const problems = yield* Ref.make<ReadonlyArray<string>>([])
        const middleware: Execute.Middleware = (call, _tool, run) =>
          Effect.gen(function* () {
            if (!ask.includes(call.name)) return yield* run
            const { catalog } = yield* Execute.harness
            if (scripted === undefined) return Outcome.denied(call, "no one could be asked", catalog)
            const n = yield* Ref.getAndUpdate(used, (k) => k + 1)
            const answer = scripted[n]
            if (answer === undefined) {
              yield* Ref.update(problems, (p) => [...p, `call ${call.id} has no answer`])
              return Outcome.denied(call, "no answer", catalog)
            }
            return answer === "yes" ? yield* run : Outcome.denied(call, "you said no", catalog)
          })
        return {
          middleware,
          problems: Effect.gen(function* () {
            const n = yield* Ref.get(used)
            const seen = yield* Ref.get(problems)
            const left = (scripted?.length ?? 0) - n
            return left > 0 ? [...seen, `${left} answer(s) never used`] : seen
          })
        }
      })
  })
  return { permissions, made }
}

/** One append, then the end; the observation of the append is `expected`. */
const conversation = (expected: { readonly is_error: boolean; readonly content: string }, extra: Json = {}): Json => ({
  format: 1,
  kind: "conversation",
  files: { "a.txt": "x" },
  turns: [
    {
      reply: [
        { type: "reasoning", text: "I should add a line.", provider_metadata: { anthropic: { signature: "sig-1" } } },
        { type: "tool_use", id: "c1", name: "append", input: { path: "a.txt", content: "y" } }
      ],
      expect: [{ type: "tool_result", tool_use_id: "c1", ...expected }]
    },
    { reply: [{ type: "text", text: "done" }] }
  ],
  outcome: { stop: "end", text: "done" },
  ...extra
})

const denied = { is_error: true, content: "not executed: denied: no one could be asked" }
const appended = { is_error: false, content: "appended 1 characters to a.txt" }

const decode = (json: Json): ScenarioFile.Conversation => decodeConversation(FILE, json)

const invalid = (json: Json): string => problemOf(FILE, json)

describe("permission declarations: decoding", () => {
  it("policy, approvals and untrustedOutput decode; reasoning blocks are reply blocks", () => {
    const file = decode(
      conversation(denied, { policy: { ask: ["append"] }, approvals: ["yes"], untrustedOutput: true })
    )
    assert.deepStrictEqual(file.file.policy, { ask: ["append"] })
    assert.deepStrictEqual(file.file.approvals, ["yes"])
    assert.strictEqual(file.file.untrustedOutput, true)
    assert.strictEqual(file.file.turns[0]?.reply[0]?.type, "reasoning")
  })

  it("approvals or untrustedOutput without a policy are refused: there is no gate", () => {
    const problem = `it belongs to the permission gate, and there is none: add a "policy" (every call goes through it)`
    assert.strictEqual(invalid(conversation(denied, { approvals: ["yes"] })), `approvals: ${problem}`)
    assert.strictEqual(invalid(conversation(denied, { untrustedOutput: false })), `untrustedOutput: ${problem}`)
  })

  it("a policy that is not an object, approvals that are not a list, are named by their path", () => {
    assert.strictEqual(invalid(conversation(denied, { policy: ["deny"] })), `policy: expected object, got ["deny"]`)
    assert.match(invalid(conversation(denied, { policy: {}, approvals: "yes" })), /^approvals: expected array/)
  })

  it("a reasoning block without text, or of an unknown type, is refused at its path", () => {
    const json = conversation(denied)
    const turns = json.turns as Array<{ reply: Array<Json> }>
    const first = turns[0]?.reply[0]
    if (first !== undefined) delete first.text
    assert.strictEqual(invalid(json), "turns[0].reply[0].text: missing")
    if (first !== undefined) first.type = "thinking"
    assert.strictEqual(
      invalid(json),
      `turns[0].reply[0]: expected a block { "type": "text", "text" }, { "type": "tool_use", "id", "name", "input" } or { "type": "reasoning", "text" }, got {"type":"thinking","provider_metadata":{"anthropic":{"signature":"sig-1"}}}`
    )
  })
})

describe("permission declarations: running", () => {
  it.effect("the policy's gate sees every call: a denied append is pinned, nothing is written", () =>
    Effect.gen(function* () {
      const fake = fakePermissions()
      const verdict = yield* Conversation.run(decode(conversation(denied, { policy: { ask: ["append"] } })), FILE).pipe(
        Effect.provideService(Permissions.Permissions, fake.permissions)
      )
      assert.deepStrictEqual(verdict.failures, [])
      assert.deepStrictEqual(verdict.outcome.files, { "a.txt": "x" })
      assert.deepStrictEqual(fake.made, [
        { policy: { ask: ["append"] }, approvals: undefined, untrustedOutput: undefined }
      ])
    })
  )

  it.effect("an approval runs the call", () =>
    Effect.gen(function* () {
      const fake = fakePermissions()
      const json = conversation(appended, { policy: { ask: ["append"] }, approvals: ["yes"] })
      const verdict = yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(Permissions.Permissions, fake.permissions)
      )
      assert.deepStrictEqual(verdict.failures, [])
      assert.deepStrictEqual(verdict.outcome.files, { "a.txt": "xy" })
    })
  )

  it.effect("approvals left unused fail the scenario, saying so, though every observation matched", () =>
    Effect.gen(function* () {
      const json = conversation(appended, { policy: { ask: ["append"] }, approvals: ["yes", "no"] })
      const verdict = yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
      )
      assert.isFalse(verdict.passed)
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.message]),
        [["permission", "the scripted approvals: 1 answer(s) never used"]]
      )
    })
  )

  it.effect("a call asked about with no approval left fails first with the approvals, then the divergence", () =>
    Effect.gen(function* () {
      const json = conversation(appended, { policy: { ask: ["append"] }, approvals: [] })
      const verdict = yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
      )
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.kind),
        ["permission", "divergence"]
      )
      assert.strictEqual(verdict.failures[0]?.message, "the scripted approvals: call c1 has no answer")
    })
  )

  it.effect("without a Permissions service: a failed verdict that says so, and nothing runs", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(decode(conversation(denied, { policy: { ask: ["append"] } })), FILE)
      assert.deepStrictEqual(verdict.outcome, { stop: "diverged", files: { "a.txt": "x" }, turns: 0 })
      assert.deepStrictEqual(
        verdict.failures.map((f) => [f.kind, f.message]),
        [["permission", `policy: ${Permissions.missing}`]]
      )
    })
  )

  it.effect("a policy the service refuses: a failed verdict naming its path, and nothing runs", () =>
    Effect.gen(function* () {
      const verdict = yield* Conversation.run(decode(conversation(denied, { policy: { deny: [] } })), FILE).pipe(
        Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
      )
      assert.strictEqual(verdict.outcome.turns, 0)
      assert.deepStrictEqual(
        verdict.failures.map((f) => f.message),
        ["policy.deny: unexpected field"]
      )
    })
  )
})

describe("permission declarations: Suite.load", () => {
  const load = (json: Json) => Suite.load(FILE).pipe(Effect.provide(oneFileDisk(json)))

  it.effect("refuses a file that declares a policy when no Permissions is provided (exit 2 in the CLI)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(load(conversation(denied, { policy: { ask: ["append"] } })))
      assert.strictEqual(error.message, `${FILE}: policy: ${Permissions.missing}`)
    })
  )

  it.effect("refuses a policy or approvals the service cannot decode, at their JSON path", () =>
    Effect.gen(function* () {
      const policy = yield* Effect.flip(load(conversation(denied, { policy: { ask: [], deny: [] } })))
      assert.strictEqual(policy.message, `${FILE}: policy.deny: unexpected field`)
      const approvals = yield* Effect.flip(load(conversation(denied, { policy: {}, approvals: ["yes", "maybe"] })))
      assert.strictEqual(approvals.message, `${FILE}: approvals[1]: expected "yes" or "no"`)
    }).pipe(Effect.provideService(Permissions.Permissions, fakePermissions().permissions))
  )

  it.effect("loads a file without a policy whether or not there is a Permissions", () =>
    Effect.gen(function* () {
      const scenario = yield* load(conversation(appended))
      assert.strictEqual(scenario.kind, "conversation")
    })
  )
})

describe("permission declarations: capture", () => {
  const record = (json: Json) =>
    Effect.gen(function* () {
      const memory = yield* Trace.memory
      yield* Conversation.run(decode(json), FILE).pipe(
        Effect.provideService(Trace.Trace, memory.trace),
        Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
      )
      return (yield* memory.events).map(Trace.line).join("\n")
    })

  it.effect(
    "a captured run keeps its policy, approvals, untrustedOutput and reasoning, and replays behind the gate",
    () =>
      Effect.gen(function* () {
        const json = conversation(appended, { policy: { ask: ["append"] }, approvals: ["yes"], untrustedOutput: false })
        const trace = yield* record(json)
        const captured = yield* Capture.checked("t.jsonl", trace).pipe(
          Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
        )
        assert.deepStrictEqual(captured.policy, { ask: ["append"] })
        assert.deepStrictEqual(captured.approvals, ["yes"])
        assert.strictEqual(captured.untrustedOutput, false)
        assert.deepStrictEqual<unknown>(captured.turns, json.turns)
      })
  )

  it.effect("a policy annotation the service refuses is named at its trace line and path", () =>
    Effect.gen(function* () {
      const trace = yield* record(conversation(denied, { policy: { ask: ["append"] } }))
      const edited = trace.replace(`"value":{"ask":["append"]}`, `"value":{"ask":["append"],"deny":1}`)
      const line = edited.split("\n").findIndex((l) => l.includes(`"deny":1`)) + 1
      const error = yield* Effect.flip(
        Capture.checked("t.jsonl", edited).pipe(
          Effect.provideService(Permissions.Permissions, fakePermissions().permissions)
        )
      )
      assert.strictEqual(error.message, `t.jsonl: line ${line}: value.deny: unexpected field`)
    })
  )

  it.effect("without a Permissions the capture is refused: it cannot be checked to replay", () =>
    Effect.gen(function* () {
      const trace = yield* record(conversation(denied, { policy: { ask: ["append"] } }))
      const error = yield* Effect.flip(Capture.checked("t.jsonl", trace))
      assert.include(
        error.message,
        `the captured scenario does not replay under the variant 'fixed': policy: declares a permission policy`
      )
    })
  )
})
