/**
 * `harness view` under Deno (the repo's pinned deno, as `pnpm harness:deno` runs the CLI): `--out`
 * writes the same page as on Node; serving without network access exits 2 saying which flag to
 * give, instead of Deno's uncaught error ending the process.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import { harness } from "./fixtures/harness.ts"
import { demoDir, salmorejoEn, tempFolder } from "./fixtures/scenarios.ts"

const temp = tempFolder("view-deno")
afterAll(() => temp.remove())

const deno = join(demoDir, "../../node_modules/.bin/deno")

/** `deno run` of the CLI with narrow permissions (no network): what serving says when Deno refuses it. */
const denoHarness = (args: ReadonlyArray<string>) => {
  const r = spawnSync(deno, ["run", "--allow-read", "--allow-write", "--allow-env", "src/main.ts", ...args], {
    cwd: demoDir,
    encoding: "utf8",
    timeout: 110_000,
    killSignal: "SIGKILL",
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", NO_COLOR: "1" }
  })
  assert.isUndefined(r.error, `deno ${args.join(" ")}: ${r.error?.message ?? ""}`)
  return r
}

describe("harness view under Deno", { timeout: 120_000 }, () => {
  it("--out writes the page Node writes; serving without --allow-net: exit 2 naming the flag", () => {
    const trace = temp.path("s.jsonl")
    assert.strictEqual(harness(["run", salmorejoEn, "--trace", trace]).code, 0)
    const written = denoHarness(["view", trace, "--out", temp.path("deno.html")])
    assert.strictEqual(written.status, 0, written.stderr)
    assert.strictEqual(harness(["view", trace, "--out", temp.path("node.html")]).code, 0)
    expect(readFileSync(temp.path("deno.html"), "utf8")).toBe(readFileSync(temp.path("node.html"), "utf8"))
    const served = denoHarness(["view", trace])
    expect(served.status).toBe(2)
    expect(served.stdout).toBe("")
    expect(served.stderr).toBe(
      "cannot serve the page: Deno has no network access to 127.0.0.1: run it with --allow-net=127.0.0.1\n"
    )
  })
})
