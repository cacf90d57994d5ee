/**
 * The `soak` binary (`pnpm soak`): the options `harness soak` had, what it refuses with exit 2
 * naming why (before anything runs), and the local soak's `--json` summary line, with
 * `--commands` too (its figures, its exit codes, and exit 2 where no sandbox can run).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { bare, soak } from "./fixtures/soak.ts"

describe("soak refuses, exit 2, naming why", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    [
      "--runners without --engine postgres",
      ["--runners", "2"],
      "--runners is for --engine postgres: add --engine postgres, or drop --runners\n"
    ],
    [
      "--database-url without --engine postgres",
      ["--engine", "local", "--database-url", "postgres://u@h/db"],
      "--database-url is for --engine postgres: add --engine postgres, or drop --database-url\n"
    ],
    [
      "--approvals without --engine postgres",
      ["--approvals"],
      "--approvals is for --engine postgres: add --engine postgres, or drop --approvals\n"
    ],
    [
      "--kills with --engine postgres",
      ["--engine", "postgres", "--kills", "3", "--database-url", "postgres://u@h/db"],
      "--kills is for the local soak: the postgres soak kills runner processes at random instants while sessions run\n"
    ],
    [
      "--runners 0",
      ["--engine", "postgres", "--runners", "0", "--database-url", "postgres://u@h/db"],
      "--runners must be a whole number from 1 to 16, not 0\n"
    ],
    ["--runs 0, local", ["--runs", "0"], "--runs must be a whole number of at least 1, not 0\n"],
    [
      "--runs 0, postgres",
      ["--engine", "postgres", "--runs", "0", "--database-url", "postgres://u@h/db"],
      "--runs must be a whole number of at least 1, not 0\n"
    ],
    ["--kills -1", ["--kills", "-1"], "--kills must be a whole number of at least 0, not -1\n"],
    [
      "no database",
      ["--engine", "postgres"],
      "--engine postgres needs a database: --database-url postgres://user@host:port/database, or DATABASE_URL\n"
    ],
    [
      "a URL that is not Postgres",
      ["--engine", "postgres", "--database-url", "mysql://u:pw@h/db"],
      "--database-url mysql://u:***@h/db: not a Postgres URL: it starts with mysql:// (postgres://user@host:port/database)\n"
    ]
  ]
  for (const [name, args, message] of cases) {
    it(name, { timeout: 60_000 }, () => {
      const r = soak(args)
      assert.deepStrictEqual([r.code, r.stdout, r.stderr], [2, "", message])
    })
  }

  it("a database that does not answer: named, its password hidden", { timeout: 60_000 }, () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused at once.
    const r = soak(["--runs", "1", "--engine", "postgres", "--database-url", "postgres://someone:secret@127.0.0.1:1/x"])
    assert.strictEqual(r.code, 2, r.stderr)
    assert.strictEqual(r.stdout, "")
    assert.match(r.stderr, /^database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/x: /)
    assert.notInclude(r.stderr, "secret")
  })

  it("an unknown flag is bad usage", { timeout: 60_000 }, () => {
    const r = soak(["--bogus"])
    assert.strictEqual(r.code, 2)
    assert.include(r.stderr, "--bogus")
  })
})

describe("the local soak from the command line", () => {
  it("--json: no progress lines, the last line exactly the summary; exit 0", { timeout: 120_000 }, () => {
    const r = soak(["--runs", "2", "--kills", "1", "--seed", "40", "--json"], 110_000)
    assert.strictEqual(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split("\n")
    assert.strictEqual(lines.length, 1, r.stdout)
    const summary = JSON.parse(lines[0] ?? "") as Record<string, number>
    assert.deepStrictEqual(Object.keys(summary), ["runs", "kills", "duplicated", "unknown", "replayed"])
    assert.deepStrictEqual([summary.runs, summary.kills, summary.duplicated], [2, 2, 0])
  })

  it("without --json: a line per run, then the summary", { timeout: 120_000 }, () => {
    const r = soak(["--runs", "1", "--kills", "0", "--seed", "41"], 110_000)
    assert.strictEqual(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split("\n")
    assert.match(lines[0] ?? "", /^run 1\/1 \(seed 41, \d+ calls\): 0 kills, 0 unknown, 0 replayed, 0 duplicated \(/)
    assert.match(lines[1] ?? "", /^1 runs, 0 kills: 0 duplicated, 0 unknown, 0 replayed, 0 violations \(/)
  })
})

describe("the commands soak from the command line", () => {
  const keys = [
    "runs",
    "kills",
    "duplicated",
    "unknown",
    "replayed",
    "commands",
    "kills_in_command",
    "held_in_command",
    "orphaned",
    "left_running",
    "cgroups_left"
  ]

  it("--commands --json: the last line the summary with the commands' figures; exit 0", {
    timeout: 300_000
  }, () => {
    const r = soak(["--commands", "--runs", "2", "--kills", "2", "--seed", "42", "--json"], 280_000)
    assert.strictEqual(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split("\n")
    assert.strictEqual(lines.length, 1, r.stdout)
    const summary = JSON.parse(lines[0] ?? "") as Record<string, number>
    assert.deepStrictEqual(Object.keys(summary), keys)
    assert.deepStrictEqual(
      [summary.runs, summary.kills, summary.duplicated, summary.left_running, summary.cgroups_left],
      [2, 4, 0, 0, 0]
    )
    assert.isAbove(summary.commands ?? 0, 0)
    assert.strictEqual(summary.orphaned, 0)
  })

  it("--commands: exit 1 exactly when a sandbox outlived its killed child", {
    timeout: 300_000
  }, () => {
    const r = soak(["--commands", "--runs", "2", "--kills", "2", "--seed", "44", "--json"], 280_000)
    // A run that found an orphan keeps its folder, for a person to look at: not here.
    for (const kept of r.stderr.matchAll(/its folder is kept: (\S+)$/gm)) {
      if (kept[1] !== undefined) fs.rmSync(kept[1], { recursive: true, force: true })
    }
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "") as Record<string, number>
    assert.deepStrictEqual([summary.duplicated, summary.left_running, summary.cgroups_left], [0, 0, 0], r.stderr)
    assert.strictEqual(r.code, summary.orphaned === 0 ? 0 : 1, r.stderr)
    const orphans = r.stderr.match(/its sandbox outlived it|its command ended after its child was killed/g) ?? []
    assert.strictEqual(orphans.length, summary.orphaned)
  })

  it("without --json: a line per run, then the summary", { timeout: 300_000 }, () => {
    const r = soak(["--commands", "--runs", "1", "--kills", "0", "--seed", "43"], 280_000)
    assert.strictEqual(r.code, 0, r.stderr)
    const lines = r.stdout.trim().split("\n")
    assert.match(
      lines[0] ?? "",
      /^run 1\/1 \(seed 43, \d+ calls\): 0 kills \(0 in a command, 0 held inside one, 0 orphaned\), 0 unknown, 0 replayed, 0 duplicated \(/
    )
    assert.match(
      lines[1] ?? "",
      /^1 runs, \d+ sandboxed commands, 0 kills \(0 in a command, 0 held inside one, 0 orphaned\): 0 duplicated, 0 unknown, 0 replayed, 0 processes and 0 cgroups left, 0 violations \(/
    )
  })

  it("where no sandbox can run: exit 2 saying why, nothing run", { timeout: 300_000 }, () => {
    const empty = fs.mkdtempSync(nodePath.join(os.tmpdir(), "agent-harness-soak-nopath-"))
    try {
      const r = soak(["--commands", "--runs", "1"], 120_000, { ...bare(), PATH: empty })
      assert.deepStrictEqual([r.code, r.stdout], [2, ""])
      assert.match(
        r.stderr,
        /^--commands needs the command sandbox: the command sandbox is unavailable: bwrap is not installed: /
      )
    } finally {
      fs.rmSync(empty, { recursive: true, force: true })
    }
  })

  const refusals: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
    [
      "--commands with --engine postgres",
      ["--commands", "--engine", "postgres", "--database-url", "postgres://u@h/db"],
      "--commands is for the local soak: drop --commands, or drop --engine postgres and its flags (--runners, --database-url, --approvals)\n"
    ],
    [
      "--commands with --approvals",
      ["--commands", "--approvals"],
      "--commands is for the local soak: drop --commands, or drop --engine postgres and its flags (--runners, --database-url, --approvals)\n"
    ]
  ]
  for (const [name, args, message] of refusals) {
    it(`${name}: exit 2, naming why`, { timeout: 300_000 }, () => {
      const r = soak(args, 120_000)
      assert.deepStrictEqual([r.code, r.stdout, r.stderr], [2, "", message])
    })
  }
})
