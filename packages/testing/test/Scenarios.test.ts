/**
 * The shipped scenarios of the demo, one test each, through the helper users call.
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { scenarioTests } from "../src/Vitest.ts"

const shipped = fileURLToPath(new URL("../../../apps/cli/scenarios", import.meta.url))
// The scenarios under mcp/ mount MCP servers, those under permission/ declare a permission
// policy and those under root/ a root folder: they need a Mounter, a Permissions and a Roots
// service, which this package does not provide (the harness CLI does; apps/cli's tests run
// them through it).
const withoutMcp = readdirSync(shipped)
  .filter((name) => name !== "mcp" && name !== "permission" && name !== "root")
  .map((name) => join(shipped, name))

describe("apps/cli/scenarios", () => {
  const registered = scenarioTests(withoutMcp)

  it("registers every shipped scenario, named by its name", () => {
    expect(registered.length).toBeGreaterThanOrEqual(28)
    expect(registered.map((e) => e.title)).toContain("salmorejo (es)")
    expect(registered.every((e) => e.file.startsWith(shipped) && e.file.endsWith(".json"))).toBe(true)
  })
})
