/**
 * The built CLI (`build.ts`, as published) and the command package: `harness run` of a scenario
 * without commands never loads the command chunk; one that declares commands loads it, and
 * passes as from the sources.
 */
import { join } from "node:path"
import { assert, describe, expect, it } from "@effect/vitest"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { salmorejoEs, scenariosDir } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 180_000 }
const { dist } = builtCli("command-built")

/** The command package's chunk (`command-<hash>.js`). */
const commandChunk = (file: string): boolean => /^command-[\w-]+\.js$/.test(file)

describe("the built CLI and scenarios with commands", () => {
  it("harness run of a scenario without commands loads no command code", SPAWNS, () => {
    const r = runBuilt(dist, ["run", salmorejoEs])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(r.loaded.filter(commandChunk), [])
  })

  it("a scenario with commands loads the command chunk and passes", SPAWNS, () => {
    const r = runBuilt(dist, ["run", join(scenariosDir, "commands", "count-lines.json")])
    assert.strictEqual(r.code, 0, r.stderr)
    expect(r.stdout).toMatch(/^PASS a command that fails is read from its stderr/)
    expect(r.loaded.filter(commandChunk)).toHaveLength(1)
  })
})
