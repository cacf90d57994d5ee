/**
 * The command tools through the real executor and loop, over the real sandbox: their
 * definitions (names, fields, annotations, JSON Schema), and the exact observations the model
 * reads in English and in Spanish.
 */
import { Execute, Loop, Message, Outcome } from "@agent-harness/executor"
import { ScriptedModel } from "@agent-harness/scripted-model"
import { JsonSchema, Tool } from "@agent-harness/tool-schema"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { CommandTool, type Sandbox } from "../src/index.ts"
import { detect, eventually, leftCgroups, makeRoot, marker, processesWith, remove, timeout } from "./fixtures.ts"

let root: string
let sandbox: Sandbox.Sandbox

beforeAll(async () => {
  root = makeRoot()
  sandbox = await detect({ root, timeoutMs: 4_500, maxOutputBytes: 100 })
}, timeout)

afterAll(() => {
  remove(root)
  expect(leftCgroups(sandbox)).toEqual([])
})

/** Runs a tool's run function on an input, bypassing the executor (as a caller without the schema would). */
const runDirectly = (tool: CommandTool.CommandTool, input: unknown) =>
  Effect.runPromiseExit(
    (tool.run as (input: unknown, context: Tool.CallContext) => Effect.Effect<CommandTool.Report, CommandTool.Failure>)(
      input,
      { id: "x" }
    )
  )

const execute = (tools: ReturnType<typeof CommandTool.make>, name: string, input: unknown, options?: Execute.Options) =>
  Effect.runPromise(Execute.execute(tools, { id: "c1", name, input }, options))

describe("the definitions", () => {
  it("command alone by default, shell only when enabled; comando and consola in Spanish", () => {
    const names = (locale: "en" | "es", shell?: boolean) =>
      CommandTool.make({ sandbox, locale, shell }).tools.map((tool) => tool.name)
    expect(names("en")).toEqual(["command"])
    expect(names("en", true)).toEqual(["command", "shell"])
    expect(names("es")).toEqual(["comando"])
    expect(names("es", true)).toEqual(["comando", "consola"])
  })

  it("the fields say what they mean: program, arguments, shell", () => {
    const [command, shell] = CommandTool.make({ sandbox, locale: "en", shell: true }).tools
    const [comando, consola] = CommandTool.make({ sandbox, locale: "es", shell: true }).tools
    expect(command?.fields).toEqual({ program: "program", args: "arguments" })
    expect(shell?.fields).toEqual({ line: "shell" })
    expect(comando?.fields).toEqual({ programa: "program", argumentos: "arguments" })
    expect(consola?.fields).toEqual({ línea: "shell" })
    if (comando !== undefined) expect(Tool.meaningOf(comando, "argumentos")).toBe("arguments")
  })

  it("annotations: destructive, not read-only, idempotent only when said, open-world only with the network", async () => {
    const [tool] = CommandTool.make({ sandbox, locale: "en" }).tools
    expect(tool?.annotations).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: false })
    const [idempotent] = CommandTool.make({ sandbox, locale: "en", idempotent: true }).tools
    expect(idempotent?.annotations.idempotent).toBe(true)
    const open = await detect({ root, network: true })
    const [networked] = CommandTool.make({ sandbox: open, locale: "es", shell: true }).tools
    expect(networked?.annotations.openWorld).toBe(true)
  })

  it("the JSON Schema has no top-level anyOf: two tools, each a plain object", () => {
    const defs = JsonSchema.anthropicTools(CommandTool.make({ sandbox, locale: "en", shell: true }))
    expect(defs[0]?.input_schema).toEqual({
      type: "object",
      properties: {
        program: {
          type: "string",
          description: "The program to run: a name found on PATH (e.g. ls, git, python3) or a path"
        },
        args: {
          type: "array",
          items: { type: "string" },
          description: 'The arguments, one per item, passed as they are (e.g. ["-la", "src"])'
        }
      },
      required: ["program"],
      additionalProperties: false
    })
    expect(defs[1]?.input_schema).toEqual({
      type: "object",
      properties: { line: { type: "string", description: "The shell command line, e.g. ls -la src | head" } },
      required: ["line"],
      additionalProperties: false
    })
    const spanish = JsonSchema.anthropicTools(CommandTool.make({ sandbox, locale: "es", shell: true }))
    expect(Object.keys(spanish[0]?.input_schema.properties ?? {})).toEqual(["programa", "argumentos"])
    expect(Object.keys(spanish[1]?.input_schema.properties ?? {})).toEqual(["línea"])
  })

  it("the descriptions say what runs and where: the root, the network, the timeout, the cap", () => {
    const [command, shell] = CommandTool.make({ sandbox, locale: "en", shell: true }).tools
    expect(command?.description).toBe(
      `Runs a program with its arguments in a sandbox over the root folder ${root} (the working directory and the only place it can write; the rest of the system is read-only, and /tmp is private and starts empty). No shell is involved: the arguments are passed as they are (no globs, pipes, redirections or variables). It has no network access. It is stopped after 4.5 s. The result shows the exit code, stdout and stderr (each cut after 100 bytes); a non-zero exit code is an error.`
    )
    expect(shell?.description).toContain("Runs a shell command line with /bin/sh -c in a sandbox over the root folder")
    const [comando] = CommandTool.make({ sandbox, locale: "es" }).tools
    expect(comando?.description).toContain(`en un entorno aislado sobre la carpeta raíz ${root}`)
    expect(comando?.description).toContain("No tiene acceso a la red. Se detiene a los 4,5 s.")
  })

  it("refuses to be made without a detected sandbox", () => {
    expect(() => CommandTool.make({ sandbox: {} as Sandbox.Sandbox, locale: "en" })).toThrow(
      "CommandTool.make: option 'sandbox' must be a Sandbox from Sandbox.detect"
    )
  })
})

describe("through the loop, with a scripted model", () => {
  it(
    "English: the exact observations of a success, a failure, a cut stream, binary output and a timeout",
    async () => {
      const script = {
        messages: [Message.user("Look around.")],
        turns: [
          {
            reply: [
              Message.toolUse("c1", "command", { program: "echo", args: ["hello"] }),
              Message.toolUse("c2", "command", { program: "ls", args: ["missing"] }),
              Message.toolUse("c3", "shell", { line: "echo to-stderr >&2; exit 3" })
            ],
            expect: [
              { tool_use_id: "c1", is_error: false, content: "exit code 0\nstdout:\nhello\nstderr: (empty)" },
              {
                tool_use_id: "c2",
                is_error: true,
                content: "exit code 2\nstdout: (empty)\nstderr:\nls: cannot access 'missing': No such file or directory"
              },
              { tool_use_id: "c3", is_error: true, content: "exit code 3\nstdout: (empty)\nstderr:\nto-stderr" }
            ]
          },
          {
            reply: [
              Message.toolUse("c4", "shell", { line: "printf '%0150d' 0" }),
              Message.toolUse("c5", "shell", { line: "head -c 4096 /dev/zero" }),
              Message.toolUse("c6", "shell", { line: "echo partial; sleep 30" })
            ],
            expect: [
              {
                tool_use_id: "c4",
                is_error: false,
                content: `exit code 0\nstdout:\n${"0".repeat(100)}\n… 50 more bytes not shown\nstderr: (empty)`
              },
              {
                tool_use_id: "c5",
                is_error: false,
                content: "exit code 0\nstdout: (binary output, 4,096 bytes, not shown)\nstderr: (empty)"
              },
              {
                tool_use_id: "c6",
                is_error: true,
                content:
                  "timed out after 4.5 s: the command and every process it started were killed; it may have done part of its work (outcome unknown: do not repeat it blindly unless it is idempotent)\nstdout:\npartial\nstderr: (empty)"
              }
            ]
          },
          { reply: [Message.text("Done.")] }
        ]
      }
      const result = await Effect.runPromise(
        Loop.run({
          toolset: CommandTool.make({ sandbox, locale: "en", shell: true }),
          messages: script.messages,
          maxTurns: 5
        }).pipe(Effect.provide(ScriptedModel.layer(script)))
      )
      expect(result.stop).toBe("end")
      expect(result.text).toBe("Done.")
    },
    timeout
  )

  it(
    "Spanish: the same observations in Spanish",
    async () => {
      const script = {
        messages: [Message.user("Mira alrededor.")],
        turns: [
          {
            reply: [
              Message.toolUse("c1", "comando", { programa: "echo", argumentos: ["hola"] }),
              Message.toolUse("c2", "comando", { programa: "ls", argumentos: ["falta"] }),
              Message.toolUse("c3", "consola", { línea: "printf '%0150d' 0" }),
              Message.toolUse("c4", "consola", { línea: "head -c 4096 /dev/zero" }),
              Message.toolUse("c5", "consola", { línea: "echo parcial; sleep 30" }),
              Message.toolUse("c6", "comando", { programa: "echo", argumentos: ["a\u0000b"] })
            ],
            expect: [
              { tool_use_id: "c1", is_error: false, content: "código de salida 0\nstdout:\nhola\nstderr: (vacío)" },
              {
                tool_use_id: "c2",
                is_error: true,
                content:
                  "código de salida 2\nstdout: (vacío)\nstderr:\nls: cannot access 'falta': No such file or directory"
              },
              {
                tool_use_id: "c3",
                is_error: false,
                content: `código de salida 0\nstdout:\n${"0".repeat(100)}\n… 50 bytes más sin mostrar\nstderr: (vacío)`
              },
              {
                tool_use_id: "c4",
                is_error: false,
                content: "código de salida 0\nstdout: (salida binaria, 4.096 bytes, sin mostrar)\nstderr: (vacío)"
              },
              {
                tool_use_id: "c5",
                is_error: true,
                content:
                  "se ha agotado el tiempo tras 4,5 s: se han matado el comando y todos los procesos que inició; puede haber hecho parte de su trabajo (resultado desconocido: no lo repitas sin mirar salvo que sea idempotente)\nstdout:\nparcial\nstderr: (vacío)"
              },
              {
                tool_use_id: "c6",
                is_error: true,
                content:
                  "no se ha ejecutado: el argumento 1 contiene un carácter NUL, que ningún argumento de un programa puede llevar"
              }
            ]
          },
          { reply: [Message.text("Hecho.")] }
        ]
      }
      const result = await Effect.runPromise(
        Loop.run({
          toolset: CommandTool.make({ sandbox, locale: "es", shell: true }),
          messages: script.messages,
          maxTurns: 5
        }).pipe(Effect.provide(ScriptedModel.layer(script)))
      )
      expect(result.stop).toBe("end")
    },
    timeout
  )
})

describe("through the executor", () => {
  const english = () => CommandTool.make({ sandbox, locale: "en", shell: true })

  it(
    "a success carries the structured report (snake_case)",
    async () => {
      const outcome = await execute(english(), "command", { program: "printf", args: ["%s", "hi"] })
      expect(outcome._tag).toBe("Succeeded")
      expect(Outcome.structuredOf(outcome)).toEqual({
        exit_code: 0,
        signal: null,
        timed_out: false,
        stdout: "hi",
        stderr: "",
        stdout_bytes: 2,
        stderr_bytes: 0,
        stdout_truncated: false,
        stderr_truncated: false,
        stdout_binary: false,
        stderr_binary: false,
        binary: false
      })
    },
    timeout
  )

  it(
    "a failure's rich content carries the report too",
    async () => {
      const [command] = english().tools
      if (command === undefined) throw new Error("no command tool")
      const exit = await runDirectly(command, { program: "sh", args: ["-c", "echo out; exit 4"] })
      if (Exit.isSuccess(exit)) throw new Error("expected a failure")
      const error = Cause.findError(exit.cause)
      if (error._tag === "Failure") throw new Error("expected a typed failure")
      expect(error.success).toBeInstanceOf(CommandTool.CommandFailed)
      const content = command.failureContent?.(error.success)
      expect(content?.text).toBe("exit code 4\nstdout:\nout\nstderr: (empty)")
      expect(content?.structured).toMatchObject({ exit_code: 4, stdout: "out\n", stdout_bytes: 4 })
    },
    timeout
  )

  it(
    "schema refusals: nothing runs",
    async () => {
      const tools = english()
      const refused = async (input: unknown) => (await execute(tools, "command", input)).content
      expect(await refused({ program: 1 })).toBe("not executed: field 'program' must be a string")
      expect(await refused({ args: ["x"] })).toBe("not executed: missing field 'program'")
      expect(await refused({ program: "ls", args: "-la" })).toMatch(/^not executed: field 'args' must be/)
      expect(await refused({ program: "ls", extra: true })).toBe("not executed: unexpected field 'extra'")
      const throwing = {
        get program(): string {
          throw new Error("boom")
        }
      }
      expect(await refused(throwing)).toMatch(/^not executed: the input could not be checked/)
    },
    timeout
  )

  it(
    "hostile values that pass the schema are typed failures the model reads",
    async () => {
      const tools = english()
      const nul = await execute(tools, "command", { program: "echo", args: ["a\u0000b"] })
      expect(nul).toMatchObject({
        _tag: "Failed",
        content: "not executed: argument 1 contains a NUL character, which no program argument can hold"
      })
      const huge = await execute(tools, "command", { program: "echo", args: ["x".repeat(10 * 1024 * 1024)] })
      expect(huge.content).toBe(
        "not executed: argument 1 is 10,485,760 bytes long, more than the 131,071 bytes a program argument can be"
      )
      const empty = await execute(tools, "command", { program: "" })
      expect(empty.content).toBe("not executed: the program is empty")
    },
    timeout
  )

  it(
    "a run function given a hostile input directly answers a typed failure, never a throw",
    async () => {
      const [command] = english().tools
      if (command === undefined) throw new Error("no command tool")
      const hostile = new Proxy(
        {},
        {
          get: () => {
            throw new Error("trap")
          }
        }
      )
      const exit = await runDirectly(command, hostile)
      if (Exit.isSuccess(exit)) throw new Error("expected a failure")
      const error = Cause.findError(exit.cause)
      if (error._tag === "Failure") throw new Error("expected a typed failure")
      expect(command.failureMessage(error.success)).toBe("not executed: the program could not be read: trap")
    },
    timeout
  )

  it(
    "the executor's own timeout interrupts the command: nothing is left running",
    async () => {
      const slow = await detect({ root, timeoutMs: 30_000 })
      const mark = marker()
      const outcome = await execute(
        CommandTool.make({ sandbox: slow, locale: "en" }),
        "command",
        {
          program: "sleep",
          args: [mark]
        },
        { timeout: "500 millis" }
      )
      expect(outcome).toMatchObject({ _tag: "Failed", failure: { _tag: "TimedOut" } })
      expect(await eventually(() => processesWith(mark).length === 0)).toBe(true)
      expect(leftCgroups(slow)).toEqual([])
    },
    timeout
  )
})
