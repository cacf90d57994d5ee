/**
 * Command rules through the real gate: `Gate.make` and `Execute.execute` over tools defined
 * here with `Tool.make` whose fields declare the meanings `program`, `arguments` and `shell`
 * (English and Spanish spellings), what the model reads in English and Spanish (a denial, an
 * opaque command, a command too large), the approver asked with the command shown readably, the
 * decision on the decoded input, and hostile calls denied with a problem, never a crash.
 */
import { Execute, Outcome, Trace } from "@agent-harness/executor"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PassThrough } from "node:stream"
import { Approver, Command, Decided, Gate, type Policy, Terminal } from "../src/index.ts"

const runs: Array<string> = []
const record = (id: string, what: string) => {
  runs.push(id)
  return `ran ${what}`
}

const command = Tool.make("command", {
  description: "Runs a program with arguments.",
  parameters: Schema.Struct({
    program: Schema.String,
    args: Schema.optionalKey(Schema.Array(Schema.String))
  }),
  fields: { program: "program", args: "arguments" },
  run: ({ program, args }, { id }) => record(id, [program, ...(args ?? [])].join(" "))
})
const comando = Tool.make("comando", {
  description: "Ejecuta un programa con argumentos.",
  parameters: Schema.Struct({
    programa: Schema.String,
    argumentos: Schema.optionalKey(Schema.Array(Schema.String))
  }),
  fields: { programa: "program", argumentos: "arguments" },
  run: ({ programa, argumentos }, { id }) => record(id, [programa, ...(argumentos ?? [])].join(" "))
})
const shell = Tool.make("shell", {
  description: "Runs a POSIX shell line.",
  parameters: Schema.Struct({ line: Schema.String }),
  fields: { line: "shell" },
  run: ({ line }, { id }) => record(id, line)
})
const consola = Tool.make("consola", {
  description: "Ejecuta una línea de consola POSIX.",
  parameters: Schema.Struct({ línea: Schema.String }),
  fields: { línea: "shell" },
  run: ({ línea }, { id }) => record(id, línea)
})
/** Its program is trimmed by its schema: the gate decides on what runs. */
const trimmed = Tool.make("trimmed", {
  description: "Runs a program, trimmed.",
  parameters: Schema.Struct({ program: Schema.Trim, args: Schema.Array(Schema.String) }),
  fields: { program: "program", args: "arguments" },
  run: ({ program }, { id }) => record(id, program)
})
const tools = Toolset.make(command, comando, shell, consola, trimmed)

const policy: Policy.Policy = {
  rules: [
    { command: "rm -rf *", decision: "deny", reason: "no rm -rf" },
    { command: "git push *", decision: "ask", reason: "pushing is shared" },
    { command: ["git status", "ls *", "echo *"], decision: "allow" }
  ],
  default: { decision: "deny", reason: "not on the list" }
}

const call = (id: string, name: string, input: unknown): Toolset.RawCall => ({ id, name, input })

const behindGate = (calls: ReadonlyArray<Toolset.RawCall>, options: Gate.Options = { policy }) =>
  Effect.gen(function* () {
    runs.length = 0
    const gate = yield* Gate.make(options)
    const { trace, entries } = yield* Trace.memory
    const outcomes = yield* Effect.forEach(calls, (c) => Execute.execute(tools, c)).pipe(
      Effect.provideService(Execute.Middleware, gate),
      Effect.provideService(Trace.Trace, trace)
    )
    const decisions = (yield* entries).filter(Decided.event.is)
    return { outcomes, contents: outcomes.map((o) => o.content), decisions, ran: [...runs] }
  })

describe("the gate decides on the program and its arguments", () => {
  it.effect("denied: not executed, the model reads why; allowed runs; English and Spanish fields alike", () =>
    Effect.gen(function* () {
      const { contents, ran, decisions } = yield* behindGate([
        call("c1", "command", { program: "rm", args: ["-fr", "build"] }),
        call("c2", "comando", { programa: "/bin/rm", argumentos: ["-r", "-f", "build"] }),
        call("c3", "shell", { line: "ls; rm -rf build" }),
        call("c4", "consola", { línea: "env -i FOO=1 rm -rf build" }),
        call("c5", "command", { program: "git", args: ["status"] }),
        call("c6", "comando", { programa: "ls", argumentos: ["-la"] }),
        call("c7", "consola", { línea: "ls -la && echo hecho" }),
        call("c8", "command", { program: "git", args: ["-c", "core.pager=sh", "status"] })
      ])
      assert.deepStrictEqual(contents, [
        "not executed: denied: no rm -rf",
        "not executed: denied: no rm -rf",
        "not executed: denied: no rm -rf",
        "not executed: denied: no rm -rf",
        "ran git status",
        "ran ls -la",
        "ran ls -la && echo hecho",
        "not executed: denied: not on the list"
      ])
      assert.deepStrictEqual(ran, ["c5", "c6", "c7"])
      assert.deepStrictEqual(decisions[0], {
        type: "permission.decided",
        tool_use_id: "c1",
        name: "command",
        rule: 0,
        decision: "deny",
        allowed: false,
        reason: "no rm -rf"
      })
    })
  )

  it.effect("an opaque command is denied, saying why, in English and in Spanish", () =>
    Effect.gen(function* () {
      const calls = [
        call("c1", "command", { program: "sh", args: ["-c", "$CMD"] }),
        call("c2", "shell", { line: "ls $(cat x)" })
      ]
      const english = yield* behindGate(calls)
      assert.deepStrictEqual(english.contents, [
        "not executed: denied: the command could not be read fully ($CMD): it is decided as any command a rule names (no rm -rf)",
        "not executed: denied: the command could not be read fully ($(cat x)): it is decided as any command a rule names (no rm -rf)"
      ])
      const spanish = yield* behindGate(calls).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      assert.deepStrictEqual(spanish.contents, [
        "no se ha ejecutado: permiso denegado: no se ha podido leer el comando entero ($CMD): se decide como cualquier comando que nombre una regla (no rm -rf)",
        "no se ha ejecutado: permiso denegado: no se ha podido leer el comando entero ($(cat x)): se decide como cualquier comando que nombre una regla (no rm -rf)"
      ])
      assert.deepStrictEqual(english.ran, [])
      // With no reason of its own, the default's denial still says the command was not read.
      const bare = yield* behindGate([calls[0] as Toolset.RawCall], {
        policy: { rules: [{ command: "ls *", decision: "allow" }], default: "deny" }
      })
      assert.deepStrictEqual(bare.contents, [
        "not executed: denied: the command could not be read fully ($CMD): it is decided as any command a rule names"
      ])
    })
  )

  it.effect("decided on the decoded input the tool runs with", () =>
    Effect.gen(function* () {
      const { contents } = yield* behindGate([call("c1", "trimmed", { program: "  rm ", args: ["-rf", "x"] })])
      assert.deepStrictEqual(contents, ["not executed: denied: no rm -rf"])
    })
  )
})

describe("asking", () => {
  it.effect("an ask rule goes to the approver with the tool's field meanings; an opaque one says why", () =>
    Effect.gen(function* () {
      const script = yield* Approver.scripted([{ answer: "yes" }, { answer: "no", reason: "not now" }])
      const asking: Policy.Policy = {
        rules: [{ command: "git push *", decision: "ask", reason: "shared" }],
        default: "allow"
      }
      const { contents, ran } = yield* behindGate(
        [
          call("c1", "comando", { programa: "git", argumentos: ["-C", "/repo", "push", "--force"] }),
          call("c2", "shell", { line: "git $(echo push)" })
        ],
        { policy: asking }
      ).pipe(Effect.provideService(Approver.Approver, script.approver))
      assert.deepStrictEqual(contents, ["ran git -C /repo push --force", "not executed: denied: not now"])
      assert.deepStrictEqual(ran, ["c1"])
      const asked = yield* script.asked
      assert.deepStrictEqual(asked[0]?.fields, { programa: "program", argumentos: "arguments" })
      assert.strictEqual(asked[0]?.reason, "shared")
      assert.strictEqual(
        asked[1]?.reason,
        "the command could not be read fully ($(echo push)): it is decided as any command a rule names (shared)"
      )
    })
  )

  it.effect("the terminal shows the command as one line, each word quoted as a shell needs it, escaped", () =>
    Effect.gen(function* () {
      const input = new PassThrough()
      const output = new PassThrough()
      let printed = ""
      output.on("data", (chunk: Buffer) => {
        printed += chunk.toString("utf8")
      })
      input.write("n\nn\n")
      const terminal = Terminal.make({ input, output })
      const request = (over: Partial<Approver.Request>): Approver.Request => ({
        id: "c1",
        name: "comando",
        input: { programa: "git", argumentos: ["commit", "-m", "it's \u001b[2Jdone"] },
        fields: { programa: "program", argumentos: "arguments" },
        annotations: Tool.defaultAnnotations,
        rule: 1,
        reason: "shared",
        ...over
      })
      yield* terminal.ask(request({}))
      assert.include(printed, "with\n  command: git commit -m 'it'\\''s \\u001b[2Jdone'\n  programa: \"git\"\n")
      printed = ""
      yield* terminal
        .ask(request({ name: "consola", input: { línea: "ls; rm -rf x" }, fields: { línea: "shell" } }))
        .pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
      assert.include(printed, "con\n  comando: ls; rm -rf x\n")
    })
  )
})

describe("hostile calls are denied with a problem, never a crash", () => {
  const asCall = (id: string, name: string, input: unknown): Execute.Call => ({ id, name, input, raw: input })

  it.effect("a getter that throws on args, a Proxy, a huge list, a 1 MB line, deep nesting", () =>
    Effect.gen(function* () {
      const gate = yield* Gate.make({ policy })
      const must = Effect.die("must not run")
      const throwing = {
        program: "ls",
        get args(): ReadonlyArray<string> {
          throw new Error("second read")
        }
      }
      const proxy = new Proxy(
        { program: "ls", args: [] },
        {
          get: () => {
            throw new Error("trap")
          }
        }
      )
      let nested = "ls"
      for (let i = 0; i < 10; i++) nested = `sh -c ${Command.quote(nested)}`
      const outcomes = [
        yield* gate(asCall("c1", "command", throwing), command, must),
        yield* gate(asCall("c2", "command", proxy), command, must),
        yield* gate(
          asCall("c3", "command", { program: "ls", args: Array.from({ length: 100_000 }, () => "x") }),
          command,
          must
        ),
        yield* gate(asCall("c4", "shell", { line: `echo ${"x".repeat(1_000_000)}` }), shell, must),
        yield* gate(asCall("c5", "shell", { line: nested }), shell, must)
      ]
      assert.deepStrictEqual(
        outcomes.map((o) => o.content),
        [
          "not executed: denied: its argument 'args' could not be read to check it: second read",
          "not executed: denied: its argument 'program' could not be read to check it: trap",
          "not executed: denied: its command is too large to check against the permission policy (100001 words; at most 1024)",
          "not executed: denied: its command is too large to check against the permission policy (1000005 characters; at most 65536)",
          "not executed: denied: its command is too large to check against the permission policy (wrappers and shells nested 9 deep; at most 8)"
        ]
      )
      assert.isTrue(outcomes.every(Outcome.isDenied))
      const spanish = yield* gate(asCall("c6", "shell", { line: nested }), shell, must).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      assert.strictEqual(
        spanish.content,
        "no se ha ejecutado: permiso denegado: su comando es demasiado grande para comprobarlo con la política de permisos (programas y consolas anidados 9 niveles; como mucho 8)"
      )
    })
  )

  it.effect("through execute: a 100,000-element list decodes and is then denied", () =>
    Effect.gen(function* () {
      const { contents, ran } = yield* behindGate([
        call("c1", "command", { program: "ls", args: Array.from({ length: 100_000 }, () => "x") })
      ])
      assert.deepStrictEqual(contents, [
        "not executed: denied: its command is too large to check against the permission policy (100001 words; at most 1024)"
      ])
      assert.deepStrictEqual(ran, [])
    })
  )
})
