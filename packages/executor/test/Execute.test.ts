import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Execute, Outcome } from "../src/index.ts"

class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** A read tool that counts its runs. */
const makeRead = () => {
  const calls: Array<string> = []
  const tool = Tool.make("read", {
    description: "Reads a file",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) =>
      Effect.sync(() => {
        calls.push(path)
        return `contents of ${path}`
      })
  })
  return { tool, calls }
}

const noInput = Schema.Struct({})

const tools = {
  failsTyped: Tool.make("fails_typed", {
    description: "",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) => Effect.fail(new NotFound({ message: `file '${path}' does not exist` }))
  }),
  failsString: Tool.make("fails_string", { description: "", parameters: noInput, run: () => Effect.fail("plain") }),
  throwsSync: Tool.make("throws_sync", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw new Error("thrown before returning")
    }
  }),
  throwsInSync: Tool.make("throws_in_sync", {
    description: "",
    parameters: noInput,
    run: () =>
      Effect.sync((): string => {
        throw new Error("x")
      })
  }),
  rejects: Tool.make("rejects", {
    description: "",
    parameters: noInput,
    run: (): Promise<string> => Promise.reject(new Error("r"))
  }),
  rejectsLater: Tool.make("rejects_later", {
    description: "",
    parameters: noInput,
    run: async (): Promise<string> => {
      await Promise.resolve()
      throw new RangeError("later")
    }
  }),
  throwsString: Tool.make("throws_string", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw "boom"
    }
  }),
  throwsEmptyString: Tool.make("throws_empty_string", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw ""
    }
  }),
  throwsUndefined: Tool.make("throws_undefined", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw undefined
    }
  }),
  throwsNull: Tool.make("throws_null", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw null
    }
  }),
  throwsObject: Tool.make("throws_object", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw { code: 1 }
    }
  }),
  throwsMessageObject: Tool.make("throws_message_object", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw { message: "disk full", code: 28 }
    }
  }),
  throwsEmptyError: Tool.make("throws_empty_error", {
    description: "",
    parameters: noInput,
    run: (): string => {
      throw new TypeError("")
    }
  }),
  dies: Tool.make("dies", { description: "", parameters: noInput, run: () => Effect.die(new Error("died")) }),
  diesString: Tool.make("dies_string", { description: "", parameters: noInput, run: () => Effect.die("gone") }),
  returnsString: Tool.make("returns_string", { description: "", parameters: noInput, run: () => "a\nb" }),
  returnsObject: Tool.make("returns_object", {
    description: "",
    parameters: noInput,
    run: () => Effect.succeed({ files: ["a.txt", "b.txt"], count: 2 })
  }),
  returnsUndefined: Tool.make("returns_undefined", { description: "", parameters: noInput, run: () => undefined }),
  resolves: Tool.make("resolves", {
    description: "",
    parameters: noInput,
    run: () => Promise.resolve([1, 2, 3])
  }),
  badContent: Tool.make("bad_content", {
    description: "",
    parameters: noInput,
    run: () => 1,
    content: (): string => {
      throw new Error("cannot render")
    }
  }),
  badFailureMessage: Tool.make("bad_failure_message", {
    description: "",
    parameters: noInput,
    run: () => Effect.fail(new NotFound({ message: "m" })),
    failureMessage: (): string => {
      throw new Error("cannot describe")
    }
  }),
  customFailureMessage: Tool.make("custom_failure_message", {
    description: "",
    parameters: noInput,
    run: () => Effect.fail({ status: 404 }),
    failureMessage: (e) => `status ${e.status}`
  }),
  slow: Tool.make("slow", {
    description: "",
    parameters: noInput,
    run: () => Effect.as(Effect.sleep("10 seconds"), "finally")
  }),
  never: Tool.make("never", { description: "", parameters: noInput, run: () => Effect.never }),
  interruptsItself: Tool.make("interrupts_itself", {
    description: "",
    parameters: noInput,
    run: () => Effect.interrupt
  })
}

const toolset = Toolset.make(...Object.values(tools))

const call = (name: string, input: unknown = {}, id = `id_${name}`): Toolset.RawCall => ({ id, name, input })

const run = (name: string, input: unknown = {}) => Execute.execute(toolset, call(name, input))

const failureTag = (outcome: Outcome.Outcome): string | undefined =>
  outcome._tag === "Failed" ? outcome.failure._tag : undefined

describe("a call that fails its schema is not executed", () => {
  it.effect("missing field: NotExecuted, and the tool does not run", () =>
    Effect.gen(function* () {
      const read = makeRead()
      const set = Toolset.make(read.tool)
      const outcome = yield* Execute.execute(set, call("read", { paths: ["a"] }, "t1"))
      expect(outcome).toEqual({
        _tag: "NotExecuted",
        id: "t1",
        name: "read",
        violation: { _tag: "MissingField", field: "path" },
        content: "not executed: missing field 'path'"
      })
      expect(read.calls).toEqual([])
      expect(Outcome.toToolResult(outcome)).toStrictEqual({
        type: "tool_result",
        tool_use_id: "t1",
        content: "not executed: missing field 'path'",
        is_error: true
      })
      expect(Outcome.didNotRun(outcome)).toBe(true)
      expect(Outcome.isError(outcome)).toBe(true)
    })
  )

  it.effect("wrong type, unexpected field, input not an object, unknown tool: never run", () =>
    Effect.gen(function* () {
      const read = makeRead()
      const set = Toolset.make(read.tool)
      const contents: Array<string> = []
      for (const raw of [
        call("read", { path: 1 }),
        call("read", { path: "a", mode: "r" }),
        call("read", ["a"]),
        call("read", "a"),
        call("write", { path: "a" })
      ]) {
        const outcome = yield* Execute.execute(set, raw)
        assert.strictEqual(outcome._tag, "NotExecuted")
        contents.push(outcome.content)
      }
      expect(contents).toEqual([
        "not executed: field 'path' must be a string",
        "not executed: unexpected field 'mode'",
        "not executed: input must be an object",
        "not executed: input must be an object",
        "not executed: unknown tool 'write'"
      ])
      expect(read.calls).toEqual([])
    })
  )

  it.effect("a valid call runs the tool exactly once", () =>
    Effect.gen(function* () {
      const read = makeRead()
      const outcome = yield* Execute.execute(Toolset.make(read.tool), call("read", { path: "a.txt" }, "t3"))
      expect(outcome).toEqual({
        _tag: "Succeeded",
        id: "t3",
        name: "read",
        value: "contents of a.txt",
        content: "contents of a.txt"
      })
      expect(read.calls).toEqual(["a.txt"])
    })
  )

  it.effect("the Spanish catalogue: no se ha ejecutado: falta el campo 'ruta'", () =>
    Effect.gen(function* () {
      const Leer = Tool.make("leer", {
        description: "Lee un fichero",
        parameters: Schema.Struct({ ruta: Schema.String }),
        run: ({ ruta }) => ruta
      })
      const set = Toolset.make(Leer)
      const outcome = yield* Execute.execute(set, call("leer", { rutas: ["recetas/salmorejo.txt", "lista.txt"] }, "t1"))
      expect(Outcome.toToolResult(outcome)).toStrictEqual({
        type: "tool_result",
        tool_use_id: "t1",
        content: "no se ha ejecutado: falta el campo 'ruta'",
        is_error: true
      })
      const ghost = yield* Execute.execute(set, call("escribir", {}, "t9"))
      expect(ghost.content).toBe("no se ha ejecutado: no existe la herramienta 'escribir'")
    }).pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
  )

  it.effect("execute is dual", () =>
    Effect.gen(function* () {
      const read = makeRead()
      const set = Toolset.make(read.tool)
      const outcome = yield* Execute.execute(call("read", { path: "p" }, "d"))(set)
      expect(outcome.content).toBe("contents of p")
      const withOptions = yield* Execute.execute(call("read", { path: "q" }, "d"), { timeout: "1 second" })(set)
      expect(withOptions.content).toBe("contents of q")
      expect(read.calls).toEqual(["p", "q"])
    })
  )
})

describe("a call that runs and fails answers an error", () => {
  it.effect("typed failure: Failed/ToolError with the error's message", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("fails_typed", { path: "recetas/salmorejo.txt" }, "t2"))
      expect(outcome).toEqual({
        _tag: "Failed",
        id: "t2",
        name: "fails_typed",
        failure: { _tag: "ToolError", error: new NotFound({ message: "file 'recetas/salmorejo.txt' does not exist" }) },
        content: "file 'recetas/salmorejo.txt' does not exist"
      })
      assert(outcome._tag === "Failed" && outcome.failure._tag === "ToolError")
      assert.instanceOf(outcome.failure.error, NotFound)
      expect(Outcome.toToolResult(outcome)).toStrictEqual({
        type: "tool_result",
        tool_use_id: "t2",
        content: "file 'recetas/salmorejo.txt' does not exist",
        is_error: true
      })
      expect(Outcome.didNotRun(outcome)).toBe(false)
    })
  )

  it.effect("a typed failure that is a plain string: its text", () =>
    Effect.gen(function* () {
      const outcome = yield* run("fails_string")
      expect(failureTag(outcome)).toBe("ToolError")
      expect(outcome.content).toBe("plain")
    })
  )

  it.effect("the tool's failureMessage renders its typed failure", () =>
    Effect.gen(function* () {
      const outcome = yield* run("custom_failure_message")
      expect(failureTag(outcome)).toBe("ToolError")
      expect(outcome.content).toBe("status 404")
    })
  )

  it.effect("a failureMessage that throws still answers an error", () =>
    Effect.gen(function* () {
      const outcome = yield* run("bad_failure_message")
      expect(failureTag(outcome)).toBe("ToolError")
      expect(outcome.content).toBe("cannot describe")
    })
  )

  it.effect("run throws before returning: Failed/Defect with the Error's message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_sync")
      assert(outcome._tag === "Failed" && outcome.failure._tag === "Defect")
      assert.instanceOf(outcome.failure.defect, Error)
      expect((outcome.failure.defect as Error).message).toBe("thrown before returning")
      expect(outcome.content).toBe("thrown before returning")
      expect(Outcome.toToolResult(outcome).is_error).toBe(true)
    })
  )

  it.effect("Effect.sync(() => { throw new Error('x') }): Defect 'x'", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_in_sync")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("x")
    })
  )

  it.effect("Promise.reject(new Error('r')): Defect 'r'", () =>
    Effect.gen(function* () {
      const outcome = yield* run("rejects")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("r")
    })
  )

  it.effect("an async function that throws later: its message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("rejects_later")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("later")
    })
  )

  it.effect("throw 'boom': 'boom'", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_string")
      assert(outcome._tag === "Failed" && outcome.failure._tag === "Defect")
      expect(outcome.failure.defect).toBe("boom")
      expect(outcome.content).toBe("boom")
    })
  )

  it.effect("throw '': a readable message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_empty_string")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("the tool failed with ''")
    })
  )

  it.effect("throw undefined: a readable, non-empty message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_undefined")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("the tool failed with undefined")
    })
  )

  it.effect("throw null: a readable, non-empty message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_null")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("the tool failed with null")
    })
  )

  it.effect("throw { code: 1 }: a message with its JSON", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_object")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toContain('{"code":1}')
      expect(outcome.content).toBe('the tool failed with {"code":1}')
    })
  )

  it.effect("throw an object with a message field: the message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_message_object")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("disk full")
    })
  )

  it.effect("throw an Error with an empty message: its name", () =>
    Effect.gen(function* () {
      const outcome = yield* run("throws_empty_error")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("the tool failed with TypeError and no message")
    })
  )

  it.effect("Effect.die(error): Defect with its message", () =>
    Effect.gen(function* () {
      const outcome = yield* run("dies")
      assert(outcome._tag === "Failed" && outcome.failure._tag === "Defect")
      expect(outcome.failure.defect).toEqual(new Error("died"))
      expect(outcome.content).toBe("died")
      const other = yield* run("dies_string")
      expect(failureTag(other)).toBe("Defect")
      expect(other.content).toBe("gone")
    })
  )

  it.effect("a content function that throws: Defect, not a success", () =>
    Effect.gen(function* () {
      const outcome = yield* run("bad_content")
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe("cannot render")
    })
  )
})

describe("a call that runs and returns answers its content", () => {
  it.effect("a string as it is", () =>
    Effect.gen(function* () {
      const outcome = yield* run("returns_string")
      expect(outcome).toEqual({
        _tag: "Succeeded",
        id: "id_returns_string",
        name: "returns_string",
        value: "a\nb",
        content: "a\nb"
      })
      expect(Outcome.toToolResult(outcome)).toStrictEqual({
        type: "tool_result",
        tool_use_id: "id_returns_string",
        content: "a\nb",
        is_error: false
      })
      expect(Outcome.isError(outcome)).toBe(false)
    })
  )

  it.effect("an object as JSON", () =>
    Effect.gen(function* () {
      const outcome = yield* run("returns_object")
      assert.strictEqual(outcome._tag, "Succeeded")
      expect(outcome.content).toBe('{"files":["a.txt","b.txt"],"count":2}')
    })
  )

  it.effect("undefined as the empty string, still a success", () =>
    Effect.gen(function* () {
      const outcome = yield* run("returns_undefined")
      assert.strictEqual(outcome._tag, "Succeeded")
      expect(outcome.content).toBe("")
      expect(Outcome.toToolResult(outcome).is_error).toBe(false)
    })
  )

  it.effect("a resolved promise's value", () =>
    Effect.gen(function* () {
      const outcome = yield* run("resolves")
      assert.strictEqual(outcome._tag, "Succeeded")
      expect(outcome.content).toBe("[1,2,3]")
    })
  )
})

describe("timeouts", () => {
  it.effect("a tool past its timeout: Failed/TimedOut, may have partly run", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("slow", {}, "s1"), { timeout: "1 second" }))
      yield* TestClock.adjust("1 second")
      const outcome = yield* Fiber.join(fiber)
      expect(outcome).toEqual({
        _tag: "Failed",
        id: "s1",
        name: "slow",
        failure: { _tag: "TimedOut", millis: 1000 },
        content: "timed out after 1000 ms; the call may have partly run"
      })
      expect(Outcome.toToolResult(outcome).is_error).toBe(true)
      expect(Outcome.didNotRun(outcome)).toBe(false)
    })
  )

  it.effect("the timeout in Spanish", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("slow"), { timeout: 250 }))
      yield* TestClock.adjust("250 millis")
      const outcome = yield* Fiber.join(fiber)
      expect(outcome.content).toBe("se ha agotado el tiempo tras 250 ms; la llamada puede haberse ejecutado en parte")
    }).pipe(Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish))
  )

  it.effect("a tool within its timeout succeeds", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("slow"), { timeout: "11 seconds" }))
      yield* TestClock.adjust("10 seconds")
      const outcome = yield* Fiber.join(fiber)
      expect(outcome._tag).toBe("Succeeded")
      expect(outcome.content).toBe("finally")
    })
  )

  it.effect("no timeout: a slow tool is waited for", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("slow")))
      yield* TestClock.adjust("9 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const outcome = yield* Fiber.join(fiber)
      expect(outcome.content).toBe("finally")
    })
  )
})

describe("interruption", () => {
  it.effect("interrupting the caller of a never-ending tool is an interruption, not an outcome", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("never")))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(Exit.isSuccess(exit)).toBe(false)
    })
  )

  it.effect("also with a timeout option, interrupted before the timeout", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Execute.execute(toolset, call("never"), { timeout: "1 minute" }))
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.hasInterrupts(exit)).toBe(true)
      expect(Exit.isSuccess(exit)).toBe(false)
    })
  )

  // BUG (reported): a tool whose own Effect is interrupted (here `Effect.interrupt`; in real code a
  // `Fiber.join` on an interrupted fiber) makes execute interrupt its caller, although nobody
  // interrupted the caller: the call gets no observation and the loop stops.
  it.effect("a tool that interrupts itself answers an error; its caller is not interrupted", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Execute.execute(toolset, call("interrupts_itself", {}, "i1")))
      assert(Exit.isSuccess(exit), `execute did not answer: ${String(exit)}`)
      const outcome = exit.value
      expect(outcome._tag).toBe("Failed")
      expect(outcome.id).toBe("i1")
      expect(Outcome.toToolResult(outcome).is_error).toBe(true)
      expect(outcome.content).not.toBe("")
    })
  )
})

describe("thrownMessage", () => {
  it("describes anything thrown", () => {
    const en = MessageCatalog.english
    expect(Execute.thrownMessage(en, new Error("m"))).toBe("m")
    expect(Execute.thrownMessage(en, new Error(""))).toBe("the tool failed with Error and no message")
    expect(Execute.thrownMessage(en, "s")).toBe("s")
    expect(Execute.thrownMessage(en, "")).toBe("the tool failed with ''")
    expect(Execute.thrownMessage(en, undefined)).toBe("the tool failed with undefined")
    expect(Execute.thrownMessage(en, 42)).toBe("the tool failed with 42")
    expect(Execute.thrownMessage(en, 10n)).toBe("the tool failed with 10")
    expect(Execute.thrownMessage(en, Symbol.for("s"))).toBe("the tool failed with Symbol(s)")
    expect(Execute.thrownMessage(en, { message: "m2" })).toBe("m2")
    expect(Execute.thrownMessage(en, { message: 3 })).toBe('the tool failed with {"message":3}')
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    expect(Execute.thrownMessage(en, cyclic)).toBe('the tool failed with {"self":"[Circular]"}')
    expect(Execute.thrownMessage(MessageCatalog.spanish, undefined)).toBe("la herramienta ha fallado con undefined")
  })

  it("an Error's message from a Cause squash is kept", () => {
    expect(Execute.thrownMessage(MessageCatalog.english, Cause.squash(Cause.die(new Error("deep"))))).toBe("deep")
  })
})

describe("nothing escapes, whatever is thrown", () => {
  const hostile = (value: () => unknown) =>
    Toolset.make(
      Tool.make("hostile", {
        description: "",
        parameters: noInput,
        run: (): string => {
          throw value()
        }
      }),
      Tool.make("hostile_fail", { description: "", parameters: noInput, run: () => Effect.fail(value()) }),
      Tool.make("hostile_return", { description: "", parameters: noInput, run: () => value() })
    )

  /** An object that neither JSON.stringify nor String can render. */
  const unrenderable = () => Object.assign(Object.create(null) as object, { n: 1n })
  /** An object whose message getter throws. */
  const trapped = () => ({
    get message(): string {
      throw new Error("trapped getter")
    }
  })

  const answers = (set: Toolset.Toolset<Tool.Any>, name: string) =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Execute.execute(set, call(name)))
      assert(Exit.isSuccess(exit), `execute did not answer: ${String(exit)}`)
      const outcome = exit.value
      expect(outcome._tag).toBe("Failed")
      expect(typeof outcome.content).toBe("string")
      expect(outcome.content.length).toBeGreaterThan(0)
      return outcome
    })

  it.effect("a returned value that neither JSON nor String can render: rendered readably", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(hostile(unrenderable), call("hostile_return"))
      expect([outcome._tag, outcome.content]).toEqual(["Succeeded", '{"n":1}'])
    })
  )

  it.effect("a typed failure that cannot be rendered: ToolError", () =>
    Effect.gen(function* () {
      const outcome = yield* answers(hostile(unrenderable), "hostile_fail")
      expect(failureTag(outcome)).toBe("ToolError")
      const trappedOutcome = yield* answers(hostile(trapped), "hostile_fail")
      expect(failureTag(trappedOutcome)).toBe("ToolError")
    })
  )

  // BUG (reported): thrownMessage renders a thrown non-Error with JSON.stringify, then String;
  // for a null-prototype object holding a bigint both throw, the throw escapes fromExit and
  // execute dies.
  it.effect("a thrown object that neither JSON nor String can render: Defect, execute does not die", () =>
    Effect.gen(function* () {
      const outcome = yield* answers(hostile(unrenderable), "hostile")
      expect(failureTag(outcome)).toBe("Defect")
    })
  )

  // BUG (reported): the same, for a thrown object whose `message` getter throws.
  it.effect("a thrown object whose message getter throws: Defect, execute does not die", () =>
    Effect.gen(function* () {
      const outcome = yield* answers(hostile(trapped), "hostile")
      expect(failureTag(outcome)).toBe("Defect")
    })
  )

  // BUG (reported): an error observation must say something; `{ message: "" }` gives "".
  it.effect("a thrown object with an empty message: a non-empty content", () =>
    Effect.gen(function* () {
      const outcome = yield* answers(
        hostile(() => ({ message: "" })),
        "hostile"
      )
      expect(failureTag(outcome)).toBe("Defect")
      expect(outcome.content).toBe('the tool failed with {"message":""}')
    })
  )

  // BUG (reported): the same for a typed failure: Tool's default failureMessage returns "".
  it.effect("a typed failure with an empty message: a non-empty content", () =>
    Effect.gen(function* () {
      const outcome = yield* answers(
        hostile(() => ({ _tag: "Empty", message: "" })),
        "hostile_fail"
      )
      expect(failureTag(outcome)).toBe("ToolError")
    })
  )
})
