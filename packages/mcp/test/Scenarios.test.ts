/**
 * The CLI's shipped MCP scenario (`apps/cli/scenarios/mcp`, a calculator server next to it)
 * through `@agent-harness/testing/vitest`'s `scenarioTests` with this package's scenario
 * `layer`: it passes as `harness test` passes it, and edited copies fail or are refused with
 * what the CLI prints (apps/cli/test/McpScenario.test.ts runs the same file through the CLI).
 */
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { scenarioTests } from "@agent-harness/testing/vitest"
import { at, copies, report, shipped } from "../../testing/test/fixtures/shipped.ts"
import * as McpScenario from "../src/Scenario.ts"

/** Starting a server (and the SDK loaded on first use), on a loaded 2-core machine. */
const SLOW = 90_000

const calculator = join(shipped, "mcp", "calculator.json")
const temp = copies("mcp-scenarios")

describe("apps/cli/scenarios/mcp, with @agent-harness/mcp/scenario", () => {
  const registered = scenarioTests(join(shipped, "mcp"), { layer: McpScenario.layer, timeout: SLOW })

  it("registers the shipped scenario by its name; it passes as harness test reports it", {
    timeout: SLOW
  }, async () => {
    expect(registered.map((e) => e.title)).toStrictEqual(["a mounted MCP server (calculator)"])
    const line = await report(calculator, McpScenario.layer)
    expect(line).toBe("PASS a mounted MCP server (calculator) (end, 4 model calls)")
  })

  it("expecting another answer of the server fails, naming the call, expected and seen", {
    timeout: SLOW
  }, async () => {
    const wrong = temp.edited(calculator, "wrong", (json) => {
      at(json, "turns", 1, "expect", 1).content = "division by zero"
    })
    expect(await report(wrong, McpScenario.layer)).toBe(
      [
        "FAIL a mounted MCP server (calculator) (diverged, 3 model calls)",
        "    turn 2, tool_use_id d3: a different observation",
        `      expected: d3 is_error=true "division by zero"`,
        `      seen:     d3 is_error=true "cannot divide 1 by zero"`
      ].join("\n")
    )
  })

  it("a server that cannot be started fails the scenario, naming the declaration", { timeout: SLOW }, async () => {
    const missing = temp.edited(calculator, "missing", (json) => {
      at(json, "mcp", 0).command = "no-such-command-for-the-harness"
    })
    const [head, first] = (await report(missing, McpScenario.layer)).split("\n")
    expect(head).toBe("FAIL a mounted MCP server (calculator) (diverged, 0 model calls)")
    expect(first).toMatch(
      /^ {4}mcp\[0\] \(calc\): MCP server 'no-such-command-for-the-harness calculator\.mjs': could not start 'no-such-command-for-the-harness': .*ENOENT/
    )
  })

  it("an invalid declaration is INVALID at its JSON path", { timeout: SLOW }, async () => {
    const invalid = temp.edited(calculator, "invalid", (json) => {
      at(json, "mcp", 0).url = "http://127.0.0.1:1/mcp"
    })
    expect(await report(invalid, McpScenario.layer)).toBe(
      `INVALID ${invalid}: mcp[0].url: a server is started ("command") or reached ("url"), not both`
    )
  })
})
