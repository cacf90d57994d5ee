/**
 * Whatever the policy, the calls (hostile ones included), the answers and the concurrency: a call
 * the gate denies never reaches `run`, a deny rule is never overridden by an answer, every call
 * is answered once, and each decision event says truly whether its call ran.
 */
import { Execute, Outcome, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import { Approver, Gate, type Policy } from "../src/index.ts"

const ran: Array<string> = []
const Path = Schema.Union([Schema.String, Schema.Array(Schema.String)])
const tool = (name: string, annotations: Tool.Annotations) =>
  Tool.make(name, {
    description: name,
    parameters: Schema.Struct({ path: Path }),
    annotations,
    run: (_input, { id }) => {
      ran.push(id)
      return "done"
    }
  })
const tools = Toolset.make(
  tool("read", { readOnly: true, destructive: false, idempotent: true, openWorld: false }),
  tool("append", { readOnly: false, destructive: false, idempotent: false, openWorld: false }),
  tool("fetch", Tool.defaultAnnotations)
)

const decision = fc.constantFrom<Policy.Decision>("allow", "ask", "deny")
const globs = fc.constantFrom("secrets/**", "notes/**", "**", "!notes/**", "*.txt", "notes/*", "{notes,docs}/**")
const rule: fc.Arbitrary<Policy.Rule> = fc.record(
  {
    tool: fc.oneof(
      fc.constantFrom("read", "append", "fetch", "*", "a*", "{read,fetch}", "!read"),
      fc.array(fc.constantFrom("read", "fetch"), { minLength: 1, maxLength: 2 })
    ),
    annotations: fc.record(
      { readOnly: fc.boolean(), destructive: fc.boolean(), idempotent: fc.boolean(), openWorld: fc.boolean() },
      { requiredKeys: [] }
    ),
    args: fc.record({ path: fc.oneof(globs, fc.array(globs, { minLength: 1, maxLength: 2 })) }),
    decision,
    reason: fc.constantFrom("r1", "r2")
  },
  { requiredKeys: ["decision"] }
)
const policy: fc.Arbitrary<Policy.Policy> = fc.record(
  { rules: fc.array(rule, { maxLength: 5 }), default: fc.oneof(decision, fc.record({ decision })) },
  { requiredKeys: [] }
)

const paths = fc.constantFrom(
  "notes/a.txt",
  "secrets/k",
  "notes/../secrets/k",
  "./secrets/k",
  "docs/x",
  "a.txt",
  "secrets\\k",
  ""
)
/** A path field that reads differently the second time, or throws then. */
const hostile = fc.constantFrom("changes", "throws").map((kind) => {
  let reads = 0
  return {
    get path(): string {
      reads += 1
      if (reads === 1) return "notes/a.txt"
      if (kind === "throws") throw new Error("second read")
      return "secrets/k"
    }
  }
})
const input = fc.oneof(
  { weight: 6, arbitrary: paths.map((path) => ({ path })) },
  { weight: 2, arbitrary: fc.array(paths, { maxLength: 3 }).map((path) => ({ path })) },
  { weight: 1, arbitrary: hostile },
  { weight: 1, arbitrary: fc.constant({ file: "x" }) }
)
const calls = fc.array(fc.record({ name: fc.constantFrom("read", "append", "fetch", "nope"), input }), {
  minLength: 1,
  maxLength: 8
})
const answers = fc.option(
  fc.array(fc.record({ answer: fc.constantFrom<"yes" | "no" | "always">("yes", "no", "always") }), { maxLength: 8 }),
  { nil: undefined }
)

describe("the gate, over arbitrary policies, calls and answers", () => {
  it("a denied call never runs; a deny rule always denies; every call is answered once", async () => {
    await fc.assert(
      fc.asyncProperty(
        policy,
        calls,
        answers,
        fc.constantFrom(1, "unbounded" as const),
        fc.boolean(),
        async (p, cs, as, concurrency, untrustedOutput) => {
          ran.length = 0
          const raw = cs.map((c, i) => ({ id: `c${i}`, name: c.name, input: c.input }))
          const { outcomes, events } = await Effect.runPromise(
            Effect.gen(function* () {
              const gate = yield* Gate.make({ policy: p, untrustedOutput })
              const approver = as === undefined ? Approver.unattended : (yield* Approver.scripted(as)).approver
              const memory = yield* Trace.memory
              const outcomes = yield* Effect.forEach(raw, (c) => Execute.execute(tools, c), { concurrency }).pipe(
                Effect.provideService(Execute.Middleware, gate),
                Effect.provideService(Approver.Approver, approver),
                Effect.provideService(Trace.Trace, memory.trace)
              )
              return { outcomes, events: yield* memory.events }
            })
          )
          expect(outcomes.map((o) => o.id)).toStrictEqual(raw.map((c) => c.id))
          for (const outcome of outcomes) {
            if (Outcome.isDenied(outcome)) expect(ran).not.toContain(outcome.id)
            if (outcome._tag === "NotExecuted") expect(ran).not.toContain(outcome.id)
          }
          for (const event of events) {
            if (event.type !== "permission.decision") continue
            if (event.decision === "deny") expect(event.allowed).toBe(false)
            expect(ran.filter((id) => id === event.tool_use_id)).toHaveLength(event.allowed ? 1 : 0)
          }
          expect(new Set(ran).size).toBe(ran.length)
        }
      ),
      { numRuns: 1500 }
    )
  })
})
