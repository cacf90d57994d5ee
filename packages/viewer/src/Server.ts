/**
 * Serves a page on the loopback interface for as long as a scope is open: `GET /` answers the
 * page (with its Content-Security-Policy as a header too), anything else 404, any other method
 * 405. Requests whose `Host` is not the address served are refused (421), so a web page
 * elsewhere cannot read the report through a DNS name pointed at 127.0.0.1.
 *
 * @since 0.1.0
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { type Cause, Data, Effect, type Scope } from "effect"
import * as Html from "./Html.ts"

const ServeErrorBase: new (args: {
  readonly message: string
}) => Cause.YieldableError & { readonly _tag: "ServeError" } & Readonly<{ readonly message: string }> =
  Data.TaggedError("ServeError")

/**
 * The server could not start (the port is taken, the address cannot be bound).
 *
 * @since 0.1.0
 */
export class ServeError extends ServeErrorBase {}

/**
 * A page being served: where, and how to stop before the scope closes.
 *
 * @since 0.1.0
 */
export interface Served {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string
  /** The port it listens on (the one asked for, or the one the system chose). */
  readonly port: number
  /** Stops serving (open connections are closed); closing the scope does it too. */
  readonly stop: Effect.Effect<void>
}

/**
 * The options of `serve`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The port; default 0, any free port. */
  readonly port?: number | undefined
}

/** The loopback address served. */
const host = "127.0.0.1"

/** The part of Deno's API that asks for a permission. */
interface DenoPermissions {
  readonly requestSync: (descriptor: { readonly name: "net"; readonly host: string }) => { readonly state: string }
}

/** Deno's permissions when running under Deno, else `undefined`. */
const denoPermissions = (): DenoPermissions | undefined => {
  const deno: unknown = Reflect.get(globalThis, "Deno")
  if (typeof deno !== "object" || deno === null) return undefined
  const permissions: unknown = Reflect.get(deno, "permissions")
  if (typeof permissions !== "object" || permissions === null) return undefined
  const requestSync: unknown = Reflect.get(permissions, "requestSync")
  return typeof requestSync === "function"
    ? { requestSync: (d) => Reflect.apply(requestSync, permissions, [d]) }
    : undefined
}

/**
 * Why the address cannot be served, asked before listening: under Deno without network access,
 * node:http's `listen` throws where nothing can catch it and the process dies, so the permission
 * is requested first (Deno prompts when it can) and a refusal is named. `undefined` elsewhere.
 */
const netRefused = (): string | undefined => {
  const permissions = denoPermissions()
  if (permissions === undefined) return undefined
  const refused = `Deno has no network access to ${host}: run it with --allow-net=${host}`
  try {
    return permissions.requestSync({ name: "net", host }).state === "granted" ? undefined : refused
  } catch (error) {
    return `${refused} (${error instanceof Error ? error.message : String(error)})`
  }
}

const answer = (html: string, port: number) => (request: IncomingMessage, response: ServerResponse) => {
  const allowed = new Set([`${host}:${port}`, `localhost:${port}`])
  const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, {
      "Content-Type": type,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      ...headers
    })
    response.end(request.method === "HEAD" ? undefined : body)
  }
  if (!allowed.has(request.headers.host ?? "")) {
    send(421, "text/plain; charset=utf-8", `this server answers only to ${host}:${port}\n`)
  } else if (request.method !== "GET" && request.method !== "HEAD") {
    send(405, "text/plain; charset=utf-8", "only GET\n", { Allow: "GET, HEAD" })
  } else if ((request.url ?? "/").split("?")[0] !== "/") {
    send(404, "text/plain; charset=utf-8", "not found: the report is at /\n")
  } else {
    send(200, "text/html; charset=utf-8", html, {
      "Content-Security-Policy": `${Html.policy}; frame-ancestors 'none'`
    })
  }
}

/**
 * Serves a page (the HTML of `Html.render`) on 127.0.0.1 until the scope closes or `stop` runs.
 * Fails with a `ServeError` when the port is taken, or (under Deno) when there is no network
 * access to 127.0.0.1.
 *
 * @since 0.1.0
 */
export const serve = (html: string, options?: Options): Effect.Effect<Served, ServeError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<Served, ServeError>((resume) => {
      const refused = netRefused()
      if (refused !== undefined) return resume(Effect.fail(new ServeError({ message: refused })))
      const server = createServer()
      let stopped: Promise<void> | undefined
      const stop = Effect.promise(() => {
        stopped ??= new Promise<void>((done) => {
          server.close(() => done())
          server.closeAllConnections()
        })
        return stopped
      })
      server.once("error", (error) => resume(Effect.fail(new ServeError({ message: error.message }))))
      server.listen(options?.port ?? 0, host, () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : (options?.port ?? 0)
        server.on("request", answer(html, port))
        resume(Effect.succeed({ url: `http://${host}:${port}/`, port, stop }))
      })
      // Interrupted before it listened: nothing is left open.
      return Effect.sync(() => {
        server.close()
      })
    }),
    (served) => served.stop
  )
