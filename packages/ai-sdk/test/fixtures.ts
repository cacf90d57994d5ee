/**
 * The tools and helpers of the end-to-end tests: the seed's Spanish `añadir` and a dotted
 * `catalogo.buscar`, both outside the providers' name pattern, over an in-memory record.
 */
import { Loop, type Message, type Model, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import type { LanguageModelV4 } from "@ai-sdk/provider"
import { Cause, Data, Deferred, Effect, Exit, type Layer, Schema, Stream } from "effect"
import type { FakeProvider } from "../src/testing.ts"
import * as Retry from "../src/Retry.ts"

class EmptyQuery extends Data.TaggedError("EmptyQuery")<{ readonly message: string }> {}

/** Tools that record what ran. */
export const makeTools = () => {
  const ran: Array<string> = []
  const Append = Tool.make("añadir", {
    description: "Añade texto al final de un fichero",
    parameters: Schema.Struct({ ruta: Schema.String, texto: Schema.String }),
    run: ({ ruta, texto }) =>
      Effect.sync(() => {
        ran.push(`añadir ${ruta} ${texto}`)
        return "ok"
      })
  })
  const Search = Tool.make("catalogo.buscar", {
    description: "Busca en el catálogo",
    parameters: Schema.Struct({ consulta: Schema.String }),
    run: ({ consulta }) =>
      Effect.suspend(() => {
        ran.push(`catalogo.buscar ${consulta}`)
        return consulta === ""
          ? Effect.fail(new EmptyQuery({ message: "la consulta está vacía" }))
          : Effect.succeed(`3 recetas de ${consulta}`)
      })
  })
  return { toolset: Toolset.make(Append, Search), ran }
}

/**
 * How `runLoop` drives the loop when it streams: `Loop.fold` of `Loop.stream`, every event kept in
 * order; `interruptAt` fires the loop's `interrupt` at the first event it holds for.
 */
export interface Streamed {
  readonly interruptAt?: ((event: Loop.Event) => boolean) | undefined
}

/**
 * Runs the loop over the tools with a model layer and an in-memory trace (`Loop.run`, or with
 * `streamed` the fold of `Loop.stream`, its events in `shown`); its `model.retried` events in
 * `retries`.
 */
export const runLoop = (
  model: Layer.Layer<Model.Model>,
  messages: ReadonlyArray<Message.Message>,
  maxTurns = 4,
  streamed?: Streamed
) =>
  Effect.gen(function* () {
    const { toolset, ran } = makeTools()
    const { trace, events, entries } = yield* Trace.memory
    const shown: Array<Loop.Event> = []
    const stop = yield* Deferred.make<void>()
    const interruptAt = streamed?.interruptAt
    const options = {
      toolset,
      messages,
      maxTurns,
      ...(interruptAt === undefined ? {} : { interrupt: Deferred.await(stop) })
    }
    const loop =
      streamed === undefined
        ? Loop.run(options)
        : Loop.fold(
            Stream.tap(Loop.stream(options), (event) => {
              shown.push(event)
              return interruptAt?.(event) === true ? Deferred.succeed(stop, undefined) : Effect.void
            })
          )
    const exit = yield* loop.pipe(Effect.provide(model), Effect.provideService(Trace.Trace, trace), Effect.exit)
    return { exit, events: yield* events, retries: (yield* entries).filter(Retry.retried.is), ran, shown }
  })

/** The typed failure of a failed exit (the test fails if there is none). */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, the run succeeded")
  const found = Cause.findErrorOption(exit.cause)
  if (found._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.value
}

/** The success of an exit (the test fails with the cause if there is none). */
export const successOf = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`expected a success, got ${Cause.pretty(exit.cause)}`)
  return exit.value
}

/** Sets an environment variable for the length of a test; `undefined` removes it. */
export const withEnv = <A, E, R>(name: string, value: string | undefined, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const before = process.env[name]
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
      return before
    }),
    () => effect,
    (before) =>
      Effect.sync(() => {
        if (before === undefined) delete process.env[name]
        else process.env[name] = before
      })
  )

/** The parsed body of a recorded request (the test fails if there is no such request). */
export const jsonOf = <T>(request: FakeProvider.Recorded | undefined): T => {
  if (request === undefined) throw new Error("expected a recorded request")
  return request.json as T
}

/** The fake's three wire formats. */
export const routes: ReadonlyArray<FakeProvider.Route> = ["anthropic", "openai", "responses"]

/**
 * The real provider for one of the fake's routes (`@ai-sdk/anthropic`, `@ai-sdk/openai` chat or
 * responses), pointed at the fake; `fetch` replaces the one it sends with.
 */
export const modelOf = (
  fake: FakeProvider.Fake,
  route: FakeProvider.Route,
  fetch?: typeof globalThis.fetch
): LanguageModelV4 => {
  const baseURL = `${fake.url}/v1`
  const options = fetch === undefined ? { baseURL } : { baseURL, fetch }
  if (route === "anthropic") return createAnthropic({ ...options, apiKey: "k" })("claude-test")
  const openai = createOpenAI({ ...options, apiKey: "sk-test" })
  return route === "openai" ? openai.chat("gpt-test") : openai.responses("gpt-test")
}
