/**
 * The CLI's shipped permission scenarios (`apps/cli/scenarios/permission`) through
 * `@agent-harness/testing/vitest`'s `scenarioTests` with this package's scenario `layer`: they
 * pass as `harness test` passes them, and edited copies fail or are refused with what the CLI
 * prints (apps/cli/test/PermissionScenario.test.ts runs the same files through the CLI).
 */
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { scenarioTests } from "@agent-harness/testing/vitest"
import { copies, report, shipped } from "../../testing/test/fixtures/shipped.ts"
import * as PermissionScenario from "../src/Scenario.ts"

/** Loading the permission package on first use, on a loaded 2-core machine. */
const SLOW = 60_000

const folder = join(shipped, "permission")
const denied = join(folder, "append-denied.json")
const approved = join(folder, "append-approved.json")
const temp = copies("permission-scenarios")

describe("apps/cli/scenarios/permission, with @agent-harness/permission/scenario", () => {
  const registered = scenarioTests(folder, { layer: PermissionScenario.layer, timeout: SLOW })

  it("registers both shipped scenarios by their names", () => {
    expect(registered.map((e) => e.title)).toStrictEqual([
      "an append someone approved runs",
      "an append without permission is denied"
    ])
  })

  it("the shipped denied append passes, as harness test reports it", { timeout: SLOW }, async () => {
    expect(await report(denied, PermissionScenario.layer)).toBe(
      "PASS an append without permission is denied (end, 3 model calls)"
    )
  })

  it("the denial is what the policy says: allowing append makes the pinned scenario fail", {
    timeout: SLOW
  }, async () => {
    const allowing = temp.edited(denied, "allowing", (json) => {
      const policy = json.policy as { rules: ReadonlyArray<unknown> }
      policy.rules = [{ tool: "append", decision: "allow" }, ...policy.rules]
    })
    const line = await report(allowing, PermissionScenario.layer)
    expect(line).toMatch(/^FAIL an append without permission is denied /)
    expect(line).toContain(`seen:     c2 is_error=false "appended 5 characters to list.txt"`)
  })

  it("approvals left unused fail with what went off the script", { timeout: SLOW }, async () => {
    const unused = temp.edited(approved, "unused", (json) => {
      json.approvals = [...(json.approvals as ReadonlyArray<unknown>), { answer: "no" }]
    })
    expect(await report(unused, PermissionScenario.layer)).toBe(
      "FAIL an append someone approved runs (end, 3 model calls)\n    the scripted approvals: 1 scripted answer(s) never used (from answer 2)"
    )
  })

  it("a policy that does not decode is INVALID at its JSON path", { timeout: SLOW }, async () => {
    const bad = temp.edited(denied, "bad-policy", (json) => {
      json.policy = { rules: [{ tool: "append", decision: "maybe" }] }
    })
    expect(await report(bad, PermissionScenario.layer)).toBe(
      `INVALID ${bad}: policy.rules[0].decision: expected "allow", "ask" or "deny", got "maybe"`
    )
  })
})
