/**
 * The CLI against hostile input: folder links that loop, FIFOs and devices where files are
 * expected, duplicate keys, a byte order mark, bytes that are not UTF-8, deep nesting, huge files.
 * Every case ends with a clear line and an exit code, and nothing hangs (each spawn has its own
 * timeout, so a hang fails the test instead of blocking the suite).
 */
import { execFileSync } from "node:child_process"
import { symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { harness, SLOW } from "./fixtures/harness.ts"
import { salmorejo, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("hostile")
afterAll(() => temp.remove())

const mkfifo = (path: string): string => {
  execFileSync("mkfifo", [path], { timeout: 10_000 })
  return path
}

const pass = (name: string) => `PASS ${name} (end, 4 model calls)`

describe("harness test: what a folder holds", () => {
  it(
    "a link to the parent folder and one to the folder itself: each scenario runs once, each link skipped with a SKIP line",
    SLOW,
    () => {
      temp.write("links/a.json", { ...salmorejo(), name: "a" })
      temp.write("links/sub/b.json", { ...salmorejo(), name: "b" })
      symlinkSync("..", temp.path("links/sub/up"))
      symlinkSync(".", temp.path("links/self"))
      const r = harness(["test", temp.path("links")])
      assert.strictEqual(r.code, 0, r.stdout + r.stderr)
      assert.deepStrictEqual(r.lines, [
        `SKIP ${temp.path("links/self")}: a link to a folder (not followed)`,
        `SKIP ${temp.path("links/sub/up")}: a link to a folder (not followed)`,
        pass("a"),
        pass("b"),
        "2 skipped (not run: see the SKIP lines)",
        "2 passed, 0 failed"
      ])
    }
  )

  it("a FIFO, a link to it and a broken link named *.json are skipped, never opened; --json says so", SLOW, () => {
    temp.write("fifo/good.json", { ...salmorejo(), name: "good" })
    const fifo = mkfifo(temp.path("fifo/pipe.json"))
    symlinkSync(fifo, temp.path("fifo/to-pipe.json"))
    symlinkSync(temp.path("fifo/nowhere"), temp.path("fifo/broken.json"))
    const r = harness(["test", temp.path("fifo")])
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
    assert.deepStrictEqual(r.lines, [
      `SKIP ${temp.path("fifo/broken.json")}: a broken link`,
      `SKIP ${fifo}: a FIFO (named pipe), not a regular file`,
      `SKIP ${temp.path("fifo/to-pipe.json")}: a link to a FIFO (named pipe), not a regular file`,
      pass("good"),
      "3 skipped (not run: see the SKIP lines)",
      "1 passed, 0 failed"
    ])
    const json = harness(["test", "--json", temp.path("fifo")])
    assert.strictEqual(json.code, 0)
    const objects = json.lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    assert.deepStrictEqual(objects[1], {
      file: fifo,
      skipped: true,
      reason: "a FIFO (named pipe), not a regular file",
      variant: "fixed"
    })
    assert.deepStrictEqual(
      objects.map((o) => o.skipped === true || o.passed === true),
      [true, true, true, true]
    )
  })

  it("a FIFO given by name is an invalid path: exit 2, nothing blocks", SLOW, () => {
    const fifo = mkfifo(temp.path("named-fifo.json"))
    const r = harness(["test", fifo])
    assert.strictEqual(r.code, 2)
    assert.include(r.lines, `INVALID ${fifo}: (file): cannot be read: it is a FIFO (named pipe), not a regular file`)
  })
})

describe("harness run: what is not a regular file", () => {
  it("a FIFO: exit 2 at once, naming what it is", SLOW, () => {
    const fifo = mkfifo(temp.path("run-fifo.json"))
    const r = harness(["run", fifo])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${fifo}: (file): cannot be read: it is a FIFO (named pipe), not a regular file\n`
    )
  })

  it("a folder and a character device: exit 2", SLOW, () => {
    const folder = temp.path("links")
    temp.write("links/a.json", { ...salmorejo(), name: "a" })
    const dir = harness(["run", folder])
    assert.strictEqual(dir.code, 2)
    assert.strictEqual(dir.stderr, `INVALID ${folder}: (file): cannot be read: it is a folder, not a regular file\n`)
    const device = harness(["run", "/dev/zero"])
    assert.strictEqual(device.code, 2)
    assert.strictEqual(
      device.stderr,
      "INVALID /dev/zero: (file): cannot be read: it is a character device, not a regular file\n"
    )
  })
})

describe("scenario text", () => {
  it("a duplicate key: exit 2, naming its JSON path and the line of the first", SLOW, () => {
    const text = JSON.stringify(salmorejo(), null, 2).replace(`"format": 1,`, `"format": 1,\n  "name": "first",`)
    const root = temp.write("dup/root.json", text.replace(/\n}$/, `,\n  "name": "second"\n}`))
    const r = harness(["run", root])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${root}: name: duplicate key "name": it is already on line 3 of this object (JSON keeps only the last)\n`
    )
    // Deep in the script, and spelt with an escape: still the same key.
    const nested = salmorejo()
    const json = JSON.stringify(nested).replace(
      `"tool_use_id":"t2"`,
      `"tool_use_id":"t2","is_error":false,"is_\\u0065rror":true`
    )
    const deep = temp.write("dup/nested.json", json)
    const n = harness(["run", deep, "--json"])
    assert.strictEqual(n.code, 2)
    const v = JSON.parse(n.lines[0] ?? "") as { failures: Array<{ path: string; seen: string }> }
    assert.strictEqual(v.failures[0]?.path, "turns[1].expect[0].is_error")
    assert.match(v.failures[0]?.seen ?? "", /^duplicate key "is_error"/)
  })

  it("a byte order mark is dropped: the file runs", SLOW, () => {
    const file = temp.write("bom.json", `\uFEFF${JSON.stringify({ ...salmorejo(), name: "bom" })}`)
    const r = harness(["run", file])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, `${pass("bom")}\n`)
  })

  it("bytes that are not UTF-8: exit 2, naming the byte and its line", SLOW, () => {
    const file = temp.path("latin1.json")
    const text = JSON.stringify({ ...salmorejo(), name: "caf\u00e9" }, null, 2)
    const bytes = Buffer.from(text, "latin1")
    writeFileSync(file, bytes)
    const at = bytes.indexOf(0xe9)
    const line = text.slice(0, text.indexOf("\u00e9")).split("\n").length
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${file}: (file): not UTF-8 text: byte ${at} (line ${line}) is 0xe9, which does not start a valid sequence\n`
    )
  })

  it(
    "a tool input nested 100,000 levels deep: exit 2 naming where (with --trace it overflowed the stack)",
    SLOW,
    () => {
      const depth = 100_000
      const json = JSON.stringify(salmorejo()).replace(
        `"input":{"rutas"`,
        `"input":{"deep":${"[".repeat(depth)}${"]".repeat(depth)},"rutas"`
      )
      const file = temp.write("deep.json", json)
      const r = harness(["run", file, "--trace", temp.path("deep.jsonl")])
      assert.strictEqual(r.code, 2, r.stderr.slice(0, 500))
      assert.strictEqual(
        r.stderr,
        `INVALID ${file}: turns[0].reply[1].input.deep[0][0]: nested more than 128 levels deep (below this path)\n`
      )
    }
  )

  it("a file past 64 MiB is refused before it is read: exit 2", SLOW, () => {
    const file = temp.write("huge.json", "")
    truncateSync(file, 64 * 1024 * 1024 + 1)
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${file}: (file): it has 67108865 bytes, more than the 64 MiB an input file may have\n`
    )
  })
})

describe("scenario patterns", () => {
  const reading = (content: string, pattern: string) => ({
    format: 1,
    kind: "conversation",
    name: "pattern",
    files: { "a.txt": content },
    turns: [
      {
        reply: [{ type: "tool_use", id: "c1", name: "read", input: { path: "a.txt" } }],
        expect: [{ type: "tool_result", tool_use_id: "c1", is_error: false, content: { pattern } }]
      },
      { reply: [{ type: "text", text: "read" }] }
    ],
    outcome: { stop: "end" }
  })

  it("(a+)+$ against 'aaaa…b' (a JavaScript RegExp backtracks for ages): an answer at once, exit 1", SLOW, () => {
    const file = temp.write("evil-pattern.json", reading(`${"a".repeat(5_000)}b`, "(a+)+$"))
    const r = harness(["run", file])
    assert.strictEqual(r.code, 1, r.stderr)
    assert.strictEqual(r.lines[0], "FAIL pattern (diverged, 2 model calls)")
    assert.include(r.lines, "      expected: c1 is_error=false /(a+)+$/")
    const good = temp.write("good-pattern.json", reading(`${"a".repeat(5_000)}b`, "^(a+)+b$"))
    assert.strictEqual(harness(["run", good]).code, 0)
  })

  it("a pattern that needs backtracking (a backreference): exit 2 naming its JSON path, nothing runs", SLOW, () => {
    const file = temp.write("backref.json", reading("abab", "(ab)\\1"))
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${file}: turns[0].expect[0].content.pattern: not supported: a backreference (\\1) needs backtracking; patterns are matched in linear time (RE2)\n`
    )
  })
})

describe("what a scenario says is printed, never obeyed", () => {
  it("a name with escape sequences and a line break: printed escaped, on its own line", SLOW, () => {
    const file = temp.write("ansi.json", { ...salmorejo(), name: "x\u001b[2J\nPASS forged" })
    const r = harness(["test", file])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(r.lines, ["PASS x\\u001b[2J\\u000aPASS forged (end, 4 model calls)", "1 passed, 0 failed"])
  })
})

describe("usage", () => {
  it("an unknown flag, a flag without its value, an extra argument: exit 2 naming it", SLOW, () => {
    const file = temp.write("usage.json", salmorejo())
    for (const [args, error] of [
      [["run", file, "--bogus"], "Unrecognized flag: --bogus in command harness run"],
      [["run", file, "--trace"], "Missing value for flag --trace"],
      [["run", file, "other.json"], `Unexpected positional argument: "other.json"`]
    ] as const) {
      const r = harness(args)
      assert.strictEqual(r.code, 2, args.join(" "))
      assert.include(r.stdout + r.stderr, error)
    }
  })
})
