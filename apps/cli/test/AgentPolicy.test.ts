/**
 * `harness agent` and `harness mcp serve` warn, on stderr, about tool globs that match no tool
 * (a typo, a tool of the other locale, a glob that was meant for an alias), naming the tools
 * they could have meant; the policy still loads.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestConsole } from "effect/testing"
import * as AgentPolicy from "../src/agent/Policy.ts"

const loaded = (flags: AgentPolicy.Flags) =>
  Effect.gen(function* () {
    const policy = yield* AgentPolicy.load(flags)
    const stderr = yield* TestConsole.errorLines
    return { policy, stderr }
  }).pipe(Effect.provide([TestConsole.layer, NodeFileSystem.layer]))

describe("AgentPolicy: globs that match no tool", () => {
  it.effect("a typo in --deny is a warning on stderr naming the tool it could have meant", () =>
    Effect.gen(function* () {
      const { policy, stderr } = yield* loaded({ shorthands: { deny: ["wirte"], allow: ["append", "anadir"] } })
      expect(policy.rules?.[0]).toStrictEqual({ tool: "wirte", decision: "deny", reason: '--deny "wirte"' })
      expect(stderr).toStrictEqual([
        'harness agent: warning: --deny "wirte" matches no tool, so it does nothing; did you mean "write"?'
      ])
    })
  )

  it.effect("mcp serve judges against its locale's tools, and says so as itself", () =>
    Effect.gen(function* () {
      const { stderr } = yield* loaded({
        shorthands: { deny: ["write"] },
        tools: ["leer", "listar", "buscar", "escribir", "añadir"],
        command: "harness mcp serve"
      })
      expect(stderr).toStrictEqual([
        'harness mcp serve: warning: --deny "write" matches no tool, so it does nothing (no tool has a name close to it)'
      ])
    })
  )

  it("without the run's tools, a glob that could name an MCP tool is not judged", () => {
    expect(AgentPolicy.warnings({ rules: [{ tool: "fs__delete*", decision: "deny" }] })).toStrictEqual([])
    expect(AgentPolicy.warnings({ rules: [{ tool: "fs__delete*", decision: "deny" }] }, ["read"])).toHaveLength(1)
  })
})
