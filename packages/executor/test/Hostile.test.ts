/**
 * Hostile values at `execute`: inputs that throw while they are read, tools that throw, fail,
 * die with or return values that cannot be read, schema checks that throw, invalid options. Each
 * call is answered once, with a readable text, and nothing escapes.
 */
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Execute, Outcome } from "../src/index.ts"
import { Checked, nested } from "../../tool-schema/test/fixtures.ts"

const revoked = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

/** An input whose `path` getter throws. */
const throwingGetter = (): object => ({
  get path(): string {
    throw new Error("getter boom")
  }
})

/** A Proxy over a valid input whose `name` trap throws. */
const trap = (name: "ownKeys" | "get" | "getOwnPropertyDescriptor"): object =>
  new Proxy(
    { path: "a.txt" },
    {
      [name]: () => {
        throw new Error(`${name} boom`)
      }
    }
  )

/** A thenable whose `then` getter throws (enumerable, as a getter in a literal would be). */
const throwingThen = (): object =>
  // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is what these tests are about
  Object.defineProperty({}, "then", {
    enumerable: true,
    get(): unknown {
      throw new Error("then boom")
    }
  })

const ran: Array<string> = []

const Read = Tool.make("read", {
  description: "Reads a file",
  parameters: Schema.Struct({ path: Schema.String }),
  run: ({ path }) => {
    ran.push(path)
    return `contents of ${path}`
  }
})

/** A tool that does, with the value it is given, what its `how` says. */
const hostileTool = (name: string, how: (value: unknown) => unknown, value: () => unknown) =>
  Tool.make(name, {
    description: "",
    parameters: Schema.Struct({}),
    run: () => how(value()) as Tool.RunResult<unknown, unknown, never>
  })

const hows = {
  throws: (v: unknown) => {
    throw v
  },
  rejects: (v: unknown) => Promise.reject(v),
  dies: (v: unknown) => Effect.die(v),
  fails: (v: unknown) => Effect.fail(v),
  returns: (v: unknown) => v,
  succeeds: (v: unknown) => Effect.succeed(v),
  resolves: (v: unknown) => Promise.resolve(v)
} as const

const values = {
  revoked,
  throwingThen,
  hostileError: () =>
    Object.defineProperty(new Error("x"), "message", {
      get(): string {
        throw new Error("message boom")
      }
    }),
  cyclic: () => {
    const cyclic: Record<string, unknown> = { name: "root" }
    cyclic.self = cyclic
    return cyclic
  },
  deep: () => nested(10_000),
  bigint: () => ({ id: 10n })
} as const

const hostileTools = Object.entries(hows).flatMap(([how, f]) =>
  Object.entries(values).map(([value, make]) => hostileTool(`${how}_${value}`, f, make))
)

const toolset = Toolset.make(Read, Checked, ...hostileTools)

const call = (name: string, input: unknown = {}, id = `id_${name}`): Toolset.RawCall => ({ id, name, input })

/** The synchronous core, and the path with a timeout (decoding and running inside an Effect). */
const paths: ReadonlyArray<Execute.Options | undefined> = [undefined, { timeout: "1 minute" }]

/** Runs one call through `execute` and through its synchronous core; both must agree. */
const both = (raw: Toolset.RawCall, options?: Execute.Options) =>
  Effect.gen(function* () {
    const viaEffect = yield* Execute.execute(toolset, raw, options)
    if (options !== undefined) return viaEffect
    const now = Execute.executeSync(toolset, raw)
    const viaSync = Effect.isEffect(now) ? yield* now : now
    expect(Outcome.toToolResult(viaSync)).toStrictEqual(Outcome.toToolResult(viaEffect))
    return viaEffect
  })

describe("an input that throws while it is checked is not executed", () => {
  it.effect("a throwing getter, Proxy traps that throw, a revoked Proxy: NotExecuted, nothing runs", () =>
    Effect.gen(function* () {
      ran.length = 0
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [throwingGetter(), "not executed: the input could not be checked: getter boom"],
        [trap("ownKeys"), "not executed: the input could not be checked: ownKeys boom"],
        [trap("get"), "not executed: the input could not be checked: get boom"],
        [
          trap("getOwnPropertyDescriptor"),
          "not executed: the input could not be checked: getOwnPropertyDescriptor boom"
        ]
      ]
      for (const [input, content] of cases) {
        for (const options of paths) {
          const outcome = yield* both(call("read", input), options)
          expect(outcome._tag).toBe("NotExecuted")
          expect(outcome._tag === "NotExecuted" && outcome.violation._tag).toBe("UncheckableInput")
          expect(outcome.content).toBe(content)
        }
      }
      const outcome = yield* both(call("read", revoked()))
      expect(outcome.content).toMatch(/^not executed: the input could not be checked: .*revoked/)
      expect(ran).toEqual([])
    })
  )

  it.effect("a call object whose input getter throws", () =>
    Effect.gen(function* () {
      const raw = {
        id: "g",
        name: "read",
        get input(): unknown {
          throw new Error("input boom")
        }
      }
      for (const options of paths) {
        const outcome = yield* both(raw, options)
        expect(outcome.content).toBe("not executed: the input could not be checked: input boom")
      }
    })
  )

  it.effect("in Spanish", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("read", throwingGetter())).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      expect(outcome.content).toBe("no se ha ejecutado: no se ha podido comprobar la entrada: getter boom")
    })
  )

  it.effect("a schema check that throws: NotExecuted with what it threw, and execute does not reject", () =>
    Effect.gen(function* () {
      for (const options of paths) {
        const outcome = yield* both(call("checked", { path: "boom" }), options)
        expect(outcome.content).toBe("not executed: the input could not be checked: filter boom")
        const fine = yield* both(call("checked", { path: "fine" }), options)
        expect([fine._tag, fine.content]).toEqual(["Succeeded", "fine"])
      }
    })
  )
})

describe("a tool that throws, fails, dies with or returns a value that cannot be read", () => {
  const outcomeOf = (name: string) => both(call(name))

  it.effect("every combination answers a non-empty text, and execute never fails", () =>
    Effect.gen(function* () {
      for (const tool of hostileTools) {
        for (const options of paths) {
          const exit = yield* Effect.exit(both(call(tool.name), options))
          expect(Exit.isSuccess(exit), tool.name).toBe(true)
          if (Exit.isFailure(exit)) continue
          expect(exit.value.content, tool.name).not.toBe("")
          expect(exit.value.content, tool.name).not.toContain("[object Object]")
        }
      }
    })
  )

  it.effect("a revoked Proxy thrown, rejected, died with or failed with is described by what reading it threw", () =>
    Effect.gen(function* () {
      for (const how of ["throws", "rejects", "dies"]) {
        const outcome = yield* outcomeOf(`${how}_revoked`)
        expect(outcome._tag === "Failed" && outcome.failure._tag, how).toBe("Defect")
        expect(outcome.content, how).toMatch(/^the tool failed with "\[Unreadable: .*revoked.*\]"$/)
      }
      // A typed failure is the tool's own error: its default message is the rendered value.
      const failed = yield* outcomeOf("fails_revoked")
      expect(failed._tag === "Failed" && failed.failure._tag).toBe("ToolError")
      expect(failed.content).toMatch(/^"\[Unreadable: .*revoked.*\]"$/)
    })
  )

  it.effect("an Error whose message getter throws says its name", () =>
    Effect.gen(function* () {
      for (const how of ["throws", "rejects", "dies"]) {
        const outcome = yield* outcomeOf(`${how}_hostileError`)
        expect(outcome.content, how).toBe("the tool failed with Error and no message")
      }
    })
  )

  it.effect("returning a revoked Proxy: it cannot be told from a promise, so it is a Defect", () =>
    Effect.gen(function* () {
      const outcome = yield* outcomeOf("returns_revoked")
      expect(outcome._tag === "Failed" && outcome.failure._tag).toBe("Defect")
      expect(outcome.content).toMatch(/revoked/)
    })
  )

  it.effect("returning a value whose `then` getter throws: a Defect with what it threw", () =>
    Effect.gen(function* () {
      for (const name of ["returns_throwingThen", "resolves_throwingThen"]) {
        const outcome = yield* outcomeOf(name)
        expect(outcome._tag === "Failed" && outcome.failure._tag, name).toBe("Defect")
        expect(outcome.content, name).toBe("then boom")
      }
      // Inside an Effect the value is a plain success: nothing asks whether it is a promise.
      const inside = yield* outcomeOf("succeeds_throwingThen")
      expect([inside._tag, inside.content]).toEqual(["Succeeded", '{"then":"[Unreadable: then boom]"}'])
    })
  )

  it.effect("a cyclic, a 10,000-deep or a bigint result is rendered readably, never '[object Object]'", () =>
    Effect.gen(function* () {
      for (const how of ["returns", "succeeds", "resolves"]) {
        const cyclic = yield* outcomeOf(`${how}_cyclic`)
        expect([cyclic._tag, cyclic.content]).toEqual(["Succeeded", '{"name":"root","self":"[Circular]"}'])
        const deep = yield* outcomeOf(`${how}_deep`)
        expect(deep._tag).toBe("Succeeded")
        expect(deep.content.startsWith(`${'{"a":'.repeat(64)}"[Truncated]"`)).toBe(true)
        const bigint = yield* outcomeOf(`${how}_bigint`)
        expect([bigint._tag, bigint.content]).toEqual(["Succeeded", '{"id":10}'])
      }
    })
  )

  it.effect("a catalogue whose texts throw is replaced by English", () =>
    Effect.gen(function* () {
      const broken: MessageCatalog.MessageCatalog = {
        ...MessageCatalog.spanish,
        thrownValue: () => {
          throw new Error("catalogue bug")
        },
        timedOut: () => {
          throw new Error("catalogue bug")
        }
      }
      const outcome = yield* Execute.execute(toolset, call("throws_revoked")).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, broken)
      )
      expect(outcome.content).toMatch(/^the tool failed with "\[Unreadable: /)
    })
  )
})

describe("Execute.thrownMessage never throws", () => {
  const custom: MessageCatalog.MessageCatalog = {
    ...MessageCatalog.english,
    thrownValue: () => {
      throw new Error("catalogue bug")
    }
  }

  it("a revoked Proxy, an Error with a throwing message, and a catalogue that throws", () => {
    expect(Execute.thrownMessage(MessageCatalog.english, revoked())).toMatch(/^the tool failed with "\[Unreadable: /)
    expect(Execute.thrownMessage(custom, revoked())).toMatch(/^the tool failed with "\[Unreadable: /)
    expect(Execute.thrownMessage(custom, undefined)).toBe("the tool failed with undefined")
    expect(Execute.thrownMessage(MessageCatalog.english, new TypeError(""))).toBe(
      "the tool failed with TypeError and no message"
    )
  })
})

describe("an invalid timeout refuses the call: nothing runs, execute does not throw", () => {
  it.effect("'banana', -1, 0 and NaN", () =>
    Effect.gen(function* () {
      ran.length = 0
      for (const timeout of ["banana", -1, 0, Number.NaN] as const) {
        const outcome = yield* Execute.execute(toolset, call("read", { path: "a.txt" }), {
          timeout: timeout as Execute.Options["timeout"]
        })
        expect(outcome._tag).toBe("Refused")
        expect(Outcome.didNotRun(outcome)).toBe(true)
        const shown = typeof timeout === "string" ? `"${timeout}"` : String(timeout)
        expect(outcome.content).toBe(`not executed: the harness option 'timeout' is invalid: ${shown}`)
      }
      expect(ran).toEqual([])
    })
  )

  it.effect("Infinity is no limit", () =>
    Effect.gen(function* () {
      const outcome = yield* Execute.execute(toolset, call("read", { path: "a.txt" }), { timeout: Infinity })
      expect([outcome._tag, outcome.content]).toEqual(["Succeeded", "contents of a.txt"])
    })
  )
})

describe("a middleware that throws or dies", () => {
  it.effect("answers the call as a Defect; execute does not die", () =>
    Effect.gen(function* () {
      const throwing: Execute.Middleware = () => {
        throw new Error("middleware bug")
      }
      const dying: Execute.Middleware = (_call, _tool, run) =>
        Effect.andThen(run, Effect.die(new Error("middleware died")))
      for (const [middleware, content] of [
        [throwing, "middleware bug"],
        [dying, "middleware died"]
      ] as const) {
        const outcome = yield* Execute.execute(toolset, call("read", { path: "a.txt" })).pipe(
          Effect.provideService(Execute.Middleware, middleware)
        )
        expect(outcome._tag === "Failed" && outcome.failure._tag).toBe("Defect")
        expect(outcome.content).toBe(content)
      }
    })
  )
})
