/**
 * Without Chromium the browser tests skip, saying why, only outside CI: with `CI=true` (CI
 * installs Chromium) each fails, since a test that skips in CI is a failure.
 */
import { describe, expect, it } from "@effect/vitest"
import { inCI, withoutBrowser } from "./browser.ts"

describe("withoutBrowser", () => {
  const reason = "no Chromium at /nope (apt-get install -y chromium, or set CHROMIUM_PATH)"

  it("with CI=true (or any CI but empty, false, 0): fails the test, naming why", () => {
    for (const ci of ["true", "1", "yes"]) {
      const skipped: Array<string | undefined> = []
      expect(() => withoutBrowser(reason, (_, note) => skipped.push(note), ci)).toThrow(
        `CI=${ci}: the browser tests need Chromium, and there is none: ${reason}`
      )
      expect(skipped).toStrictEqual([])
    }
  })

  it("outside CI: skips the test, saying why", () => {
    for (const ci of [undefined, "", "false", "0"]) {
      const skipped: Array<readonly [boolean, string | undefined]> = []
      withoutBrowser(reason, (condition, note) => skipped.push([condition, note]), ci)
      expect(skipped).toStrictEqual([[true, reason]])
      expect(inCI(ci)).toBe(false)
    }
    expect(inCI("true")).toBe(true)
  })
})
