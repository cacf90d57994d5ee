/**
 * CI runs every package's tests at once on 2 cores: vitest's default 5 s per test is not enough
 * for a test that spawns Node there. Every workspace package's test script sets a generous
 * timeout, so a slow machine makes tests slow, never red.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))

const testScripts = (): ReadonlyArray<readonly [string, string]> =>
  ["packages", "apps", "tools"].flatMap((top) =>
    existsSync(join(root, top))
      ? readdirSync(join(root, top))
          .map((dir) => join(top, dir, "package.json"))
          .filter((manifest) => existsSync(join(root, manifest)))
          .flatMap((manifest) => {
            const parsed = JSON.parse(readFileSync(join(root, manifest), "utf8")) as { scripts?: { test?: unknown } }
            const test = parsed.scripts?.test
            return typeof test === "string" ? [[manifest, test] as const] : []
          })
      : []
  )

describe("workspace test scripts", () => {
  it("every package's test script runs vitest with --testTimeout=60000", () => {
    const scripts = testScripts()
    expect(scripts.length).toBeGreaterThanOrEqual(10)
    for (const [manifest, script] of scripts) {
      expect([manifest, script]).toEqual([manifest, expect.stringMatching(/^vitest run .*--testTimeout=60000\b/)])
    }
  })
})
