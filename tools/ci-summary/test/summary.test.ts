import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../summary.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "ci-summary-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const report = (name: string, content: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  return path
}

const assertion = (fullName: string, status: string, failureMessages: Array<string> = []) => ({
  ancestorTitles: [],
  fullName,
  status,
  title: fullName,
  failureMessages
})

const passing = report("passing.json", {
  numPassedTests: 3,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  success: true,
  testResults: [
    {
      name: "/repo/packages/a/test/a.test.ts",
      status: "passed",
      message: "",
      assertionResults: [assertion("a 1", "passed"), assertion("a 2", "passed"), assertion("a 3", "passed")]
    }
  ]
})

const failing = report("failing.json", {
  numPassedTests: 1,
  numFailedTests: 1,
  numPendingTests: 1,
  numTodoTests: 1,
  success: false,
  testResults: [
    {
      name: "/repo/packages/b/test/b.test.ts",
      status: "failed",
      message: "",
      assertionResults: [
        assertion("b adds", "passed"),
        assertion("b subtracts", "failed", ["AssertionError: expected 1 to be 2\n    at b.test.ts:3:1"]),
        assertion("b later", "skipped"),
        assertion("b someday", "todo")
      ]
    },
    {
      name: "/repo/packages/b/test/broken.test.ts",
      status: "failed",
      message: "Cannot find module './Missing.ts'",
      assertionResults: []
    }
  ]
})

/** The environment without `CI` (which CI itself sets), and with `CI` as given. */
const envWith = (ci: string | undefined): NodeJS.ProcessEnv => {
  const { CI: _, ...rest } = process.env
  return ci === undefined ? rest : { ...rest, CI: ci }
}

/**
 * Each run spawns Node: on a loaded 2-core machine that can take seconds, never forever. Outside
 * CI unless `ci` says otherwise (CI itself runs these tests with `CI=true`).
 */
const run = (...args: Array<string>) => runIn(undefined, ...args)

const runIn = (ci: string | undefined, ...args: Array<string>) => {
  const result = spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    timeout: 45_000,
    killSignal: "SIGKILL",
    env: envWith(ci)
  })
  expect(result.error, `ci-summary ${args.join(" ")}`).toBeUndefined()
  const lines = result.stdout.trimEnd().split("\n")
  return { status: result.status, lines, last: lines[lines.length - 1] }
}

describe("ci-summary", { timeout: 60_000 }, () => {
  it("sums passing reports and exits 0", () => {
    const r = run(passing, passing)
    expect(r.last).toBe("6 passed, 0 failed")
    expect(r.status).toBe(0)
  })

  it("counts failures, file-level failures and skipped tests, and exits 1", () => {
    const r = run(passing, failing)
    expect(r.last).toBe("4 passed, 2 failed, 2 skipped")
    expect(r.lines).toContain("FAIL /repo/packages/b/test/b.test.ts > b subtracts")
    expect(r.lines).toContain("     AssertionError: expected 1 to be 2")
    expect(r.lines).toContain(
      "FAIL /repo/packages/b/test/broken.test.ts (file failed: Cannot find module './Missing.ts')"
    )
    expect(r.status).toBe(1)
  })

  it("adds extra counts", () => {
    expect(run("--extra-passed", "5", "--extra-failed=0", passing).last).toBe("8 passed, 0 failed")
    const r = run(passing, "--extra-failed", "2")
    expect(r.last).toBe("3 passed, 2 failed")
    expect(r.status).toBe(1)
  })

  it("skips missing files, or counts them as failures with --require-all", () => {
    const missing = join(dir, "missing.json")
    const skipped = run(passing, missing)
    expect(skipped.last).toBe("3 passed, 0 failed")
    expect(skipped.status).toBe(0)
    const required = run("--require-all", passing, missing)
    expect(required.last).toBe("3 passed, 1 failed")
    expect(required.status).toBe(1)
  })

  it("--command-failed: a failed test command with no failed test in the reports counts as one failure", () => {
    const alone = run("--command-failed", passing)
    expect(alone.last).toBe("3 passed, 1 failed")
    expect(
      alone.lines.some((l) => l.startsWith("FAIL the test command failed, but no report holds a failed test"))
    ).toBe(true)
    expect(alone.status).toBe(1)
    // With a failed test already counted, it adds nothing.
    const counted = run("--command-failed", passing, failing)
    expect(counted.last).toBe(run(passing, failing).last)
    expect(counted.lines.some((l) => l.startsWith("FAIL the test command failed"))).toBe(false)
  })

  it("fails when no report exists or zero tests ran", () => {
    const none = run(join(dir, "nope.json"))
    expect(none.last).toBe("0 passed, 0 failed")
    expect(none.lines.some((l) => l.includes("none of the 1 report file(s) exist"))).toBe(true)
    expect(none.status).toBe(1)
    const empty = report("empty.json", { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, testResults: [] })
    expect(run(empty).status).toBe(1)
  })

  it("counts an unsuccessful run without failed tests (no test files) as a failure", () => {
    const noFiles = report("no-files.json", {
      numPassedTests: 0,
      numFailedTests: 0,
      numPendingTests: 0,
      success: false,
      testResults: []
    })
    const r = run(passing, noFiles)
    expect(r.last).toBe("3 passed, 1 failed")
    expect(r.lines).toContain(`FAIL ${noFiles} (vitest reported an unsuccessful run: no test files)`)
    expect(r.status).toBe(1)
  })

  it("treats an unreadable report as a failure", () => {
    const r = run(passing, report("garbage.json", "{ not json"))
    expect(r.last).toBe("3 passed, 1 failed")
    expect(r.status).toBe(1)
  })

  it("with CI=true a skipped test is a failure: counted in failed, each named; the last line N passed, N failed", () => {
    for (const ci of ["true", "1"]) {
      const r = runIn(ci, passing, failing)
      expect(r.last).toBe("4 passed, 4 failed")
      expect(r.lines).toContain(
        "FAIL /repo/packages/b/test/b.test.ts > b later (skipped in CI: a test that skips in CI is a failure)"
      )
      expect(r.lines).toContain(
        "FAIL /repo/packages/b/test/b.test.ts > b someday (todo in CI: a test that skips in CI is a failure)"
      )
      expect(r.status).toBe(1)
    }
    // Outside CI (unset, empty, false, 0), skipped stays skipped.
    for (const ci of [undefined, "", "false", "0"])
      expect(runIn(ci, passing, failing).last).toBe("4 passed, 2 failed, 2 skipped")
  })

  it("with CI=true a report of nothing but skipped tests fails, and so does --extra-skipped", () => {
    const allSkipped = report("all-skipped.json", {
      numPassedTests: 0,
      numFailedTests: 0,
      numPendingTests: 3,
      numTodoTests: 0,
      success: true,
      testResults: [
        {
          name: "/repo/packages/viewer/test/Browser.test.ts",
          status: "skipped",
          message: "",
          assertionResults: [assertion("the browser > draws", "skipped"), assertion("the browser > links", "pending")]
        }
      ]
    })
    const outside = runIn(undefined, passing, allSkipped)
    expect(outside.last).toBe("3 passed, 0 failed, 3 skipped")
    expect(outside.status).toBe(0)
    const r = runIn("true", passing, allSkipped)
    expect(r.last).toBe("3 passed, 3 failed")
    expect(r.lines).toContain(
      "FAIL /repo/packages/viewer/test/Browser.test.ts > the browser > draws (skipped in CI: a test that skips in CI is a failure)"
    )
    expect(r.lines).toContain(
      "FAIL /repo/packages/viewer/test/Browser.test.ts > the browser > links (pending in CI: a test that skips in CI is a failure)"
    )
    expect(r.lines).toContain(
      `FAIL ${allSkipped} (1 more skipped in CI, not named in the report: a test that skips in CI is a failure)`
    )
    expect(r.status).toBe(1)
    const extra = runIn("true", passing, "--extra-skipped", "2")
    expect(extra.last).toBe("3 passed, 2 failed")
    expect(extra.lines).toContain("FAIL --extra-skipped 2 (skipped in CI: a test that skips in CI is a failure)")
    expect(extra.status).toBe(1)
    expect(runIn(undefined, passing, "--extra-skipped", "2").last).toBe("3 passed, 0 failed, 2 skipped")
  })

  it("rejects bad usage", () => {
    expect(run("--extra-passed", "x", passing).status).toBe(2)
    expect(run("--bogus", passing).status).toBe(2)
  })
})
