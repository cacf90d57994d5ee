/**
 * A path rule means the model cannot see the path, whichever tool it uses: around each call it
 * lets run, the gate provides a `PathGuard` that allows a path only when the policy allows the
 * same call on it (not ask, not deny), with every normalization `decide` does, in both locales,
 * or when it is the call's own path (decided already).
 */
import { Execute } from "@agent-harness/executor"
import { Files, FileTools } from "@agent-harness/file-tools"
import { PathGuard, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Approver, Gate, type Policy } from "../src/index.ts"

const files = [
  "notes/a.txt",
  "secrets/k",
  "secrets/deep/x",
  "docs/ask.md",
  "notes/../secrets/k",
  "secrets\\k",
  "./secrets/k"
]
const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false }

/** A search that reveals every file its guard allows, like the file tools do. */
const revealing = (name: string, parameters: Tool.Parameters, fields?: Tool.FieldMeanings) =>
  Tool.make(name, {
    description: name,
    parameters,
    annotations: readOnly,
    ...(fields === undefined ? {} : { fields }),
    run: () => Effect.map(PathGuard.current, (guard) => files.filter((f) => PathGuard.allows(guard, f)).join(","))
  })

const tools = Toolset.make(
  revealing("search", Schema.Struct({ pattern: Schema.String })),
  revealing("buscar", Schema.Struct({ patron: Schema.String }), { patron: "pattern" }),
  revealing("read", Schema.Struct({ path: Schema.String })),
  Tool.make("write", {
    description: "write",
    parameters: Schema.Struct({ path: Schema.String }),
    annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
    run: ({ path }) => Effect.map(PathGuard.current, (guard) => `${path}:${PathGuard.allows(guard, path)}`)
  })
)

/** The README's policy, and a rule that asks about a folder. */
const policy: Policy.Policy = {
  rules: [
    { args: { path: "secrets/**" }, decision: "deny", reason: "secrets stay secret" },
    { args: { path: "docs/ask*" }, decision: "ask" },
    { annotations: { readOnly: true }, decision: "allow" }
  ],
  default: "ask"
}

const execute = (call: Toolset.RawCall, p: Policy.Policy = policy) =>
  Effect.gen(function* () {
    const gate = yield* Gate.make({ policy: p })
    return yield* Execute.execute(tools, call).pipe(Effect.provideService(Execute.Middleware, gate))
  })

describe("the gate's path guard", () => {
  it.effect("search reveals only the paths the policy allows (deny and ask both left out, every spelling)", () =>
    Effect.gen(function* () {
      const outcome = yield* execute({ id: "c1", name: "search", input: { pattern: "SECRET" } })
      assert.strictEqual(outcome.content, "notes/a.txt")
    })
  )

  it.effect("in Spanish too: buscar {patron}", () =>
    Effect.gen(function* () {
      const outcome = yield* execute({ id: "c1", name: "buscar", input: { patron: "" } })
      assert.strictEqual(outcome.content, "notes/a.txt")
    })
  )

  it.effect("a call's own path is allowed (the gate decided it, and an approver said yes)", () =>
    Effect.gen(function* () {
      const script = yield* Approver.scripted([{ answer: "yes" }])
      const outcome = yield* execute({ id: "c1", name: "write", input: { path: "notes/new.txt" } }).pipe(
        Effect.provideService(Approver.Approver, script.approver)
      )
      assert.strictEqual(outcome.content, "notes/new.txt:true")
    })
  )

  it.effect("a policy that names no path allows every path of a call it allows", () =>
    Effect.gen(function* () {
      const outcome = yield* execute({ id: "c1", name: "search", input: { pattern: "x" } }, { default: "allow" })
      assert.strictEqual(outcome.content, files.join(","))
    })
  )

  it.effect("rules on the tool's other arguments hold for the paths it reveals", () =>
    Effect.gen(function* () {
      const p: Policy.Policy = {
        rules: [
          { tool: "search", args: { pattern: "SECRET", path: "notes/**" }, decision: "deny" },
          { decision: "allow" }
        ]
      }
      const secret = yield* execute({ id: "c1", name: "search", input: { pattern: "SECRET" } }, p)
      assert.notInclude(secret.content.split(","), "notes/a.txt")
      const other = yield* execute({ id: "c2", name: "search", input: { pattern: "milk" } }, p)
      assert.include(other.content.split(","), "notes/a.txt")
    })
  )

  it.effect("outside a gate every path is allowed; a guard answers alike every time it is asked", () =>
    Effect.gen(function* () {
      const plain = yield* Execute.execute(tools, { id: "c1", name: "search", input: { pattern: "" } })
      assert.strictEqual(plain.content, files.join(","))
      const counting = Tool.make("counting", {
        description: "",
        parameters: Schema.Struct({ pattern: Schema.String }),
        annotations: readOnly,
        run: () =>
          Effect.map(PathGuard.current, (guard) => {
            const answers = Array.from({ length: 1000 }, (_, i) =>
              PathGuard.allows(guard, i % 2 === 0 ? "a" : "secrets/b")
            )
            return answers.filter(Boolean).length
          })
      })
      const p: Policy.Policy = { rules: [{ args: { path: "secrets/**" }, decision: "deny" }], default: "allow" }
      const gate = yield* Gate.make({ policy: p })
      const outcome = yield* Execute.execute(Toolset.make(counting), {
        id: "c1",
        name: "counting",
        input: { pattern: "" }
      }).pipe(Effect.provideService(Execute.Middleware, gate))
      assert.strictEqual(outcome.content, "500")
    })
  )
})

describe("with the shipped file tools: the README's deny secrets/** policy", () => {
  const secretive: Policy.Policy = {
    rules: [
      { args: { path: "secrets/**" }, decision: "deny", reason: "secrets stay secret" },
      { annotations: { readOnly: true }, decision: "allow" }
    ],
    default: "ask"
  }
  for (const [toolset, search, list, pattern, folder] of [
    [FileTools.english, "search", "list", "pattern", "folder"],
    [FileTools.spanish, "buscar", "listar", "patron", "carpeta"]
  ] as const) {
    it.effect(`${search} and ${list} show nothing under secrets/`, () =>
      Effect.gen(function* () {
        const files = yield* Files.make({ "notes/a.txt": "SECRET-free note", "secrets/k": "SECRET=1" })
        const gate = yield* Gate.make({ policy: secretive })
        const names = new Set(toolset.tools.map((t) => t.name))
        const all: Toolset.Toolset<Tool.Any> = toolset
        const run = (name: string, input: unknown) =>
          Execute.execute(all, { id: name, name, input }).pipe(
            Effect.provideService(Execute.Middleware, gate),
            Effect.provideService(Files.Files, files)
          )
        assert.isTrue(names.has(search) && names.has(list))
        const found = yield* run(search, { [pattern]: "SECRET" })
        const everything = yield* run(search, { [pattern]: "" })
        const listed = yield* run(list, { [folder]: "" })
        for (const outcome of [found, everything, listed]) {
          assert.notInclude(outcome.content, "secrets/k")
          assert.notInclude(outcome.content, "SECRET=1")
        }
        assert.include(listed.content, "notes/a.txt")
      })
    )
  }
})
