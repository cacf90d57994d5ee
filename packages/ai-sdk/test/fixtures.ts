/**
 * The tools and helpers of the end-to-end tests: the seed's Spanish `añadir` and a dotted
 * `catalogo.buscar`, both outside the providers' name pattern, over an in-memory record.
 */
import { Loop, type Message, type Model, Trace } from "@agent-harness/executor"
import { Tool, Toolset } from "@agent-harness/tool-schema"
import { Cause, Data, Effect, Exit, type Layer, Schema } from "effect"
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

/** Runs the loop over the tools with a model layer and an in-memory trace; its `model.retried` events in `retries`. */
export const runLoop = (model: Layer.Layer<Model.Model>, messages: ReadonlyArray<Message.Message>, maxTurns = 4) =>
  Effect.gen(function* () {
    const { toolset, ran } = makeTools()
    const { trace, events, entries } = yield* Trace.memory
    const exit = yield* Loop.run({ toolset, messages, maxTurns }).pipe(
      Effect.provide(model),
      Effect.provideService(Trace.Trace, trace),
      Effect.exit
    )
    return { exit, events: yield* events, retries: (yield* entries).filter(Retry.retried.is), ran }
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
