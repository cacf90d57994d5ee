import { request } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { Html, Server } from "../src/index.ts"
import { showcase } from "./fixtures.ts"

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

/** One request, with the `Host` header given (fetch would not let a test set it). */
const get = (port: number, path: string, options: { readonly method?: string; readonly host?: string } = {}) =>
  Effect.callback<Answer, Error>((resume) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: { host: options.host ?? `127.0.0.1:${port}` }
      },
      (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          body += chunk
        })
        res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, body })))
      }
    )
    req.on("error", (error) => resume(Effect.fail(error)))
    req.end()
  })

const html = Html.render([{ name: "showcase.jsonl", text: showcase() }])

describe("Server.serve", () => {
  it.effect(
    "serves the page on 127.0.0.1 with its Content-Security-Policy, and nothing else",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const served = yield* Server.serve(html)
          expect(served.url).toBe(`http://127.0.0.1:${served.port}/`)
          expect(served.port).toBeGreaterThan(0)
          const page = yield* get(served.port, "/")
          expect(page.status).toBe(200)
          expect(page.body).toBe(html)
          expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
          expect(page.headers["content-security-policy"]).toBe(`${Html.policy}; frame-ancestors 'none'`)
          expect((yield* get(served.port, "/?x=1")).status).toBe(200)
          expect((yield* get(served.port, "/localhost", { host: `localhost:${served.port}` })).status).toBe(404)
          expect((yield* get(served.port, "/", { method: "POST" })).status).toBe(405)
          expect((yield* get(served.port, "/", { method: "HEAD" })).body).toBe("")
          const rebound = yield* get(served.port, "/", { host: `evil.example:${served.port}` })
          expect(rebound.status).toBe(421)
          expect(rebound.body).not.toContain("<html")
        })
      ),
    60_000
  )

  it.effect(
    "stops when the scope closes, or when asked",
    () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const served = yield* Scope.provide(Server.serve(html), scope)
        expect((yield* get(served.port, "/")).status).toBe(200)
        yield* Scope.close(scope, Exit.void)
        const after = yield* Effect.exit(get(served.port, "/"))
        expect(Exit.isFailure(after)).toBe(true)
        const again = yield* Effect.scoped(
          Effect.gen(function* () {
            const s = yield* Server.serve(html)
            yield* s.stop
            yield* s.stop
            return yield* Effect.exit(get(s.port, "/"))
          })
        )
        expect(Exit.isFailure(again)).toBe(true)
      }),
    60_000
  )

  it.effect(
    "fails with a ServeError when the port is taken",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const first = yield* Server.serve(html)
          const second = yield* Effect.flip(Server.serve(html, { port: first.port }))
          expect(second._tag).toBe("ServeError")
          expect(second.message).toMatch(/EADDRINUSE/)
        })
      ),
    60_000
  )

  /** Runs an effect with a fake `Deno` global whose permission request answers `state`. */
  const underDeno = <A, E>(state: string, effect: Effect.Effect<A, E>) => {
    const asked: Array<unknown> = []
    const requestSync = (descriptor: unknown) => {
      asked.push(descriptor)
      return { state }
    }
    const fake = { permissions: { requestSync } }
    return Effect.acquireUseRelease(
      Effect.sync(() => Reflect.set(globalThis, "Deno", fake)),
      () => Effect.map(effect, (a) => ({ a, asked })),
      () => Effect.sync(() => Reflect.deleteProperty(globalThis, "Deno"))
    )
  }

  it.effect(
    "under Deno, asks for network access to 127.0.0.1 first: refused, a ServeError saying what to give",
    () =>
      Effect.gen(function* () {
        const refused = yield* underDeno("denied", Effect.flip(Effect.scoped(Server.serve(html))))
        expect(refused.a._tag).toBe("ServeError")
        expect(refused.a.message).toBe("Deno has no network access to 127.0.0.1: run it with --allow-net=127.0.0.1")
        expect(refused.asked).toStrictEqual([{ name: "net", host: "127.0.0.1" }])
        const granted = yield* underDeno(
          "granted",
          Effect.scoped(Effect.flatMap(Server.serve(html), (served) => get(served.port, "/")))
        )
        expect(granted.a.status).toBe(200)
      }),
    60_000
  )
})
