import { MessageCatalog, ResponseContract, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Execute, type Outcome } from "../src/index.ts"

const Path = Schema.Struct({ path: Schema.String })

const tools = Toolset.make(
  Tool.make("plain", { description: "", parameters: Path, run: ({ path }) => `contents of ${path}` }),
  Tool.make("effect", { description: "", parameters: Path, run: ({ path }) => Effect.succeed(`effect ${path}`) }),
  Tool.make("promise", { description: "", parameters: Path, run: ({ path }) => Promise.resolve(`promise ${path}`) }),
  Tool.make("object", { description: "", parameters: Path, run: ({ path }) => ({ path }) }),
  Tool.make("throws", {
    description: "",
    parameters: Path,
    run: (): string => {
      throw new Error("boom")
    }
  })
)

const call = (name: string, input: unknown = { path: "a.txt" }) => ({ id: `c-${name}`, name, input })

const isOutcome = (u: unknown): u is Outcome.Outcome => !Effect.isEffect(u)

describe("Execute.executeSync", () => {
  it("answers at once what finishes at once, exactly as execute does", () => {
    for (const c of [
      call("plain"),
      call("object"),
      call("throws"),
      call("plain", { file: "a.txt" }),
      call("ghost"),
      call("plain", [])
    ]) {
      const now = Execute.executeSync(tools, c)
      expect(isOutcome(now)).toBe(true)
      expect(now).toStrictEqual(Effect.runSync(Execute.execute(tools, c)))
    }
    expect(Execute.executeSync(tools, call("plain"))).toStrictEqual({
      _tag: "Succeeded",
      id: "c-plain",
      name: "plain",
      value: "contents of a.txt",
      content: "contents of a.txt"
    })
    expect(Execute.executeSync(tools, call("plain", {}))).toMatchObject({
      _tag: "NotExecuted",
      content: "not executed: missing field 'path'"
    })
  })

  it("hands back the Effect that finishes a call whose tool returned an Effect or a promise", async () => {
    const effect = Execute.executeSync(tools, call("effect"))
    expect(Effect.isEffect(effect)).toBe(true)
    if (Effect.isEffect(effect)) expect(Effect.runSync(effect)).toMatchObject({ content: "effect a.txt" })
    const promise = Execute.executeSync(tools, call("promise"))
    expect(Effect.isEffect(promise)).toBe(true)
    if (Effect.isEffect(promise)) expect(await Effect.runPromise(promise)).toMatchObject({ content: "promise a.txt" })
  })

  it("speaks the harness it is given", () => {
    const harness = { catalog: MessageCatalog.spanish, parser: ResponseContract.contract() }
    expect(Execute.executeSync(tools, call("plain", {}), harness)).toMatchObject({
      content: "no se ha ejecutado: falta el campo 'path'"
    })
  })

  it.effect("Execute.harness reads the fiber's catalogue and parser", () =>
    Effect.gen(function* () {
      const harness = yield* Execute.harness.pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      expect(harness.catalog).toBe(MessageCatalog.spanish)
    })
  )
})

describe("execute in one fiber, with and without a middleware", () => {
  it.effect("a middleware provided later in the same fiber still sees the calls", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const middleware: Execute.Middleware = (c, _tool, run) =>
        Effect.andThen(
          Effect.sync(() => seen.push(c.id)),
          run
        )
      const before = yield* Execute.execute(tools, call("plain"))
      const within = yield* Execute.execute(tools, call("plain")).pipe(
        Effect.provideService(Execute.Middleware, middleware)
      )
      const after = yield* Execute.execute(tools, call("plain"))
      expect(seen).toStrictEqual(["c-plain"])
      expect([before, within, after].map((o) => o._tag)).toStrictEqual(["Succeeded", "Succeeded", "Succeeded"])
    })
  )

  it.effect("the catalogue provided around a call is the one it speaks", () =>
    Effect.gen(function* () {
      const english = yield* Execute.execute(tools, call("plain", {}))
      const spanish = yield* Execute.execute(tools, call("plain", {})).pipe(
        Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.spanish)
      )
      expect(english.content).toBe("not executed: missing field 'path'")
      expect(spanish.content).toBe("no se ha ejecutado: falta el campo 'path'")
    })
  )
})
