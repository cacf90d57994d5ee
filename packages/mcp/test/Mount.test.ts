import { createServer } from "node:http"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { Execute, type Outcome } from "@agent-harness/executor"
import { MessageCatalog, Tool, Toolset } from "@agent-harness/tool-schema"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { Mount, Serve } from "../src/index.ts"
import { serveSdkHttp } from "./fixtures/sdk-http.ts"
import { tools as ourTools } from "./fixtures/tools.ts"

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))
const sdkServer = Mount.stdio(process.execPath, [fixture("sdk-server.ts")])
// A loaded 2-core machine: starting Node with the SDK can take seconds.
const slow = { timeout: 120_000 }
const connectTimeout = 60_000

/** Mounts in a scope of its own, closed by `close`. */
const mountIn = async (server: Mount.Server, options?: Mount.Options) => {
  const scope = Scope.makeUnsafe()
  const mounted = await Effect.runPromise(
    Mount.mount(server, { connectTimeout, ...options }).pipe(Scope.provide(scope))
  )
  return { mounted, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const run = (
  toolset: Toolset.Toolset<Tool.Any>,
  name: string,
  input: unknown,
  catalog: MessageCatalog.MessageCatalog = MessageCatalog.english
): Promise<Outcome.Outcome> =>
  Effect.runPromise(
    Execute.execute(toolset, { id: `call-${name}`, name, input }).pipe(
      Effect.provideService(MessageCatalog.MessageCatalog, catalog)
    )
  )

const seen = (outcome: Outcome.Outcome) => ({ tag: outcome._tag, content: outcome.content })

const callsReceived = async (toolset: Toolset.Toolset<Tool.Any>, name = "fx__calls") =>
  Number((await run(toolset, name, {})).content)

/** A port nothing listens on: one the system just gave out and took back. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("Mount of a server the user does not trust (the default)", slow, () => {
  it("its claimed hints are not believed: every tool gets MCP's defaults, and one warning names them", async () => {
    const untrusted = await mountIn(sdkServer, { prefix: "fx" })
    try {
      const echo = Toolset.get(untrusted.mounted.toolset, "fx__echo")
      // The server says echo is read-only and idempotent; that is its word, not the user's.
      expect(echo?.annotations).toStrictEqual({ title: "Echo", ...Tool.defaultAnnotations })
      expect(echo !== undefined && Tool.isIdempotent(echo)).toBe(false)
      expect(untrusted.mounted.warnings).toHaveLength(1)
      expect(untrusted.mounted.warnings[0]).toMatch(
        /^not trusted, so the annotations it claims \(read-only, idempotent…\) are not believed for \d+ tools? \(fx__echo[,)]/
      )
      expect(untrusted.mounted.warnings[0]).toContain("mount the server with trust to believe them")
    } finally {
      await untrusted.close()
    }
  }, 120_000)
})

describe("Mount over stdio: the official SDK's McpServer as the server", slow, () => {
  let fx: Awaited<ReturnType<typeof mountIn>>
  let tools: Toolset.Toolset<Tool.Any>
  beforeAll(async () => {
    // Trusted: these tests are about what the server's hints become (see the next describe for an untrusted one).
    fx = await mountIn(sdkServer, { prefix: "fx", trust: true })
    tools = fx.mounted.toolset
  }, 120_000)
  afterAll(() => fx.close(), 60_000)

  it("lists the server's tools under the prefix, with its name and version", () => {
    expect(fx.mounted.server).toStrictEqual({ name: "fixture", version: "1.2.3" })
    expect(fx.mounted.tools.map((t) => t.name)).toStrictEqual([
      "fx__echo",
      "fx__send",
      "fx__fail",
      "fx__throws",
      "fx__slow",
      "fx__hang",
      "fx__crash",
      "fx__big",
      "fx__picture",
      "fx__calls",
      "fx__pid"
    ])
    expect(fx.mounted.tools[0]).toStrictEqual({
      name: "fx__echo",
      remoteName: "echo",
      checkedBy: "schema",
      unenforced: []
    })
    expect(fx.mounted.warnings).toStrictEqual([])
  })

  it("maps the hints to our annotations; a tool without hints gets MCP's defaults (not idempotent)", () => {
    const echo = Toolset.get(tools, "fx__echo")
    const send = Toolset.get(tools, "fx__send")
    expect(echo?.annotations).toStrictEqual({
      title: "Echo",
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false
    })
    expect(echo?.description).toBe("Says the text back")
    expect(send?.annotations).toStrictEqual(Tool.defaultAnnotations)
    expect(send !== undefined && Tool.isIdempotent(send)).toBe(false)
  })

  it("a valid call runs on the server", async () => {
    expect(seen(await run(tools, "fx__echo", { text: "ab", times: 2 }))).toStrictEqual({
      tag: "Succeeded",
      content: "abab"
    })
  })

  it("an invalid call is not executed, with a field-level reason, and never sent", async () => {
    const before = await callsReceived(tools)
    expect(seen(await run(tools, "fx__echo", {}))).toStrictEqual({
      tag: "NotExecuted",
      content: "not executed: missing field 'text'"
    })
    expect(seen(await run(tools, "fx__echo", { text: "a", times: 0 }))).toStrictEqual({
      tag: "NotExecuted",
      content: "not executed: field 'times' must be a value greater than or equal to 1"
    })
    expect(seen(await run(tools, "fx__send", { to: "nobody", body: "hi" }))).toStrictEqual({
      tag: "NotExecuted",
      content: "not executed: field 'to' must be a valid email"
    })
    expect(seen(await run(tools, "fx__nope", {}))).toStrictEqual({
      tag: "NotExecuted",
      content: "not executed: unknown tool 'fx__nope'"
    })
    expect(await callsReceived(tools)).toBe(before)
  })

  it("what the server's schema allows is sent (zod lists open objects: extra fields are allowed)", async () => {
    expect(seen(await run(tools, "fx__echo", { text: "a", loud: true }))).toStrictEqual({
      tag: "Succeeded",
      content: "a"
    })
  })

  it("the server's isError results and thrown errors are error observations with its text", async () => {
    const fail = await run(tools, "fx__fail", {})
    expect(seen(fail)).toStrictEqual({ tag: "Failed", content: "quota exceeded" })
    expect(fail._tag === "Failed" && fail.failure).toMatchObject({
      _tag: "ToolError",
      error: { _tag: "CallError", reason: "ToolError" }
    })
    expect(seen(await run(tools, "fx__throws", {}))).toStrictEqual({ tag: "Failed", content: "kaboom" })
  })

  it("other content blocks are described in a line each", async () => {
    expect((await run(tools, "fx__picture", {})).content).toBe(
      "here:\n[image image/png, 5 bytes]\n[resource file:///a.txt (a.txt)]"
    )
  })

  it("answers concurrent calls, each with its own result", async () => {
    const outcomes = await Effect.runPromise(
      Effect.all(
        Array.from({ length: 12 }, (_, i) =>
          Execute.execute(tools, { id: `c${i}`, name: "fx__slow", input: { ms: (i % 4) * 30, tag: `t${i}` } })
        ),
        { concurrency: "unbounded" }
      )
    )
    expect(outcomes.map((o) => o.content)).toStrictEqual(Array.from({ length: 12 }, (_, i) => `done t${i}`))
  })

  it("carries a 5 MB result whole (with the content cap lifted), and cuts it to the cap by default", async () => {
    const call = { id: "call-big", name: "fx__big", input: { bytes: 5 * 1024 * 1024 } }
    const uncapped = { ...Execute.defaultLimits, maxContent: Infinity }
    const outcome = await Effect.runPromise(
      Execute.execute(tools, call).pipe(Effect.provideService(Execute.Limits, uncapped))
    )
    expect(outcome._tag).toBe("Succeeded")
    expect(outcome.content.length).toBe(5 * 1024 * 1024)
    const capped = await run(tools, "fx__big", { bytes: 5 * 1024 * 1024 })
    expect(capped.content).toMatch(/\n… 5,122,880 more characters not shown$/)
  })

  it("a call the server never answers times out, and the server stays usable", async () => {
    // Its own mount: a short call timeout (generous still for a loaded machine's echo).
    const { mounted, close } = await mountIn(sdkServer, { prefix: "fx", callTimeout: 15_000 })
    try {
      expect(seen(await run(mounted.toolset, "fx__hang", {}))).toStrictEqual({
        tag: "Failed",
        content: "timed out after 15000 ms; the call may have partly run"
      })
      expect((await run(mounted.toolset, "fx__echo", { text: "still here" })).content).toBe("still here")
    } finally {
      await close()
    }
  })
})

describe("Mount over stdio: a server that dies", slow, () => {
  it("the call it dies in, and every later call, are error observations that say why; the loop goes on", async () => {
    const { mounted, close } = await mountIn(sdkServer, { prefix: "fx" })
    try {
      expect(mounted.status()).toStrictEqual({ _tag: "Running" })
      const crash = await run(mounted.toolset, "fx__crash", {})
      expect(seen(crash)).toStrictEqual({
        tag: "Failed",
        content:
          "the MCP server 'fixture' stopped during the call (exit code 3; stderr: fatal: out of cheese); the call may have partly run"
      })
      expect(mounted.status()).toStrictEqual({ _tag: "Stopped", how: "exit code 3; stderr: fatal: out of cheese" })
      const later = await run(mounted.toolset, "fx__echo", { text: "x" })
      expect(seen(later)).toStrictEqual({
        tag: "Failed",
        content:
          "the MCP server 'fixture' has stopped (exit code 3; stderr: fatal: out of cheese); the call was not sent"
      })
      expect(later._tag === "Failed" && later.failure).toMatchObject({ error: { reason: "Stopped" } })
      // Local validation still answers first.
      expect(seen(await run(mounted.toolset, "fx__echo", {}))).toStrictEqual({
        tag: "NotExecuted",
        content: "not executed: missing field 'text'"
      })
    } finally {
      await close()
    }
  })

  it("speaks Spanish when the catalogue does", async () => {
    const { mounted, close } = await mountIn(sdkServer, { prefix: "fx", callTimeout: 15_000 })
    try {
      const es = MessageCatalog.spanish
      expect((await run(mounted.toolset, "fx__echo", {}, es)).content).toBe("no se ha ejecutado: falta el campo 'text'")
      expect((await run(mounted.toolset, "fx__hang", {}, es)).content).toBe(
        "se ha agotado el tiempo tras 15000 ms; la llamada puede haberse ejecutado en parte"
      )
      expect((await run(mounted.toolset, "fx__crash", {}, es)).content).toBe(
        "el servidor MCP 'fixture' se ha detenido durante la llamada (código de salida 3; stderr: fatal: out of cheese); la llamada puede haberse ejecutado en parte"
      )
      expect((await run(mounted.toolset, "fx__echo", { text: "x" }, es)).content).toBe(
        "el servidor MCP 'fixture' se ha detenido (código de salida 3; stderr: fatal: out of cheese); la llamada no se ha enviado"
      )
    } finally {
      await close()
    }
  })

  it("closing the scope kills the child", async () => {
    const { mounted, close } = await mountIn(sdkServer)
    const pid = Number((await run(mounted.toolset, "fixture__pid", {})).content)
    expect(isRunning(pid)).toBe(true)
    await close()
    expect(isRunning(pid)).toBe(false)
    expect(mounted.status()._tag).toBe("Stopped")
  })
})

describe("Mount: servers that cannot be mounted are clear errors", slow, () => {
  const failure = (server: Mount.Server, options?: Mount.Options) =>
    Effect.runPromise(Effect.scoped(Mount.mount(server, { connectTimeout, ...options })).pipe(Effect.flip))

  it("a command that does not exist", async () => {
    const error = await failure(Mount.stdio("no-such-mcp-server-here", ["--x"]))
    expect(error.message).toBe(
      "MCP server 'no-such-mcp-server-here --x': could not start 'no-such-mcp-server-here': spawn no-such-mcp-server-here ENOENT"
    )
  })

  it("a server that exits before the handshake", async () => {
    const error = await failure(
      Mount.stdio(process.execPath, ["-e", "process.stderr.write('missing API key\\n'); process.exit(2)"])
    )
    expect(error.problem).toBe("it stopped before the handshake finished (exit code 2; stderr: missing API key)")
  })

  it("a server that never answers the handshake (and is killed)", async () => {
    const error = await failure(Mount.stdio(process.execPath, ["-e", "setInterval(() => {}, 1000)"]), {
      connectTimeout: 1500
    })
    expect(error.problem).toBe("it did not finish the handshake within 1500 ms")
  })

  it("a prefix providers would refuse, a URL that is not one, a server that is not there", async () => {
    expect((await failure(sdkServer, { prefix: "my fs" })).problem).toBe(
      "the prefix 'my fs' may only hold letters, digits, '_' and '-'"
    )
    expect((await failure(Mount.http("not a url"))).problem).toBe("'not a url' is not a URL")
    const closed = await freePort()
    const refused = await failure(Mount.http(`http://127.0.0.1:${closed}/mcp`))
    expect(refused.problem).toMatch(/^could not connect: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/)
  })
})

describe("Mount over stdio: what real servers sometimes list", slow, () => {
  let raw: Awaited<ReturnType<typeof mountIn>>
  beforeAll(async () => {
    raw = await mountIn(Mount.stdio(process.execPath, [fixture("raw-server.ts")]))
  }, 120_000)
  afterAll(() => raw.close(), 60_000)

  it("skips and renames what it must, reports what is not checked locally, and says so", () => {
    expect(raw.mounted.prefix).toBe("raw_fixture")
    expect(raw.mounted.tools.map((t) => [t.name, t.checkedBy])).toStrictEqual([
      ["raw_fixture__link", "validator"],
      ["raw_fixture__paint", "schema"],
      ["raw_fixture__stringly", "server"],
      ["raw_fixture__admin_users_list_b3eafb43", "schema"]
    ])
    expect(raw.mounted.warnings).toStrictEqual([
      "tool 'raw_fixture__paint': /properties/shape/$ref: $ref 'https://example.com/shape.json' is not in this schema: anything is accepted there",
      "tool 'raw_fixture__paint': /properties/color/format: the format 'color' is not known: not checked",
      `tool 'raw_fixture__stringly': input schema: the input schema describes "string", not an object: calls are sent unchecked`,
      "tool 'admin.users/list' is mounted as 'raw_fixture__admin_users_list_b3eafb43' (model providers accept only letters, digits, '_' and '-', 64 at most)",
      "tool #5 skipped: it has no name",
      "tool 'link' skipped: the server lists that name twice"
    ])
  })

  it("checks if/then locally (effect refuses it), and sends a valid call under the remote name", async () => {
    const tools = raw.mounted.toolset
    expect(seen(await run(tools, "raw_fixture__link", { kind: "link" }))).toStrictEqual({
      tag: "NotExecuted",
      content: "not executed: missing field 'url'"
    })
    expect((await run(tools, "raw_fixture__link", { kind: "link", url: "https://a.es" })).content).toBe(
      'link {"kind":"link","url":"https://a.es"} #1'
    )
    expect((await run(tools, "raw_fixture__admin_users_list_b3eafb43", {})).content).toBe("admin.users/list {} #2")
    expect((await run(tools, "raw_fixture__stringly", { any: 1 })).content).toBe('stringly {"any":1} #3')
  })
})

describe("Mount over Streamable HTTP", slow, () => {
  it("the official SDK's server: valid, invalid (not sent), isError; then down: unreachable, never a crash", async () => {
    const server = await serveSdkHttp()
    const { mounted, close } = await mountIn(Mount.http(server.url), { prefix: "fx" })
    try {
      const tools = mounted.toolset
      expect(seen(await run(tools, "fx__echo", { text: "hi" }))).toStrictEqual({ tag: "Succeeded", content: "hi" })
      expect(seen(await run(tools, "fx__echo", { text: 1 }))).toStrictEqual({
        tag: "NotExecuted",
        content: "not executed: field 'text' must be a string"
      })
      expect(seen(await run(tools, "fx__fail", {}))).toStrictEqual({ tag: "Failed", content: "quota exceeded" })
      await server.close()
      const down = await run(tools, "fx__echo", { text: "hi" })
      expect(down._tag).toBe("Failed")
      // The request went out on a connection the server had closed: whether it ran is unknown.
      expect(down.content).toMatch(
        /^(the call was sent to the MCP server 'fixture' and the connection broke before an answer \(fetch failed|the call never reached the MCP server 'fixture' \(fetch failed)/
      )
    } finally {
      await close()
    }
  })

  it("our own server, mounted: the call id travels, invalid calls stop at the mount", async () => {
    const scope = Scope.makeUnsafe()
    try {
      const seenIds: Array<string> = []
      const listening = await Effect.runPromise(
        Serve.http(ourTools, { port: 0, name: "ours" }).pipe(
          Effect.provideService(Execute.Middleware, (call, _tool, go) => {
            seenIds.push(call.id)
            return go
          }),
          Scope.provide(scope)
        )
      )
      const mounted = await Effect.runPromise(
        Mount.mount(Mount.http(listening.url), { connectTimeout, trust: true }).pipe(Scope.provide(scope))
      )
      expect(mounted.prefix).toBe("ours")
      expect(Toolset.get(mounted.toolset, "ours__read")?.annotations).toStrictEqual({
        title: "Read a file",
        readOnly: true,
        destructive: false,
        idempotent: true,
        openWorld: false
      })
      expect(seen(await run(mounted.toolset, "ours__read", { path: "a" }))).toStrictEqual({
        tag: "Succeeded",
        content: "contents of a"
      })
      expect(seen(await run(mounted.toolset, "ours__read", { path: "a", x: 1 }))).toStrictEqual({
        tag: "NotExecuted",
        content: "not executed: unexpected field 'x'"
      })
      expect(seen(await run(mounted.toolset, "ours__throws", {}))).toStrictEqual({ tag: "Failed", content: "kaboom" })
      expect(seenIds).toStrictEqual(["call-ours__read", "call-ours__throws"])
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
