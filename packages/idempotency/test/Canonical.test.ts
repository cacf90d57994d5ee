/**
 * The journal's canonical encoding is tool-schema's: one implementation, re-exported.
 */
import { Canonical as Shared } from "@agent-harness/tool-schema"
import { assert, describe, it } from "@effect/vitest"
import { Canonical } from "../src/index.ts"

describe("Canonical (re-exported)", () => {
  it("is tool-schema's module itself", () => {
    assert.strictEqual(Canonical, Shared)
    assert.strictEqual(Canonical.encode, Shared.encode)
  })
})
