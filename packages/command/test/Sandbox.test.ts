/**
 * Commands in the real sandbox (bwrap, no fakes): what they can see, write and reach.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Sandbox } from "../src/index.ts"
import { detect, leftCgroups, makeHostTemp, makeRoot, remove, run, timeout } from "./fixtures.ts"

let root: string
let sandbox: Sandbox.Sandbox

beforeAll(async () => {
  root = makeRoot()
  sandbox = await detect({ root, timeoutMs: 20_000 })
}, timeout)

afterAll(() => {
  remove(root)
  expect(leftCgroups(sandbox)).toEqual([])
})

describe("a command in the sandbox", () => {
  it(
    "runs a program with its arguments: exit code 0 and its stdout, in the root folder",
    async () => {
      const done = await run(sandbox, { argv: ["echo", "hello", "world"] })
      expect(done).toMatchObject({
        exitCode: 0,
        signal: null,
        timedOut: false,
        stdout: { text: "hello world\n", bytes: 12, truncated: false, binary: false },
        stderr: { text: "", bytes: 0, truncated: false, binary: false }
      })
      const pwd = await run(sandbox, { argv: ["pwd"] })
      expect(pwd.stdout.text).toBe(`${root}\n`)
    },
    timeout
  )

  it(
    "a non-zero exit is a value: its code and its stderr",
    async () => {
      const done = await run(sandbox, { argv: ["ls", "no-such-file"] })
      expect(done.exitCode).toBe(2)
      expect(done.timedOut).toBe(false)
      expect(done.stderr.text).toContain("no-such-file")
      expect(done.stdout.bytes).toBe(0)
    },
    timeout
  )

  it(
    "a program that does not exist exits non-zero, saying so",
    async () => {
      const done = await run(sandbox, { argv: ["no-such-program"] })
      expect(done.exitCode).not.toBe(0)
      expect(done.stderr.text).toContain("no-such-program")
    },
    timeout
  )

  it(
    "a shell line runs with /bin/sh -c: pipes and redirections work",
    async () => {
      const done = await run(sandbox, { shell: "printf 'a\\nb\\nc\\n' | wc -l > count.txt && cat count.txt" })
      expect(done.exitCode).toBe(0)
      expect(done.stdout.text.trim()).toBe("3")
      expect(readFileSync(join(root, "count.txt"), "utf8").trim()).toBe("3")
    },
    timeout
  )
})

describe("the file system", () => {
  it(
    "writes inside the root land on the disk",
    async () => {
      const done = await run(sandbox, { shell: "mkdir -p notes/deep && echo data > notes/deep/file.txt" })
      expect(done.exitCode).toBe(0)
      expect(readFileSync(join(root, "notes/deep/file.txt"), "utf8")).toBe("data\n")
    },
    timeout
  )

  it(
    "writes outside the root fail: /usr, /etc, /opt, /home, /, /dev, and a path through ..",
    async () => {
      const outside = `ah-escape-${process.pid}`
      const targets = [
        `/usr/${outside}`,
        `/etc/${outside}`,
        `/home/${outside}`,
        `/${outside}`,
        `/dev/${outside}`,
        `${root}/../${outside}`,
        ...(existsSync("/opt") ? [`/opt/${outside}`] : [])
      ]
      for (const target of targets) {
        const done = await run(sandbox, { argv: ["sh", "-c", 'echo x > "$1"', "sh", target] })
        expect([target, done.exitCode]).not.toEqual([target, 0])
        expect(done.stderr.text).toMatch(
          /Read-only file system|No such file or directory|Directory nonexistent|Permission denied/
        )
        expect(existsSync(join(root, "..", outside))).toBe(false)
      }
      const mkdir = await run(sandbox, { argv: ["mkdir", "/home"] })
      expect(mkdir.exitCode).not.toBe(0)
    },
    timeout
  )

  it(
    "the system is there to read, and read-only: /usr/bin, /etc/os-release",
    async () => {
      const done = await run(sandbox, { shell: "test -x /usr/bin/env && test -r /etc/passwd && touch /etc/passwd" })
      expect(done.exitCode).not.toBe(0)
      expect(done.stderr.text).toContain("Read-only file system")
    },
    timeout
  )

  it(
    "/tmp is private: not the host's, empty, and gone after",
    async () => {
      const host = makeHostTemp()
      try {
        writeFileSync(join(host, "host-secret.txt"), "secret")
        const listed = await run(sandbox, { shell: "ls -A /tmp; echo left > /tmp/sandbox-note.txt; ls /tmp" })
        expect(listed.exitCode).toBe(0)
        expect(listed.stdout.text).toBe("sandbox-note.txt\n")
        expect(existsSync("/tmp/sandbox-note.txt")).toBe(false)
        const again = await run(sandbox, { shell: "ls -A /tmp" })
        expect(again.stdout.text).toBe("")
        const read = await run(sandbox, { argv: ["cat", join(host, "host-secret.txt")] })
        expect(read.exitCode).not.toBe(0)
      } finally {
        remove(host)
      }
    },
    timeout
  )

  it(
    "host secrets under /etc are hidden",
    async () => {
      const done = await run(sandbox, { shell: "cat /etc/shadow /etc/gshadow 2>&1; ls -A /etc/sudoers.d 2>&1; true" })
      expect(done.stdout.text).not.toMatch(/root:[^:]*:\d/)
    },
    timeout
  )

  it(
    "symlinks in the root that point outside it lead nowhere: not readable, not writable",
    async () => {
      const host = makeHostTemp("ah-secret-")
      try {
        writeFileSync(join(host, "secret.txt"), "the host's secret")
        const links = await run(sandbox, {
          argv: [
            "sh",
            "-c",
            'ln -s "$1" out-dir && ln -s "$1/secret.txt" out-file && ln -s /etc/shadow shadow',
            "sh",
            host
          ]
        })
        expect(links.exitCode).toBe(0)
        const read = await run(sandbox, { shell: "cat out-file; cat out-dir/secret.txt; cat shadow" })
        expect(read.exitCode).not.toBe(0)
        expect(read.stdout.text).not.toContain("secret")
        const write = await run(sandbox, { shell: "echo planted > out-dir/planted.txt; echo over > out-file" })
        expect(write.exitCode).not.toBe(0)
        expect(existsSync(join(host, "planted.txt"))).toBe(false)
        expect(readFileSync(join(host, "secret.txt"), "utf8")).toBe("the host's secret")
      } finally {
        remove(host)
      }
    },
    timeout
  )

  it(
    "a file larger than maxFileBytes cannot be written",
    async () => {
      const small = await detect({ root, maxFileBytes: 1000 })
      const done = await run(small, { shell: "head -c 5000 /dev/zero > big.bin" })
      expect(done.exitCode).not.toBe(0)
      expect(readFileSync(join(root, "big.bin")).length).toBeLessThanOrEqual(1000)
      expect(leftCgroups(small)).toEqual([])
    },
    timeout
  )

  it(
    "a process asking for more memory than maxMemoryBytes gets an allocation failure; the default leaves room",
    async () => {
      // The shell holds 64 MB of a command's output in its own memory.
      const hog = { shell: "x=$(head -c 64000000 /dev/zero | tr '\\0' a); printf %s \"$x\" | wc -c" }
      const small = await detect({ root, maxMemoryBytes: 32 * 1024 * 1024 })
      expect(await run(small, { shell: "echo started" })).toMatchObject({ exitCode: 0, stdout: { text: "started\n" } })
      const refused = await run(small, hog)
      expect(refused.exitCode).not.toBe(0)
      expect(refused.stdout.text).toBe("")
      expect(refused.timedOut).toBe(false)
      const roomy = await run(sandbox, hog)
      expect(roomy).toMatchObject({ exitCode: 0, stdout: { text: "64000000\n" } })
      expect(leftCgroups(small)).toEqual([])
    },
    timeout
  )
})

describe("the environment", () => {
  it(
    "is cleared: a host variable is not seen, the declared ones are",
    async () => {
      process.env.AH_FAKE_API_KEY = "sk-fake-0123456789"
      try {
        const done = await run(sandbox, { argv: ["env"] })
        expect(done.stdout.text).not.toContain("sk-fake")
        expect(done.stdout.text).not.toContain("AH_FAKE_API_KEY")
        expect(
          done.stdout.text
            .split("\n")
            .filter((line) => line !== "")
            .sort()
        ).toEqual(["HOME=/tmp", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin", `PWD=${root}`].sort())
        const declared = await detect({ root, env: { PATH: "/usr/bin:/bin", GREETING: "hola mundo" } })
        const seen = await run(declared, { argv: ["env"] })
        expect(
          seen.stdout.text
            .split("\n")
            .filter((line) => line !== "")
            .sort()
        ).toEqual(["GREETING=hola mundo", "PATH=/usr/bin:/bin", `PWD=${root}`])
        const through = await run(declared, { shell: "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'" })
        expect(through.stdout.text).not.toContain("sk-fake")
      } finally {
        delete process.env.AH_FAKE_API_KEY
      }
    },
    timeout
  )
})

describe("the environment's hostile names and sizes", () => {
  it(
    "a variable named __proto__ is a variable like any other; more than 64 KiB of variables is refused naming env",
    async () => {
      const env: Record<string, string> = { PATH: "/usr/bin:/bin" }
      Object.defineProperty(env, "__proto__", {
        value: "not a prototype",
        enumerable: true,
        writable: true,
        configurable: true
      })
      const declared = await detect({ root, env })
      const seen = await run(declared, { argv: ["env"] })
      expect(seen.stdout.text).toContain("__proto__=not a prototype\n")
      const { Sandbox } = await import("../src/index.ts")
      const { Effect } = await import("effect")
      const huge = await Effect.runPromise(
        Effect.flip(Sandbox.detect({ root, env: { PATH: "/usr/bin", BIG: "x".repeat(70_000) } }))
      )
      expect(huge._tag).toBe("InvalidPolicy")
      expect(huge.message).toContain("env")
      expect(huge.message).toContain("more than 65,536 bytes in all")
    },
    timeout
  )

  it(
    "once a command has ended, no timer of the sandbox keeps the process alive",
    async () => {
      await run(sandbox, { argv: ["true"] })
      const timers = process.getActiveResourcesInfo().filter((kind) => kind === "Timeout")
      // Vitest's own timers may be there; the sandbox's 4 s drain wait must not be among them.
      const before = timers.length
      await run(sandbox, { argv: ["true"] })
      expect(process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length).toBeLessThanOrEqual(before)
    },
    timeout
  )
})

describe("the network", () => {
  let server: Server
  let port = 0
  let received: Array<string> = []

  beforeAll(async () => {
    server = createServer((socket) => {
      socket.setEncoding("utf8")
      socket.on("data", (data: string) => received.push(data))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    port = typeof address === "object" && address !== null ? address.port : 0
  })

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const connect = (): Sandbox.Command => ({
    argv: ["bash", "-c", 'echo "hello from the sandbox" > "/dev/tcp/127.0.0.1/$1"', "bash", String(port)]
  })

  it(
    "is cut by default: a server on the host's 127.0.0.1 cannot be reached",
    async () => {
      received = []
      const done = await run(sandbox, connect())
      expect(done.exitCode).not.toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(received).toEqual([])
    },
    timeout
  )

  it(
    "is the host's when the policy grants it",
    async () => {
      received = []
      const open = await detect({ root, network: true })
      const done = await run(open, connect())
      expect(done.exitCode).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(received.join("")).toBe("hello from the sandbox\n")
    },
    timeout
  )
})

describe("/proc", () => {
  it(
    "shows only the sandbox's processes",
    async () => {
      const done = await run(sandbox, { shell: "ls /proc | grep -E '^[0-9]+$'" })
      const pids = done.stdout.text
        .split("\n")
        .filter((line) => line !== "")
        .map(Number)
      expect(pids.length).toBeGreaterThan(0)
      expect(pids.length).toBeLessThanOrEqual(5)
      expect(Math.max(...pids)).toBeLessThan(20)
      expect(pids).not.toContain(process.pid)
    },
    timeout
  )

  it(
    "/proc/1/root is the sandbox's own root, and the host's environment cannot be read through it",
    async () => {
      const attempt = await run(sandbox, {
        shell: `ls /proc/1/root/; cat /proc/1/root/etc/shadow; ls /proc/1/root/home; cat /proc/${process.pid}/environ; echo 1 > /proc/sys/kernel/sysrq; echo h > /proc/sysrq-trigger`
      })
      expect(attempt.exitCode).not.toBe(0)
      const listed = attempt.stdout.text.split("\n").filter((line) => line !== "")
      const system = ["bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc", "sbin", "tmp", "usr"]
      const rootTop = root.split("/")[1] ?? ""
      expect(listed.filter((name) => !system.includes(name) && name !== rootTop)).toEqual([])
      expect(listed).not.toContain("home")
      expect(listed).not.toContain("root")
      expect(attempt.stdout.text).not.toMatch(/root:[^:]*:\d/)
    },
    timeout
  )

  it(
    "as root, the command holds no capabilities",
    async () => {
      const done = await run(sandbox, { shell: "grep -E '^Cap(Eff|Prm)' /proc/self/status" })
      expect(done.stdout.text).toMatch(/CapEff:\s+0000000000000000/)
      expect(done.stdout.text).toMatch(/CapPrm:\s+0000000000000000/)
    },
    timeout
  )
})

describe("flags in the command", () => {
  it(
    "a program named like a bwrap flag is a program that does not exist",
    async () => {
      const done = await run(sandbox, { argv: ["--bind", "/", "/tmp/host"] })
      expect(done.exitCode).not.toBe(0)
      expect(done.stderr.text).toContain("--bind")
      const env = await run(sandbox, { argv: ["FOO=bar", "env"] })
      expect(env.exitCode).not.toBe(0)
      expect(env.stdout.text).not.toContain("FOO=bar")
    },
    timeout
  )

  it(
    "arguments like --share-net, -c or FOO=bar reach the program as they are, and change nothing",
    async () => {
      mkdirSync(join(root, "args"), { recursive: true })
      const words = ["--share-net", "--bind", "/", "/", "-c", "FOO=bar", "--", "--setenv", "X", "Y"]
      const done = await run(sandbox, { argv: ["printf", "%s\\n", ...words] })
      expect(done.exitCode).toBe(0)
      expect(done.stdout.text).toBe(`${words.join("\n")}\n`)
      const env = await run(sandbox, { argv: ["env", "--", "--setenv"] })
      expect(env.stdout.text).not.toContain("X=Y")
      const net = await run(sandbox, { argv: ["cat", "/proc/net/dev", "--share-net"] })
      expect(net.stdout.text).not.toMatch(/eth|ens|enp/)
    },
    timeout
  )
})
