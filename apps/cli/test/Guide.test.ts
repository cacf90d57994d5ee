// Runs the commands of docs/regression-guide.md, so the guide stays true.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const app = fileURLToPath(new URL("..", import.meta.url))
const root = fileURLToPath(new URL("../../..", import.meta.url))
const harness = (...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, ["src/main.ts", ...args], {
    cwd: app,
    env: { ...process.env, NO_COLOR: "1" },
    encoding: "utf8",
    // A hang fails the test (status null) instead of blocking the suite.
    timeout: 45_000,
    killSignal: "SIGKILL"
  })

describe("the regression guide", () => {
  it("record → capture → criterion → fails on before → passes on fixed", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "guide-"))
    const trace = join(dir, "incident.jsonl")
    const scenario = join(dir, "regression.json")

    const recorded = harness("run", join(root, "docs/guide/incident.json"), "--variant", "before", "--trace", trace)
    expect(recorded.status).toBe(0)
    expect(
      readFileSync(trace, "utf8")
        .split("\n")
        .filter((l) => l !== "").length
    ).toBeGreaterThan(5)

    const captured = harness("capture", trace, "--out", scenario)
    expect(captured.status).toBe(0)
    const json = JSON.parse(readFileSync(scenario, "utf8"))
    expect(json.turns[0].expect).toStrictEqual([
      {
        type: "tool_result",
        tool_use_id: "c1",
        content: "Tiempo de espera agotado: el catálogo no respondió en 5 segundos.",
        is_error: false
      }
    ])
    expect(harness("run", scenario, "--variant", "before").status).toBe(0)

    json.turns[0].expect[0] = {
      type: "tool_result",
      tool_use_id: "c1",
      is_error: true,
      content: "TIMEOUT: Tiempo de espera agotado: el catálogo no respondió en 5 segundos."
    }
    writeFileSync(scenario, JSON.stringify(json, null, 2))

    const baseline = harness("run", scenario, "--variant", "before")
    expect(baseline.status).toBe(1)
    expect(baseline.stdout).toContain("turn 1, tool_use_id c1: a different observation")
    expect(baseline.stdout).toContain(
      'seen:     c1 is_error=false "Tiempo de espera agotado: el catálogo no respondió en 5 segundos."'
    )

    const fixed = harness("run", scenario)
    expect(fixed.status).toBe(0)
    expect(fixed.stdout).toMatch(/^PASS captured from incident\.jsonl/)
  })

  it("the seed's case set: before exits 1, fixed exits 0", { timeout: 60_000 }, () => {
    const cases = join(root, "apps/cli/scenarios/regress/catalogo.json")
    expect(harness("run", cases, "--variant", "before").status).toBe(1)
    expect(harness("run", cases).status).toBe(0)
  })

  it("a malformed trace exits 2 naming the line", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "guide-"))
    const trace = join(dir, "bad.jsonl")
    writeFileSync(
      trace,
      '{"type":"start","messages":[],"max_turns":3,"tools":[]}\n{"type":"model.replied","turn":"1"}\n'
    )
    const result = harness("capture", trace)
    expect(result.status).toBe(2)
    expect(result.stderr).toContain(`${trace}: line 2: turn: expected`)
  })
})
