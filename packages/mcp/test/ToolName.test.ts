import { describe, expect, it } from "@effect/vitest"
import { ToolName } from "../src/index.ts"

describe("ToolName", () => {
  it("joins prefix and remote name when providers accept the result", () => {
    expect(ToolName.local("fs", "__", "read_file", new Set())).toBe("fs__read_file")
  })

  it("makes unsafe or long names safe, with a stable hash of the remote name", () => {
    const dotted = ToolName.local("fs", "__", "admin.users/list", new Set())
    expect(dotted).toMatch(/^fs__admin_users_list_[0-9a-f]{8}$/)
    expect(ToolName.local("fs", "__", "admin.users/list", new Set())).toBe(dotted)
    const long = ToolName.local("fs", "__", "x".repeat(128), new Set())
    expect(long.length).toBe(64)
    expect(ToolName.isValid(long)).toBe(true)
    expect(ToolName.isValid(ToolName.local("fs", "__", "ñandú café", new Set()))).toBe(true)
  })

  it("never gives a name that is taken", () => {
    const first = ToolName.local("fs", "__", "a.b", new Set())
    const taken = new Set([first, "fs__a_b"])
    const second = ToolName.local("fs", "__", "a.b", taken)
    expect(second).not.toBe(first)
    expect(taken.has(second)).toBe(false)
    expect(ToolName.local("fs", "__", "a_b", new Set(["fs__a_b"]))).toMatch(/^fs__a_b_[0-9a-f]{8}$/)
  })

  it("says what is wrong with a prefix; makes one from any server name", () => {
    expect(ToolName.checkPrefix("fs", "__")).toBeUndefined()
    expect(ToolName.checkPrefix("", "__")).toBe("the prefix is empty")
    expect(ToolName.checkPrefix("a".repeat(33), "__")).toBe(
      `the prefix '${"a".repeat(33)}' is longer than 32 characters`
    )
    expect(ToolName.checkPrefix("fs", ".")).toBe("the separator '.' may only hold letters, digits, '_' and '-'")
    expect(ToolName.prefixFrom("@acme/files server")).toBe("acme_files_server")
    expect(ToolName.prefixFrom("!!!")).toBe("mcp")
  })
})
