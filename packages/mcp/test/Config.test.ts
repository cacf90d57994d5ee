// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax this module reads and names, not a template literal.
/**
 * The `mcpServers` file (`Config`, `@agent-harness/mcp/config`): what it accepts (Claude Desktop / Claude Code / Cursor
 * entries, our `timeout` and `trust`), every bad input named by its JSON path, `${VAR}`
 * expansion, the environment a started server gets (what `npx` needs, never an API key), and a
 * scenario declaration whose variable is not set (named, nothing started).
 */
import process from "node:process"
import type { Mounter } from "@agent-harness/scenario"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Result } from "effect"
import * as McpConfig from "../src/Config.ts"
import * as McpScenario from "../src/Scenario.ts"

const problemOf = (json: unknown): string => {
  const decoded = McpConfig.decode(json)
  if (Result.isSuccess(decoded)) throw new Error(`accepted: ${JSON.stringify(json)}`)
  return `${decoded.failure.path}: ${decoded.failure.problem}`
}

const servers = (entries: Record<string, unknown>) => ({ mcpServers: entries })

describe("McpConfig.decode", () => {
  it("reads the entries every client writes, in order, ${VAR} kept as written", () => {
    const decoded = McpConfig.parse(
      JSON.stringify({
        globalShortcut: "Ctrl+Space",
        mcpServers: {
          fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"] },
          web: {
            type: "http",
            url: "https://example.com/mcp",
            headers: { Authorization: "Bearer ${WEB_TOKEN}" },
            timeout: 10000,
            trust: true
          },
          "my-db": { type: "stdio", command: "db-server", env: { DB_URL: "${DB_URL:-sqlite://x}" }, prefix: "db" }
        }
      })
    )
    assert.isTrue(Result.isSuccess(decoded))
    if (Result.isFailure(decoded)) return
    assert.deepStrictEqual(decoded.success, [
      {
        name: "fs",
        declaration: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/notes"],
          prefix: "fs"
        }
      },
      {
        name: "web",
        declaration: {
          type: "http",
          url: "https://example.com/mcp",
          headers: { Authorization: "Bearer ${WEB_TOKEN}" },
          timeout: 10000,
          trust: true,
          prefix: "web"
        }
      },
      {
        name: "my-db",
        declaration: { type: "stdio", command: "db-server", env: { DB_URL: "${DB_URL:-sqlite://x}" }, prefix: "db" }
      }
    ])
  })

  it("every bad input is named by its JSON path", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [[], `(root): expected an object with "mcpServers", got a list`],
      [{}, "mcpServers: missing: the servers to mount, by name"],
      [
        { servers: {} },
        `mcpServers: missing: the servers to mount, by name (VS Code's "servers" is not read: rename it "mcpServers")`
      ],
      [{ mcpServers: [] }, "mcpServers: expected an object of servers by name, got a list"],
      [{ mcpServers: {} }, "mcpServers: no servers: name at least one"],
      [servers({ fs: "npx" }), `mcpServers.fs: expected a server, { "command": … } or { "url": … }, got "npx"`],
      [servers({ fs: {} }), `mcpServers.fs: needs "command" (a server to start) or "url" (a server to reach)`],
      [servers({ fs: { command: "" } }), "mcpServers.fs.command: expected a program to start, got an empty string"],
      [servers({ fs: { command: 3 } }), "mcpServers.fs.command: expected a string, got 3"],
      [servers({ fs: { command: "npx", args: "-y" } }), `mcpServers.fs.args: expected a list of strings, got "-y"`],
      [servers({ fs: { command: "npx", args: ["-y", 3] } }), "mcpServers.fs.args[1]: expected a string, got 3"],
      [servers({ fs: { command: "npx", env: ["A"] } }), "mcpServers.fs.env: expected an object of strings, got a list"],
      [servers({ fs: { command: "npx", env: { PORT: 80 } } }), "mcpServers.fs.env.PORT: expected a string, got 80"],
      [
        servers({ fs: { command: "npx", headers: { A: "b" } } }),
        `mcpServers.fs.headers: only a server that is reached ("url") takes "headers"`
      ],
      [
        servers({ w: { url: "http://127.0.0.1/mcp", env: {} } }),
        `mcpServers.w.env: only a server that is started ("command") takes "env"`
      ],
      [
        servers({ w: { url: "http://127.0.0.1/mcp", command: "x" } }),
        `mcpServers.w.url: a server is started ("command") or reached ("url"), not both`
      ],
      [
        servers({ w: { url: "file:///etc/passwd" } }),
        `mcpServers.w.url: expected an http:// or https:// URL, got "file:///etc/passwd"`
      ],
      [
        servers({ w: { type: "sse", url: "http://127.0.0.1/sse" } }),
        `mcpServers.w.type: the HTTP+SSE transport (deprecated since MCP 2025-03-26) is not supported: mount the server's Streamable HTTP endpoint, "type": "http"`
      ],
      [
        servers({ w: { type: "websocket", url: "http://127.0.0.1/mcp" } }),
        `mcpServers.w.type: expected "stdio" (a server to start) or "http" (a server to reach), got "websocket"`
      ],
      [
        servers({ w: { type: "stdio", url: "http://127.0.0.1/mcp" } }),
        `mcpServers.w.type: "stdio" is a server to start, with "command"; this one has "url": use "http"`
      ],
      [
        servers({ w: { type: "http", command: "x" } }),
        `mcpServers.w.type: "http" is a server to reach, with "url"; this one has "command": use "stdio"`
      ],
      [servers({ w: { type: "http" } }), `mcpServers.w: an "http" server needs "url" (where to reach it)`],
      [
        servers({ fs: { command: "npx", timeout: 0 } }),
        "mcpServers.fs.timeout: expected a whole number of milliseconds from 1 to 2147483647, got 0"
      ],
      [
        servers({ fs: { command: "npx", timeout: 2 ** 31 } }),
        "mcpServers.fs.timeout: expected a whole number of milliseconds from 1 to 2147483647, got 2147483648"
      ],
      [
        servers({ fs: { command: "npx", timeout: "5s" } }),
        `mcpServers.fs.timeout: expected a whole number of milliseconds from 1 to 2147483647, got "5s"`
      ],
      [servers({ fs: { command: "npx", trust: "yes" } }), `mcpServers.fs.trust: expected true or false, got "yes"`],
      [
        servers({ fs: { command: "npx", disabled: true } }),
        "mcpServers.fs.disabled: not read here: remove the server from the file (or leave the file out) instead"
      ],
      [
        servers({ fs: { command: "npx", autoApprove: ["read"] } }),
        "mcpServers.fs.autoApprove: not read here: what runs without asking is the permission policy's (--policy, --allow)"
      ],
      [
        servers({ fs: { command: "npx", cmd: "x" } }),
        `mcpServers.fs.cmd: not a field of a server (a server has "type", "command", "args", "env", "cwd", "url", "headers", "prefix", "timeout", "trust")`
      ],
      [
        servers({ "my server": { command: "npx" } }),
        `mcpServers["my server"]: a server's name is the prefix of its tools, so it is 1 to 32 letters, digits, '_' or '-': rename it, or give it a "prefix"`
      ],
      [
        servers({ fs: { command: "npx", prefix: "f.s" } }),
        `mcpServers.fs.prefix: expected 1 to 32 letters, digits, '_' or '-', got "f.s"`
      ],
      [
        servers({ fs: { command: "a" }, other: { command: "b", prefix: "fs" } }),
        "mcpServers.other.prefix: 'fs' is already the prefix of mcpServers.fs: give each server its own"
      ],
      [
        servers({ fs: { command: "npx", args: ["${HOME"] } }),
        `mcpServers.fs.args[0]: the "\${" at character 1 is never closed with "}"`
      ],
      [
        servers({ w: { url: "http://127.0.0.1/mcp", headers: { Authorization: "Bearer ${1TOKEN}" } } }),
        `mcpServers.w.headers.Authorization: "\${1TOKEN}": "1TOKEN" is not a variable name (letters, digits and _, not first a digit)`
      ]
    ]
    for (const [json, expected] of cases) assert.strictEqual(problemOf(json), expected, JSON.stringify(json))
  })

  it("strict JSON: a key written twice is refused, naming it", () => {
    const parsed = McpConfig.parse(`{"mcpServers": {"fs": {"command": "a"}, "fs": {"command": "b"}}}`)
    assert.isTrue(Result.isFailure(parsed))
    if (Result.isSuccess(parsed)) return
    assert.strictEqual(parsed.failure.path, "mcpServers.fs")
    expect(parsed.failure.problem).toMatch(/twice|duplicate|again/)
  })

  it("hostile input is an error, never a crash: a throwing getter, a huge list, deep nesting", () => {
    const hostile = {
      mcpServers: {
        get fs(): unknown {
          throw new Error("boom")
        }
      }
    }
    assert.strictEqual(problemOf(hostile), "(root): could not be read: boom")
    const deep = `{"mcpServers": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`
    assert.isTrue(Result.isFailure(McpConfig.parse(deep)))
    const many = JSON.stringify(servers({ fs: { command: "x", args: Array.from({ length: 100_000 }, () => "a") } }))
    assert.isTrue(Result.isSuccess(McpConfig.parse(many)))
  })
})

describe("McpConfig.expandText", () => {
  const env = { TOKEN: "s3cret", EMPTY: "", HOME: "/home/me" }
  const expand = (text: string) => {
    const r = McpConfig.expandText(text, env)
    return Result.isSuccess(r) ? r.success : `error: ${r.failure}`
  }

  it("${VAR}, ${VAR:-default} (unset or empty), a lone $ kept, defaults not expanded again", () => {
    assert.strictEqual(expand("Bearer ${TOKEN}"), "Bearer s3cret")
    assert.strictEqual(expand("${HOME}/notes and ${HOME}"), "/home/me/notes and /home/me")
    assert.strictEqual(expand("${MISSING:-fallback}"), "fallback")
    assert.strictEqual(expand("${EMPTY:-fallback}"), "fallback")
    assert.strictEqual(expand("${EMPTY}"), "")
    assert.strictEqual(expand("${TOKEN:-x}"), "s3cret")
    assert.strictEqual(expand("${MISSING:-${TOKEN}"), "${TOKEN")
    assert.strictEqual(expand("$HOME costs $5"), "$HOME costs $5")
  })

  it("a variable not set, a name that is not one, a ${ never closed: each named", () => {
    assert.strictEqual(
      expand("Bearer ${WEB_TOKEN}"),
      "error: ${WEB_TOKEN}: the environment variable WEB_TOKEN is not set (write ${WEB_TOKEN:-default} for a default)"
    )
    assert.strictEqual(
      expand("${}"),
      `error: "\${}": "" is not a variable name (letters, digits and _, not first a digit)`
    )
    assert.strictEqual(expand("a${b"), `error: the "\${" at character 2 is never closed with "}"`)
  })

  it("expand names the field: args, env, headers, url (checked once expanded); no NUL, no line break in a header", () => {
    const problem = (declaration: Mounter.Declaration, vars: McpConfig.Environment = env) => {
      const r = McpConfig.expand(declaration, vars)
      return Result.isSuccess(r) ? r.success : `${r.failure.path}: ${r.failure.problem}`
    }
    assert.deepStrictEqual(problem({ command: "npx", args: ["-y", "${TOKEN}"], env: { T: "${TOKEN}" }, prefix: "p" }), {
      command: "npx",
      args: ["-y", "s3cret"],
      env: { T: "s3cret" },
      prefix: "p"
    })
    assert.strictEqual(
      problem({ command: "npx", args: ["-y", "${NOPE}"], prefix: "p" }),
      "args[1]: ${NOPE}: the environment variable NOPE is not set (write ${NOPE:-default} for a default)"
    )
    assert.strictEqual(
      problem({ url: "${BASE}/mcp", prefix: "p" }, { BASE: "ftp://x" }),
      `url: expected an http:// or https:// URL, got "ftp://x/mcp"`
    )
    assert.strictEqual(
      problem(
        { url: "http://127.0.0.1/mcp", headers: { Authorization: "${T}" }, prefix: "p" },
        { T: "a\r\nX-Evil: 1" }
      ),
      "headers.Authorization: a header value cannot hold a line break"
    )
    assert.strictEqual(
      problem({ command: "x", args: ["${T}"], prefix: "p" }, { T: "a\u0000b" }),
      "args[0]: it holds a NUL character, which no program can be given"
    )
    assert.strictEqual(
      problem({ command: "x", env: { "A=B": "1" }, prefix: "p" }),
      `env["A=B"]: not a variable name (empty, or with '=' or NUL)`
    )
    const proto = McpConfig.expand(
      { url: "http://127.0.0.1/mcp", headers: JSON.parse(`{"__proto__": "x"}`), prefix: "p" },
      env
    )
    assert.isTrue(Result.isSuccess(proto))
    if (Result.isSuccess(proto)) assert.deepStrictEqual(Object.keys(proto.success.headers ?? {}), ["__proto__"])
  })
})

describe("McpConfig.childEnvironment", () => {
  const harnessEnv = {
    PATH: "/usr/bin",
    HOME: "/home/me",
    USER: "me",
    LANG: "es_ES.UTF-8",
    LC_ALL: "es_ES.UTF-8",
    TMPDIR: "/tmp/me",
    XDG_CACHE_HOME: "/home/me/.cache",
    npm_config_cache: "/home/me/.npm",
    npm_config_registry: "http://127.0.0.1:4873/",
    "npm_config_//registry.npmjs.org/:_authToken": "npm_secret",
    NPM_CONFIG_USERCONFIG: "/home/me/.npmrc",
    https_proxy: "http://proxy:3128",
    NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
    ANTHROPIC_API_KEY: "sk-ant-secret",
    OPENAI_API_KEY: "sk-secret",
    AWS_SECRET_ACCESS_KEY: "aws",
    GITHUB_TOKEN: "ghp",
    BASH_FUNC_x: "() { echo; }",
    SHELL: "() { evil; }"
  }

  it("passes what npx needs, never an API key nor a credential; the server's own env wins", () => {
    const env = McpConfig.childEnvironment(harnessEnv, { GITHUB_TOKEN: "given", LANG: "C" })
    assert.deepStrictEqual(env, {
      PATH: "/usr/bin",
      HOME: "/home/me",
      USER: "me",
      LANG: "C",
      LC_ALL: "es_ES.UTF-8",
      TMPDIR: "/tmp/me",
      XDG_CACHE_HOME: "/home/me/.cache",
      npm_config_cache: "/home/me/.npm",
      npm_config_registry: "http://127.0.0.1:4873/",
      NPM_CONFIG_USERCONFIG: "/home/me/.npmrc",
      https_proxy: "http://proxy:3128",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      GITHUB_TOKEN: "given"
    })
  })

  it("entryOf: cwd against the file's folder, the environment built, timeout for the handshake and calls", () => {
    const entry = McpConfig.entryOf(
      { command: "npx", args: ["${HOME}"], cwd: "sub", timeout: 5000, prefix: "fs" },
      "/configs",
      harnessEnv
    )
    assert.isTrue(Result.isSuccess(entry))
    if (Result.isFailure(entry)) return
    const { server, options } = entry.success
    assert.strictEqual(server._tag, "Stdio")
    if (server._tag !== "Stdio") return
    assert.deepStrictEqual([server.command, server.args, server.cwd], ["npx", ["/home/me"], "/configs/sub"])
    assert.strictEqual(server.env?.npm_config_cache, "/home/me/.npm")
    assert.isUndefined(server.env?.ANTHROPIC_API_KEY)
    assert.strictEqual(options?.prefix, "fs")
    assert.isFalse("trust" in (options ?? {}))
    const trusted = McpConfig.entryOf({ command: "x", trust: true, prefix: "t" }, "/", {})
    assert.isTrue(Result.isSuccess(trusted) && (trusted.success.options as { trust?: boolean }).trust === true)
    assert.strictEqual(String(options?.connectTimeout), String(options?.callTimeout))
    const calls = McpConfig.entryOf(
      { url: "http://127.0.0.1/mcp", timeout: 5000, callTimeoutMs: 70, prefix: "w" },
      "/",
      {}
    )
    assert.isTrue(Result.isSuccess(calls) && String(calls.success.options?.callTimeout).includes("70"))
  })
})

describe("scenario declarations through the scenario Mounter (Scenario.mount)", () => {
  it("a variable that is not set fails the mount naming the field; nothing is started", async () => {
    delete process.env.HARNESS_TEST_UNSET
    const exit = await Effect.runPromiseExit(
      Effect.scoped(
        McpScenario.mount({ command: "no-such-command", args: ["${HARNESS_TEST_UNSET}"], prefix: "p" }, "/x/s.json")
      )
    )
    assert.isTrue(Exit.isFailure(exit))
    const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    const message = error !== undefined && error._tag === "Fail" ? error.error.message : ""
    assert.strictEqual(
      message,
      "args[0]: ${HARNESS_TEST_UNSET}: the environment variable HARNESS_TEST_UNSET is not set (write ${HARNESS_TEST_UNSET:-default} for a default)"
    )
  })
})
