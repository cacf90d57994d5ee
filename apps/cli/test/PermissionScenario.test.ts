/**
 * Scenarios behind a permission gate, end to end through the CLI (its `Permissions` over
 * `@agent-harness/permission`): the shipped regression test of a denied append passes with its
 * observation pinned, approvals that are missing or left unused fail saying so, a policy or
 * approvals that do not decode exit 2 at their JSON path, and `run --trace` then `capture`
 * keeps the policy and the approvals.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { harness } from "./fixtures/harness.ts"
import { type Json, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

/** Several CLI runs per test, on a loaded 2-core machine. */
const SPAWNS = { timeout: 240_000 }
const temp = tempFolder("permission-scenario")
afterAll(() => temp.remove())

const denied = join(scenariosDir, "permission", "append-denied.json")
const approved = join(scenariosDir, "permission", "append-approved.json")

const read = (file: string): Json => JSON.parse(readFileSync(file, "utf8")) as Json

/** A copy of a shipped scenario, edited. */
const edited = (file: string, name: string, edit: (json: Json) => void): string => {
  const json = read(file)
  edit(json)
  return temp.write(`${name}.json`, json)
}

describe("scenarios with a permission policy", () => {
  it("the shipped denied append passes, its denial pinned; the approved one writes", SPAWNS, () => {
    const text = readFileSync(denied, "utf8")
    expect(text).toContain(
      `"content": "not executed: denied: this call needs someone's approval, and no one could be asked"`
    )
    const r = harness(["run", denied])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS an append without permission is denied (end, 3 model calls)\n")
    const json = harness(["run", approved, "--json"])
    assert.strictEqual(json.code, 0, json.stderr)
    expect(JSON.parse(json.stdout).outcome.files).toStrictEqual({ "list.txt": "bread, milk\neggs\n" })
  })

  it("the denial is what the policy says: allowing append makes the pinned scenario fail", SPAWNS, () => {
    const allowing = edited(denied, "allowing", (json) => {
      const policy = json.policy as Json
      policy.rules = [{ tool: "append", decision: "allow" }, ...(policy.rules as ReadonlyArray<unknown>)]
    })
    const r = harness(["run", allowing])
    assert.strictEqual(r.code, 1)
    expect(r.stdout).toContain(`seen:     c2 is_error=false "appended 5 characters to list.txt"`)
  })

  it("approvals left unused, or missing, fail with what went off the script", SPAWNS, () => {
    const unused = edited(approved, "unused", (json) => {
      json.approvals = [...(json.approvals as ReadonlyArray<unknown>), { answer: "no" }]
    })
    const left = harness(["run", unused])
    assert.strictEqual(left.code, 1)
    assert.strictEqual(
      left.stdout,
      "FAIL an append someone approved runs (end, 3 model calls)\n    the scripted approvals: 1 scripted answer(s) never used (from answer 2)\n"
    )
    const missing = edited(approved, "missing", (json) => {
      json.approvals = []
    })
    const none = harness(["run", missing])
    assert.strictEqual(none.code, 1)
    expect(none.stdout).toContain(
      "    the scripted approvals: request 1 (append, call c2) has no answer (0 scripted)\n"
    )
    const other = edited(approved, "other-call", (json) => {
      json.approvals = [{ tool_use_id: "c9", answer: "yes" }]
    })
    expect(harness(["run", other]).stdout).toContain(
      "the scripted approvals: answer 1 is for call c9, but call c2 (append) asked"
    )
  })

  it("a policy or approvals that do not decode exit 2 at their JSON path; approvals need a policy", SPAWNS, () => {
    const cases: ReadonlyArray<readonly [string, (json: Json) => void, string]> = [
      [
        "decision",
        (json) => {
          ;((json.policy as Json).rules as Array<Json>)[0] = { decision: "maybe" }
        },
        `policy.rules[0].decision: expected "allow", "ask" or "deny", got "maybe"`
      ],
      [
        "glob",
        (json) => {
          ;((json.policy as Json).rules as Array<Json>)[0] = { tool: "[z-a]", decision: "deny" }
        },
        "policy.rules[0].tool: not a glob that compiles: the range 'z-a' is backwards"
      ],
      [
        "annotation",
        (json) => {
          ;((json.policy as Json).rules as Array<Json>)[0] = { annotations: { readonly: true }, decision: "allow" }
        },
        "policy.rules[0].annotations.readonly: unexpected field"
      ],
      [
        "answer",
        (json) => {
          json.approvals = [{ answer: "maybe" }]
        },
        `approvals[0].answer: expected "yes", "no" or "always", got "maybe"`
      ],
      [
        "no-policy",
        (json) => {
          delete json.policy
        },
        `approvals: it belongs to the permission gate, and there is none: add a "policy" (every call goes through it)`
      ]
    ]
    for (const [name, edit, problem] of cases) {
      const file = edited(approved, `invalid-${name}`, edit)
      const r = harness(["run", file])
      assert.strictEqual(r.code, 2, `${name}: ${r.stdout}${r.stderr}`)
      assert.strictEqual(r.stderr, `INVALID ${file}: ${problem}\n`, name)
      assert.strictEqual(r.stdout, "", name)
    }
  })

  it("run --trace then capture keeps the policy and the approvals, and the capture passes", SPAWNS, () => {
    const trace = temp.path("approved.jsonl")
    assert.strictEqual(harness(["run", approved, "--trace", trace]).code, 0)
    const out = temp.path("captured.json")
    const captured = harness(["capture", trace, "--out", out])
    assert.strictEqual(captured.code, 0, captured.stderr)
    const scenario = read(out)
    const shipped = read(approved)
    assert.deepStrictEqual(scenario.policy, shipped.policy)
    assert.deepStrictEqual(scenario.approvals, shipped.approvals)
    const r = harness(["run", out])
    assert.strictEqual(r.code, 0, r.stdout + r.stderr)
  })
})
