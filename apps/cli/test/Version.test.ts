/**
 * `harness --version` prints the version of `apps/cli/package.json`, run from the sources (read
 * from the file) as the built CLI does (written in by `build.ts`: see McpBuilt.test.ts); a
 * package.json that cannot give one is named, never a crash.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import * as Version from "../src/common/Version.ts"
import { assertPrintsVersion, harness, SLOW } from "./fixtures/harness.ts"
import { demoDir, packageVersion, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("version")
afterAll(() => temp.remove())

describe("harness --version", () => {
  it("prints package.json's version, from the sources", SLOW, () => {
    assertPrintsVersion(harness(["--version"]))
  })
})

describe("Version.fromFile", () => {
  it("reads the version field", () => {
    const file = temp.write("ok/package.json", { name: "x", version: "9.8.7-rc.1" })
    assert.deepStrictEqual(Version.fromFile(file), Result.succeed("9.8.7-rc.1"))
    assert.deepStrictEqual(Version.fromFile(join(demoDir, "package.json")), Result.succeed(packageVersion()))
  })

  it("names the file and what is wrong: missing, a folder, a FIFO, not JSON, no version string", () => {
    const fifo = temp.path("fifo/package.json")
    temp.write("fifo/.keep", "")
    execFileSync("mkfifo", [fifo])
    const cases: ReadonlyArray<readonly [string, string]> = [
      [temp.path("nowhere/package.json"), "cannot be read"],
      [temp.path("ok"), "is not a regular file"],
      [fifo, "is not a regular file"],
      [temp.write("text/package.json", "{ version: 1"), "is not JSON"],
      [temp.write("array/package.json", "[]"), 'has no "version" string'],
      [temp.write("number/package.json", { version: 1 }), 'has no "version" string'],
      [temp.write("blank/package.json", { version: " " }), 'has no "version" string']
    ]
    for (const [file, problem] of cases) {
      const read = Version.fromFile(file)
      assert.isTrue(Result.isFailure(read), file)
      if (Result.isFailure(read)) expect(read.failure.startsWith(`${file}: ${problem}`), read.failure).toBe(true)
    }
  })
})
