import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { generate, target } from "../build/Bundle.ts"

describe("src/client.generated.ts", () => {
  it("is what build/Bundle.ts makes from client/ today (else: pnpm --filter @agent-harness/viewer generate)", async () => {
    const fresh = await generate()
    const committed = readFileSync(target, "utf8")
    expect(
      committed === fresh,
      "src/client.generated.ts is stale: run pnpm --filter @agent-harness/viewer generate"
    ).toBe(true)
  }, 120_000)

  it("comes from client code that type-checks against the DOM", () => {
    const project = fileURLToPath(new URL("../client/tsconfig.json", import.meta.url))
    const tsc = fileURLToPath(new URL("../node_modules/.bin/tsc", import.meta.url))
    const run = spawnSync(tsc, ["-p", project], { encoding: "utf8", timeout: 110_000 })
    expect(run.error).toBeUndefined()
    expect(`${run.stdout}${run.stderr}`).toBe("")
    expect(run.status).toBe(0)
  }, 120_000)
})
