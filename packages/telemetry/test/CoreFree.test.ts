import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"

const packages = fileURLToPath(new URL("../../", import.meta.url))
const otel = /^@opentelemetry\/|^@effect\/opentelemetry$/

const others = readdirSync(packages).filter(
  (name) => name !== "telemetry" && statSync(join(packages, name, "package.json"), { throwIfNoEntry: false })?.isFile()
)

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

describe("OpenTelemetry stays at the edge: no other package depends on it", () => {
  it("no packages/*/package.json but telemetry's declares @opentelemetry/* or @effect/opentelemetry", () => {
    assert.include(others, "executor")
    assert.include(others, "planner")
    const found: Array<string> = []
    for (const name of others) {
      const manifest = JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8")) as Record<string, unknown>
      for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
        const deps = (manifest[field] ?? {}) as Record<string, string>
        for (const dep of Object.keys(deps)) if (otel.test(dep)) found.push(`${name} ${field}: ${dep}`)
      }
    }
    assert.deepStrictEqual(found, [])
  })

  it("no packages/*/src file but telemetry's imports them", () => {
    const found: Array<string> = []
    for (const name of others) {
      const src = join(packages, name, "src")
      if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue
      for (const file of sources(src))
        if (
          /from\s+["'](@opentelemetry\/|@effect\/opentelemetry)|import\(\s*["'](@opentelemetry\/|@effect\/opentelemetry)/.test(
            readFileSync(file, "utf8")
          )
        )
          found.push(file.slice(packages.length))
    }
    assert.deepStrictEqual(found, [])
  })
})
