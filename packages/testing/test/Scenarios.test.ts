/**
 * The shipped scenarios of the harness CLI, one test each, through the helper users call. Those
 * under root/ declare a root folder and run with the Roots of `@agent-harness/scenario/TreeRoots`;
 * those under permission/, mcp/ and commands/ need the permission, MCP and command packages'
 * services, and run through this helper in those packages' tests. Without its service, a
 * scenario fails naming the entry to import.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as TreeRoots from "@agent-harness/scenario/TreeRoots"
import { describe, expect, it } from "vitest"
import { scenarioTests } from "../src/Vitest.ts"
import { report, shipped } from "./fixtures/shipped.ts"

/** Copying a folder tree and running on it, on a loaded 2-core machine. */
const SLOW = 60_000

const withoutEdges = readdirSync(shipped)
  .filter((name) => name !== "mcp" && name !== "permission" && name !== "root" && name !== "commands")
  .map((name) => join(shipped, name))

describe("apps/cli/scenarios", () => {
  const registered = scenarioTests(withoutEdges)

  it("registers every shipped scenario, named by its name", () => {
    expect(registered.length).toBeGreaterThanOrEqual(28)
    expect(registered.map((e) => e.title)).toContain("salmorejo (es)")
    expect(registered.every((e) => e.file.startsWith(shipped) && e.file.endsWith(".json"))).toBe(true)
  })
})

describe("apps/cli/scenarios/root, with the Roots of @agent-harness/scenario/TreeRoots", () => {
  const registered = scenarioTests(join(shipped, "root"), { layer: TreeRoots.layer, timeout: SLOW })

  it("registers the root scenario by its name", () => {
    expect(registered.map((e) => e.title)).toStrictEqual(["a real folder tree (root)"])
  })

  it("passes as harness test reports it, and leaves its fixture as it was", { timeout: SLOW }, async () => {
    const fixture = join(shipped, "root", "project")
    const before = readdirSync(fixture, { recursive: true }).map(String).sort()
    const todo = readFileSync(join(fixture, "docs", "todo.txt"), "utf8")
    expect(await report(join(shipped, "root", "real-folder.json"), TreeRoots.layer)).toMatch(
      /^PASS a real folder tree \(root\) \(end, \d+ model calls\)$/
    )
    expect(readdirSync(fixture, { recursive: true }).map(String).sort()).toStrictEqual(before)
    expect(readFileSync(join(fixture, "docs", "todo.txt"), "utf8")).toBe(todo)
  })
})

describe("a scenario whose service is not provided", () => {
  it("is INVALID at the field, naming the entry that provides it", { timeout: SLOW }, async () => {
    const cases = [
      ["permission/append-denied.json", "policy", "the Permissions of @agent-harness/permission/scenario", undefined],
      ["mcp/calculator.json", "mcp", "the Mounter of @agent-harness/mcp/scenario", undefined],
      ["root/real-folder.json", "root", "the Roots of @agent-harness/scenario/TreeRoots", undefined],
      // Its root copied, its commands have nothing to run them.
      ["commands/count-lines.json", "commands", "the Commands of @agent-harness/command/scenario", TreeRoots.layer]
    ] as const
    for (const [relative, field, service, layer] of cases) {
      const file = join(shipped, relative)
      const line = await report(file, layer)
      expect(line.startsWith(`INVALID ${file}: ${field}: `), line).toBe(true)
      expect(line).toContain(`provide ${service} (its layer)`)
    }
  })
})
