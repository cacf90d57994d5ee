import { Execute, type Outcome } from "@agent-harness/executor"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Scope } from "effect"
import { Mount, Serve } from "../src/index.ts"

// Servers and clients in this process, over loopback HTTP: no child to start, but still I/O.
const slow = { timeout: 60_000 }
const connectTimeout = 30_000

const echo = (name: string, reply: string) =>
  Tool.make(name, {
    description: `answers ${reply}`,
    parameters: Schema.Struct({}),
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    run: () => Effect.succeed(reply)
  })

const run = (toolset: Toolset.Toolset<Tool.Any>, name: string): Promise<Outcome.Outcome> =>
  Effect.runPromise(
    Execute.execute(toolset, { id: `call-${name}`, name, input: {} }).pipe(
      Effect.provideService(MessageCatalog.MessageCatalog, MessageCatalog.english)
    )
  )

/** Serves toolsets over HTTP in a fresh scope, then runs `use` with their URLs and closes it. */
const withServers = async <A>(
  served: ReadonlyArray<{ readonly name: string; readonly tools: Toolset.Toolset<Tool.Any> }>,
  use: (urls: ReadonlyArray<string>, scope: Scope.Closeable) => Promise<A>
): Promise<A> => {
  const scope = Scope.makeUnsafe()
  try {
    const urls = await Effect.runPromise(
      Effect.forEach(served, ({ name, tools }) =>
        Effect.map(Serve.http(tools, { port: 0, name }), (listening) => listening.url)
      ).pipe(Scope.provide(scope))
    )
    return await use(urls, scope)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const mountAllIn = (scope: Scope.Scope, entries: ReadonlyArray<Mount.Entry>) =>
  Effect.runPromise(Effect.result(Mount.mountAll(entries).pipe(Scope.provide(scope))))

const http = (url: string, prefix?: string): Mount.Entry => ({
  server: Mount.http(url),
  // Trusted: these tests are about prefixes and warnings of their own, not about trust.
  options: { connectTimeout, trust: true, ...(prefix === undefined ? {} : { prefix }) }
})

describe("Mount.mountAll", slow, () => {
  it("mounts servers in order into one toolset; two servers of one name get numbered prefixes, said in a warning", () =>
    withServers(
      [
        { name: "notes", tools: Toolset.make(echo("hello", "first")) },
        { name: "notes", tools: Toolset.make(echo("hello", "second")) },
        { name: "web", tools: Toolset.make(echo("get", "page")) }
      ],
      async ([a = "", b = "", c = ""], scope) => {
        const all = await mountAllIn(scope, [http(a), http(b), http(c, "w")])
        if (all._tag === "Failure") throw all.failure
        const { toolset, mounted, warnings } = all.success
        expect(toolset.tools.map((t) => t.name)).toStrictEqual(["notes__hello", "notes_2__hello", "w__get"])
        expect(mounted.map((m) => m.prefix)).toStrictEqual(["notes", "notes_2", "w"])
        expect(warnings).toStrictEqual([
          `notes_2: the prefix 'notes' is taken by another server, so ${b}'s tools are prefixed 'notes_2'`
        ])
        expect((await run(toolset, "notes__hello")).content).toBe("first")
        expect((await run(toolset, "notes_2__hello")).content).toBe("second")
        expect((await run(toolset, "w__get")).content).toBe("page")
      }
    ))

  it("a server's own warnings come led by its prefix", () =>
    withServers([{ name: "odd", tools: Toolset.make(echo("a.b", "dotted")) }], async ([a = ""], scope) => {
      const all = await mountAllIn(scope, [http(a, "o")])
      if (all._tag === "Failure") throw all.failure
      expect(all.success.warnings).toHaveLength(1)
      expect(all.success.warnings[0]).toMatch(/^o: tool 'a\.b' is mounted as 'o__a_b_[0-9a-f]{8}'/)
    }))

  it("two servers given one prefix: refused before anything starts", async () => {
    const scope = Scope.makeUnsafe()
    try {
      // Neither command exists: the refusal comes first, so nothing is started.
      const all = await mountAllIn(scope, [
        { server: Mount.stdio("no-such-command-a"), options: { prefix: "fx" } },
        { server: Mount.stdio("no-such-command-b"), options: { prefix: "fx" } }
      ])
      expect(all._tag === "Failure" ? all.failure.message : "mounted").toBe(
        "MCP server 'no-such-command-b': the prefix 'fx' is already the prefix of no-such-command-a: give each server its own"
      )
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("two tools that end up with one name across servers: a MountError naming both servers", () =>
    withServers(
      [
        { name: "one", tools: Toolset.make(echo("b__x", "one")) },
        { name: "two", tools: Toolset.make(echo("x", "two")) }
      ],
      async ([a = "", b = ""], scope) => {
        const all = await mountAllIn(scope, [http(a, "a"), http(b, "a__b")])
        expect(all._tag === "Failure" ? all.failure.message : "mounted").toBe(
          `MCP server '${b}': its tool 'a__b__x' has the name of a tool of ${a} (prefixes 'a' and 'a__b'): choose prefixes that do not start one with the other`
        )
      }
    ))

  it("the first server that cannot be mounted fails the whole mount", () =>
    withServers([{ name: "ok", tools: Toolset.make(echo("hi", "hi")) }], async ([a = ""], scope) => {
      const all = await mountAllIn(scope, [
        http(a),
        { server: Mount.stdio("no-such-command-xyz"), options: { prefix: "gone" } }
      ])
      expect(all._tag === "Failure" ? all.failure.message : "mounted").toMatch(
        /^MCP server 'no-such-command-xyz': could not start 'no-such-command-xyz'/
      )
    }))
})
