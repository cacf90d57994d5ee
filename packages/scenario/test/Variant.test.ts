/**
 * The built-in variants: each by its name, with a one-line summary that says what it does (in
 * words of the idea, not of where it came from), and its parser.
 */
import { ResponseContract } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Variant } from "../src/index.ts"

describe("Variant", () => {
  it("fixed is the contract, before the bug it fixes, each named and summed up", () => {
    expect(Variant.names.map((name) => Variant.byName[name].name)).toStrictEqual(["fixed", "before"])
    expect(Variant.fixed.summary).toBe(`the tool-response contract: success only when status is "ok"`)
    expect(Variant.before.summary).toBe(
      "the bug the contract fixes: a response with content is taken as the answer, whatever its status"
    )
    expect(Variant.fixed.parser).toBe(ResponseContract.contract)
    expect(Variant.before.parser).toBe(ResponseContract.contentPresent)
  })

  it("no summary speaks of seeds", () => {
    for (const name of Variant.names) expect(Variant.byName[name].summary).not.toMatch(/seed/i)
  })
})
