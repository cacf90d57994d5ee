/**
 * The gate against an independent oracle. Whatever the policy, the calls (hostile ones in both
 * directions: inputs that should be denied and inputs that should run), the answers and the
 * concurrency: every call is answered once, in order; a call runs exactly when the oracle says
 * it may (allow, or ask answered yes / always), and then with exactly the decoded input; a
 * denied call never runs; each decision event says truly whether its call ran. The oracle is a
 * plain reference evaluator written here, apart from `Policy`: the first matching rule wins, the
 * default otherwise, over every reading of the call, the strictest answer kept. A mutant of the
 * gate with one deny turned into allow must be caught by the same property.
 */
import { Execute, Outcome, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
import picomatch from "picomatch"
import { Approver, Decided, Gate, type Policy } from "../src/index.ts"

// ---------------------------------------------------------------------------------------------
// The oracle: a reference evaluator of a policy, written without the package's code.

type Decision = "allow" | "ask" | "deny"
const rank: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 }

/** A path as the file system reads it (the oracle's own normalization). */
const normalized = (text: string): string => {
  const parts: Array<string> = []
  const absolute = text.replaceAll("\\", "/").startsWith("/")
  for (const part of text.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") {
      if (parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop()
      else if (!absolute) parts.push("..")
    } else parts.push(part)
  }
  const out = (absolute ? "/" : "") + parts.join("/")
  return out === "" ? "." : out
}

const matchers = new Map<string, (text: string) => boolean>()
const pico = (glob: string) => {
  let m = matchers.get(glob)
  if (m === undefined) {
    m = picomatch(glob, { dot: true, windows: false })
    matchers.set(glob, m)
  }
  return m
}

/** The globs of the generated policies, by picomatch, with the package's documented meaning. */
const globMatches = (glob: string, text: string): boolean => {
  const negated = glob.startsWith("!")
  const body = negated ? glob.slice(1) : glob
  // No wildcard matches a `.` or `..` segment; `x/**` matches `x` (the README's differences).
  const segments = text.split("/")
  const dotted = segments.some((s) => s === "." || s === "..")
  let found = !dotted && pico(body)(text)
  if (!found && body.endsWith("/**") && !dotted) found = pico(body.slice(0, -3))(text)
  return found !== negated
}
const anyGlob = (globs: Policy.Globs, text: string) =>
  (typeof globs === "string" ? [globs] : globs).some((g) => globMatches(g, text))

/** Every reading of a path value: each text as written and normalized, each element of a list. */
const readingsOf = (value: unknown): ReadonlyArray<string | undefined> => {
  const texts =
    typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === "string") : []
  const out = new Set<string>()
  for (const t of texts) {
    out.add(t)
    out.add(normalized(t))
  }
  return out.size === 0 ? [undefined] : [...out]
}

interface ToolInfo {
  readonly name: string
  readonly annotations: Tool.Annotations
}

/** What the oracle says about a call with a decoded input. */
const oracle = (policy: Policy.Policy, tool: ToolInfo, input: { readonly path?: unknown }): Decision => {
  const rules = policy.rules ?? []
  const fallback: Decision =
    policy.default === undefined ? "ask" : typeof policy.default === "string" ? policy.default : policy.default.decision
  let strictest: Decision = "allow"
  for (const reading of readingsOf(input.path)) {
    let decided: Decision = fallback
    for (const rule of rules) {
      if (rule.tool !== undefined && !anyGlob(rule.tool, tool.name)) continue
      const a = rule.annotations ?? {}
      if (
        (a.readOnly !== undefined && a.readOnly !== tool.annotations.readOnly) ||
        (a.destructive !== undefined && a.destructive !== tool.annotations.destructive) ||
        (a.idempotent !== undefined && a.idempotent !== tool.annotations.idempotent) ||
        (a.openWorld !== undefined && a.openWorld !== tool.annotations.openWorld)
      )
        continue
      const wanted = rule.args?.path
      if (wanted !== undefined && (reading === undefined || !anyGlob(wanted, reading))) continue
      decided = rule.decision
      break
    }
    if (rank[decided] > rank[strictest]) strictest = decided
  }
  return strictest
}

// ---------------------------------------------------------------------------------------------
// Tools that record the input they ran with.

const ran: Array<{ readonly id: string; readonly input: unknown }> = []
const Path = Schema.Union([Schema.Trim, Schema.Array(Schema.Trim)])
const tool = (name: string, annotations: Tool.Annotations) =>
  Tool.make(name, {
    description: name,
    parameters: Schema.Struct({ path: Path }),
    annotations,
    run: (input, { id }) => {
      ran.push({ id, input })
      return "done"
    }
  })
const infos: ReadonlyArray<ToolInfo> = [
  { name: "read", annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
  { name: "append", annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false } },
  { name: "fetch", annotations: Tool.defaultAnnotations }
]
const tools = Toolset.make(...infos.map((i) => tool(i.name, i.annotations)))

const decision = fc.constantFrom<Decision>("allow", "ask", "deny")
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

/** Paths a denial must catch however written, and paths that must still run. */
const paths = fc.constantFrom(
  "notes/a.txt",
  "secrets/k",
  "notes/../secrets/k",
  "./secrets/k",
  " secrets/k ",
  "secrets\\k",
  "docs/x",
  "notes/./a.txt",
  " notes/a.txt",
  "a.txt"
)
/** What a hostile input answers on its first read: what the executor reads, once. */
const firstRead = new WeakMap<object, { readonly path: string }>()
/** A path field that reads differently after the first read, or throws then: both directions. */
const hostile = fc.record({ first: paths, later: paths, throws: fc.boolean() }).map(({ first, later, throws }) => {
  let reads = 0
  const input = {
    get path(): string {
      reads += 1
      if (reads === 1) return first
      if (throws) throw new Error("second read")
      return later
    }
  }
  firstRead.set(input, { path: first })
  return input
})
const input = fc.oneof(
  { weight: 6, arbitrary: paths.map((path) => ({ path })) },
  { weight: 2, arbitrary: fc.array(paths, { maxLength: 3 }).map((path) => ({ path })) },
  { weight: 2, arbitrary: hostile },
  { weight: 1, arbitrary: fc.constant({ file: "x" }) }
)
const calls = fc.array(fc.record({ name: fc.constantFrom("read", "append", "fetch", "nope"), input }), {
  minLength: 1,
  maxLength: 8
})
const answers = fc.option(fc.array(fc.constantFrom<"yes" | "no" | "always">("yes", "no", "always"), { maxLength: 8 }), {
  nil: undefined
})

/** The decoded input the tool gets, computed by Schema apart from the executor (`undefined`: refused). */
const decodeAlone = Schema.decodeUnknownSync(Schema.Struct({ path: Path }), { onExcessProperty: "error" })
const decodedOf = (raw: unknown): { readonly path: string | ReadonlyArray<string> } | undefined => {
  try {
    return decodeAlone(raw)
  } catch {
    return undefined
  }
}

type Make = (options: Gate.Options) => Effect.Effect<Execute.Middleware, Policy.InvalidPolicy>

/** The property, against the gate `make` builds: throws (a counterexample) when it fails. */
const property = (make: Make, numRuns: number, seed?: number) =>
  fc.assert(
    fc.asyncProperty(
      policy,
      calls,
      answers,
      fc.constantFrom(1, "unbounded" as const),
      async (p, cs, as, concurrency) => {
        ran.length = 0
        const raw = cs.map((c, i) => ({ id: `c${i}`, name: c.name, input: c.input }))
        // What each call decodes to, computed apart (a hostile input by its first read, which is
        // the one read the executor makes), before anything runs.
        const decoded = cs.map((c) => decodedOf(firstRead.get(c.input as object) ?? c.input))
        const { outcomes, events, asked } = await Effect.runPromise(
          Effect.gen(function* () {
            const gate = yield* make({ policy: p })
            const script = as === undefined ? undefined : yield* Approver.scripted(as.map((answer) => ({ answer })))
            const memory = yield* Trace.memory
            const outcomes = yield* Effect.forEach(raw, (c) => Execute.execute(tools, c), { concurrency }).pipe(
              Effect.provideService(Execute.Middleware, gate),
              Effect.provideService(Approver.Approver, script?.approver ?? Approver.unattended),
              Effect.provideService(Trace.Trace, memory.trace)
            )
            return { outcomes, events: yield* memory.entries, asked: script === undefined ? [] : yield* script.asked }
          })
        )
        expect(outcomes.map((o) => o.id)).toStrictEqual(raw.map((c) => c.id))
        const answerOf = new Map(asked.map((r, i) => [r.id, as?.[i]]))
        for (const [i, outcome] of outcomes.entries()) {
          const info = infos.find((t) => t.name === raw[i]?.name)
          const runs = ran.filter((r) => r.id === outcome.id)
          const input = decoded[i]
          if (info === undefined || input === undefined) {
            expect([outcome.id, outcome._tag, runs]).toStrictEqual([outcome.id, "NotExecuted", []])
            continue
          }
          const expected = oracle(p, info, input)
          let shouldRun: boolean
          if (expected === "allow") shouldRun = true
          else if (expected === "deny") shouldRun = false
          else if (as === undefined) shouldRun = false
          else if (answerOf.has(outcome.id)) {
            const answer = answerOf.get(outcome.id)
            shouldRun = answer === "yes" || answer === "always"
          } else shouldRun = true // answered `always` before, for this rule and tool: remembered
          expect([outcome.id, expected, runs.length]).toStrictEqual([outcome.id, expected, shouldRun ? 1 : 0])
          if (expected === "deny") expect(Outcome.isDenied(outcome)).toBe(true)
          // It ran with exactly the decoded input the oracle judged.
          if (shouldRun) expect(runs[0]?.input).toStrictEqual(input)
        }
        for (const event of events) {
          if (!Decided.event.is(event)) continue
          if (event.decision === "deny") expect(event.allowed).toBe(false)
          expect(ran.filter((r) => r.id === event.tool_use_id)).toHaveLength(event.allowed ? 1 : 0)
        }
        expect(new Set(ran.map((r) => r.id)).size).toBe(ran.length)
      }
    ),
    { numRuns, ...(seed === undefined ? {} : { seed }) }
  )

/**
 * A mutant of the gate: a policy's first deny rule made an allow before the real gate compiles
 * it, as a gate with that one decision flipped would behave.
 */
const mutant: Make = (options) => {
  const rules = options.policy.rules ?? []
  const first = rules.findIndex((r) => r.decision === "deny")
  const flipped = first === -1 ? rules : rules.map((r, i) => (i === first ? { ...r, decision: "allow" as const } : r))
  return Gate.make({ ...options, policy: { ...options.policy, rules: flipped } })
}

describe("the gate, over arbitrary policies, calls and answers, against the oracle", () => {
  it("every call runs exactly when the oracle lets it, with the input decided on", async () => {
    await property(Gate.make, 500)
  }, 120_000)

  it("the mutant with one deny made an allow is caught", async () => {
    await expect(property(mutant, 1500, 1)).rejects.toThrow(/Property failed/)
  }, 120_000)
})
