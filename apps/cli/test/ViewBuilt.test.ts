/**
 * The built CLI (`build.ts`, as published) and the viewer: `harness run` never loads the viewer's
 * chunk; `harness view` loads it and writes the same page as the CLI run from its sources.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, expect, it } from "@effect/vitest"
import { builtCli, runBuilt } from "./fixtures/built.ts"
import { harness } from "./fixtures/harness.ts"
import { salmorejoEs, scenariosDir } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 180_000 }
const { temp, dist } = builtCli("view-built")

const isViewerChunk = (file: string): boolean => /^viewer-[\w-]+\.js$/.test(file)

/** The loaded files that hold the viewer's code (its page's data block id), wherever it was bundled. */
const withViewer = (loaded: ReadonlyArray<string>): ReadonlyArray<string> =>
  loaded.filter((file) => readFileSync(join(dist, file), "utf8").includes("viewer-data"))

describe("the built CLI and the viewer", () => {
  it("harness run never loads the viewer chunk, with or without --trace", SPAWNS, () => {
    const plain = runBuilt(dist, ["run", salmorejoEs])
    assert.strictEqual(plain.code, 0, plain.stderr)
    assert.include(plain.loaded, "main.js")
    assert.deepStrictEqual(withViewer(plain.loaded), [])
    const traced = runBuilt(dist, [
      "run",
      join(scenariosDir, "plan", "replan-once.json"),
      "--trace",
      temp.path("p.jsonl")
    ])
    assert.strictEqual(traced.code, 0, traced.stderr)
    assert.deepStrictEqual(withViewer(traced.loaded), [])
  })

  it("harness view loads it and writes the page the sources write", SPAWNS, () => {
    const trace = temp.path("s.jsonl")
    assert.strictEqual(harness(["run", salmorejoEs, "--trace", trace]).code, 0)
    const fromBuilt = runBuilt(dist, ["view", trace, "--out", temp.path("built.html")])
    assert.strictEqual(fromBuilt.code, 0, fromBuilt.stderr)
    expect(fromBuilt.loaded.filter(isViewerChunk)).toHaveLength(1)
    expect(withViewer(fromBuilt.loaded)).toStrictEqual(fromBuilt.loaded.filter(isViewerChunk))
    const fromSources = harness(["view", trace, "--out", temp.path("sources.html")])
    assert.strictEqual(fromSources.code, 0, fromSources.stderr)
    expect(readFileSync(temp.path("built.html"), "utf8")).toBe(readFileSync(temp.path("sources.html"), "utf8"))
  })
})
