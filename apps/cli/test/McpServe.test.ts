/**
 * `harness mcp serve` end to end: the CLI spawned as an MCP server, spoken to by the official
 * SDK's `Client` over stdio and Streamable HTTP. Every call is answered as `execute` answers our
 * own loop: invalid and unknown calls are `isError` results with the catalogue's texts, a link
 * planted in the root is refused, a journal replays a call id sent again. Spawns are slow on a
 * loaded machine: every test and every request has a generous timeout of its own.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, symlinkSync } from "node:fs"
import { createServer } from "node:http"
import process from "node:process"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { harness } from "./fixtures/harness.ts"
import { demoDir, tempFolder } from "./fixtures/scenarios.ts"
import { serveOnce } from "./fixtures/stdio.ts"

/** A test that spawns the CLI (and talks to it): two minutes at most. */
const SPAWNS = { timeout: 120_000 }
/** Each MCP request, and the handshake. */
const request = { timeout: 60_000 }

const temp = tempFolder("mcp-serve")
/** Every server this file starts: one still running at the end (a failed or skipped test) is killed. */
const spawned = new Set<ChildProcess>()
afterAll(() => {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  temp.remove()
})

/** A root with two files, and a link to a file outside it. */
const makeRoot = (name: string): string => {
  temp.write(`${name}/notes.txt`, "buy bread\nbuy milk\n")
  temp.write(`${name}/todo.txt`, "call Ana\n")
  const outside = temp.write(`${name}-outside/secret.txt`, "the secret")
  symlinkSync(outside, temp.path(`${name}/secret.txt`))
  return temp.path(name)
}

const cli = [`--disable-warning=ExperimentalWarning`, `${demoDir}src/main.ts`, "mcp", "serve", "--tools", "files"]

const stdioClient = async (root: string, extra: ReadonlyArray<string> = []): Promise<Client> => {
  const client = new Client({ name: "test", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [...cli, "--root", root, ...extra], stderr: "pipe" }),
    request
  )
  return client
}

/** Runs `use` with a client of a server on `root`, closing the client after, whatever happened. */
const withStdioClient = async (
  root: string,
  extra: ReadonlyArray<string>,
  use: (client: Client) => Promise<void>
): Promise<void> => {
  const client = await stdioClient(root, extra)
  try {
    await use(client)
  } finally {
    await client.close()
  }
}

const call = async (client: Client, name: string, args?: Record<string, unknown>, callId?: string) => {
  const result = (await client.callTool(
    {
      name,
      ...(args === undefined ? {} : { arguments: args }),
      ...(callId === undefined ? {} : { _meta: { "agent-harness/call-id": callId } })
    },
    undefined,
    request
  )) as CallToolResult
  return {
    isError: result.isError === true,
    text: result.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("")
  }
}

/** Spawns the CLI with `--http`, and resolves once it printed its URL (stderr). */
const httpServer = (
  root: string,
  extra: ReadonlyArray<string> = []
): Promise<{ readonly child: ChildProcess; readonly url: string; readonly exited: Promise<number | null> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cli, "--root", root, "--http", "0", ...extra], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    spawned.add(child)
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    let stderr = ""
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)?.[1]
      if (url !== undefined) resolve({ child, url, exited })
    })
    void exited.then((code) => reject(new Error(`exited (${code}) before listening: ${stderr}${stdout}`)))
  })

const httpClient = async (url: string): Promise<Client> => {
  const client = new Client({ name: "test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), request)
  return client
}

/** What every transport must answer: `execute`'s semantics over the file tools of a real folder. */
const contract = (connect: () => Promise<{ readonly client: Client; readonly root: string }>) => {
  let client: Client
  let root: string
  beforeAll(async () => {
    ;({ client, root } = await connect())
  }, 120_000)
  afterAll(() => client.close(), 60_000)

  it("lists the five file tools with their JSON Schemas and their annotations as hints", SPAWNS, async () => {
    const { tools } = await client.listTools(undefined, request)
    assert.deepStrictEqual(
      tools.map((t) => t.name),
      ["read", "list", "search", "write", "append"]
    )
    const read = tools[0]
    assert.deepStrictEqual(read?.inputSchema.required, ["path"])
    assert.strictEqual(read?.inputSchema.additionalProperties, false)
    assert.deepStrictEqual(read?.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    // Append is the one that is not safe to repeat.
    assert.deepStrictEqual(tools[4]?.annotations, {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false
    })
  })

  it("valid calls run on the folder", SPAWNS, async () => {
    assert.deepStrictEqual(await call(client, "read", { path: "notes.txt" }), {
      isError: false,
      text: "buy bread\nbuy milk\n"
    })
    assert.deepStrictEqual(await call(client, "search", { pattern: "buy" }), {
      isError: false,
      text: "notes.txt: buy bread\nnotes.txt: buy milk"
    })
    assert.deepStrictEqual(await call(client, "write", { path: "new.txt", content: "hello" }), {
      isError: false,
      text: "wrote 5 characters to new.txt"
    })
    assert.strictEqual(readFileSync(`${root}/new.txt`, "utf8"), "hello")
  })

  it("invalid and unknown calls are isError results with our texts; nothing runs", SPAWNS, async () => {
    assert.deepStrictEqual(await call(client, "read", {}), {
      isError: true,
      text: "not executed: missing field 'path'"
    })
    assert.deepStrictEqual(await call(client, "read", { path: "notes.txt", mode: "raw" }), {
      isError: true,
      text: "not executed: unexpected field 'mode'"
    })
    assert.deepStrictEqual(await call(client, "write", { path: "x.txt", content: 42 }), {
      isError: true,
      text: "not executed: field 'content' must be a string"
    })
    assert.deepStrictEqual(await call(client, "delete", { path: "notes.txt" }), {
      isError: true,
      text: "not executed: unknown tool 'delete'"
    })
    assert.deepStrictEqual(await call(client, "read", { path: "missing.txt" }), {
      isError: true,
      text: "file 'missing.txt' does not exist"
    })
  })

  it("a link planted in the root is refused, never followed", SPAWNS, async () => {
    assert.deepStrictEqual(await call(client, "read", { path: "secret.txt" }), {
      isError: true,
      text: "not executed: 'secret.txt' is a symbolic link, and links are not followed"
    })
    assert.deepStrictEqual(await call(client, "append", { path: "secret.txt", content: "x" }), {
      isError: true,
      text: "not executed: 'secret.txt' is a symbolic link, and links are not followed"
    })
    assert.deepStrictEqual(await call(client, "write", { path: "secret.txt", content: "x" }), {
      isError: true,
      text: "not executed: 'secret.txt' is a symbolic link, and links are not followed"
    })
    // The file outside the root is untouched.
    assert.strictEqual(readFileSync(`${root}-outside/secret.txt`, "utf8"), "the secret")
  })
}

describe("harness mcp serve over stdio, the SDK's client", () => {
  contract(async () => {
    const root = makeRoot("stdio")
    return { client: await stdioClient(root), root }
  })
})

describe("harness mcp serve over Streamable HTTP, the SDK's client", () => {
  let server: Awaited<ReturnType<typeof httpServer>> | undefined
  contract(async () => {
    const root = makeRoot("http")
    server = await httpServer(root)
    return { client: await httpClient(server.url), root }
  })

  it("SIGTERM stops it: exit 0", SPAWNS, async () => {
    server?.child.kill("SIGTERM")
    assert.strictEqual(await server?.exited, 0)
  })
})

describe("harness mcp serve: the rest", () => {
  it("speaks Spanish with --lang es", SPAWNS, async () => {
    await withStdioClient(makeRoot("es"), ["--lang", "es"], async (client) => {
      const { tools } = await client.listTools(undefined, request)
      assert.deepStrictEqual(
        tools.map((t) => t.name),
        ["leer", "listar", "buscar", "escribir", "añadir"]
      )
      assert.deepStrictEqual(await call(client, "leer", {}), {
        isError: true,
        text: "no se ha ejecutado: falta el campo 'ruta'"
      })
      assert.deepStrictEqual(await call(client, "borrar", {}), {
        isError: true,
        text: "no se ha ejecutado: no existe la herramienta 'borrar'"
      })
      assert.deepStrictEqual(await call(client, "leer", { ruta: "todo.txt" }), { isError: false, text: "call Ana\n" })
    })
  })

  it("a journal replays a call id sent again instead of appending twice", SPAWNS, async () => {
    const root = makeRoot("journal")
    const journal = temp.path("journal.sqlite")
    await withStdioClient(root, ["--journal", journal], async (client) => {
      const first = await call(client, "append", { path: "log.txt", content: "once\n" }, "call-1")
      const again = await call(client, "append", { path: "log.txt", content: "once\n" }, "call-1")
      assert.deepStrictEqual(first, { isError: false, text: "appended 5 characters to log.txt" })
      assert.deepStrictEqual(again, first)
      assert.strictEqual(readFileSync(`${root}/log.txt`, "utf8"), "once\n")
      // The same id for another call is refused, not run.
      const other = await call(client, "append", { path: "log.txt", content: "other\n" }, "call-1")
      assert.isTrue(other.isError)
      assert.match(other.text, /^not executed: call id 'call-1' was already used for another call/)
      assert.strictEqual(readFileSync(`${root}/log.txt`, "utf8"), "once\n")
    })
  })

  it(
    "a policy gates the served calls: denied calls are not executed and say why; a rule that asks denies",
    SPAWNS,
    async () => {
      const root = makeRoot("policy")
      const journal = temp.path("policy-journal.sqlite")
      const policy = temp.write(
        "policy.json",
        JSON.stringify({
          rules: [
            { tool: "read", decision: "allow" },
            { tool: "write", decision: "ask", reason: "writes are checked by a person" }
          ],
          default: { decision: "deny", reason: "only reading is served" }
        })
      )
      await withStdioClient(root, ["--policy", policy, "--journal", journal], async (client) => {
        assert.deepStrictEqual(await call(client, "read", { path: "todo.txt" }), { isError: false, text: "call Ana\n" })
        const append = await call(client, "append", { path: "todo.txt", content: "x" }, "a-1")
        assert.isTrue(append.isError)
        assert.match(append.text, /^not executed: denied: .*only reading is served/)
        const write = await call(client, "write", { path: "todo.txt", content: "x" })
        assert.isTrue(write.isError)
        assert.match(write.text, /^not executed: denied: /)
        assert.strictEqual(readFileSync(`${root}/todo.txt`, "utf8"), "call Ana\n")
        // The gate stands in front of the journal: a denied call was never recorded as started, so
        // the same id runs once the policy allows it (here: it is still denied, and still not journaled).
        assert.deepStrictEqual(await call(client, "append", { path: "todo.txt", content: "x" }, "a-1"), append)
      })
    }
  )

  it("--deny and --allow gate without a policy file", SPAWNS, async () => {
    const root = makeRoot("shorthands")
    await withStdioClient(root, ["--deny", "append", "--deny", "write"], async (client) => {
      assert.isFalse((await call(client, "list", { folder: "" })).isError)
      const append = await call(client, "append", { path: "todo.txt", content: "x" })
      assert.isTrue(append.isError)
      assert.match(append.text, /^not executed: denied: .*--deny/)
      assert.strictEqual(readFileSync(`${root}/todo.txt`, "utf8"), "call Ana\n")
    })
  })

  it(
    "stdio: stdout holds only the protocol; when stdin ends, the calls read are answered and it exits 0",
    SPAWNS,
    async () => {
      const root = makeRoot("stdin-end")
      const { code, messages } = await serveOnce({
        args: [...cli, "--root", root],
        calls: [{ name: "append", arguments: { path: "a.txt", content: "x" } }],
        spawned: (child) => spawned.add(child)
      })
      assert.strictEqual(code, 0)
      assert.isTrue(messages.every((m) => m.jsonrpc === "2.0"))
      assert.deepStrictEqual(
        messages.map((m) => m.id),
        [1, 2]
      )
      assert.deepStrictEqual(messages[1]?.result, {
        content: [{ type: "text", text: "appended 1 characters to a.txt" }],
        isError: false
      })
      assert.strictEqual(readFileSync(`${root}/a.txt`, "utf8"), "x")
    }
  )

  it("HTTP: SIGINT stops it too, exit 0", SPAWNS, async () => {
    const server = await httpServer(makeRoot("sigint"))
    server.child.kill("SIGINT")
    assert.strictEqual(await server.exited, 0)
  })

  it("bad usage is exit 2, naming what is wrong", { timeout: 300_000 }, async () => {
    const root = makeRoot("usage")
    const file = temp.write("a-file.txt", "x")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--root", temp.path("nowhere")], `harness mcp serve: --root ${temp.path("nowhere")}: no such folder`],
      [["--root", file], `harness mcp serve: --root ${file}: it is a regular file, not a folder`],
      [["--root", root, "--http", "70000"], "harness mcp serve: '70000' is not a port (0 to 65535)"],
      [["--root", root, "--journal", root], `harness mcp serve: --journal ${root}:`],
      [
        ["--root", root, "--policy", temp.write("bad-policy.json", '{"rules":[{"tool":"read","decision":"maybe"}]}')],
        "rules[0].decision"
      ],
      [["--root", root, "--deny", "[z-a"], `--deny "[z-a"`]
    ]
    for (const [args, message] of cases) {
      const r = harness(["mcp", "serve", "--tools", "files", ...args])
      assert.strictEqual(r.code, 2, args.join(" "))
      assert.include(r.stderr, message)
      assert.strictEqual(r.stdout, "", args.join(" "))
    }
    const missingRoot = harness(["mcp", "serve", "--tools", "files"])
    assert.strictEqual(missingRoot.code, 2)
    assert.include(missingRoot.stderr, "Missing required flag: --root")
    const unknownTools = harness(["mcp", "serve", "--tools", "web", "--root", root])
    assert.strictEqual(unknownTools.code, 2)
    assert.include(unknownTools.stderr, `Invalid value for flag --tools: "web". Expected: "files"`)
  })

  it("HTTP: a port in use is exit 2, naming it", SPAWNS, async () => {
    const busy = createServer()
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, "127.0.0.1", () => {
        const address = busy.address()
        resolve(typeof address === "object" && address !== null ? address.port : 0)
      })
    )
    try {
      const r = harness(["mcp", "serve", "--tools", "files", "--root", makeRoot("busy"), "--http", String(port)])
      assert.strictEqual(r.code, 2)
      assert.strictEqual(r.stderr, `harness mcp serve: port ${port} on 127.0.0.1 is already in use\n`)
    } finally {
      await new Promise((resolve) => busy.close(resolve))
    }
  })
})
