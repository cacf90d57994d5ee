/**
 * The shipped scenarios of the demo, one test each, through the helper users call.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { scenarioTests } from "../src/Vitest.ts"

const shipped = fileURLToPath(new URL("../../../apps/demo/scenarios", import.meta.url))

describe("apps/demo/scenarios", () => {
  const registered = scenarioTests(shipped)

  it("registers every shipped scenario, named by its name", () => {
    expect(registered.length).toBeGreaterThanOrEqual(28)
    expect(registered.map((e) => e.title)).toContain("salmorejo (es)")
    expect(registered.every((e) => e.file.startsWith(shipped) && e.file.endsWith(".json"))).toBe(true)
  })
})
