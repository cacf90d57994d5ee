/**
 * A tool glob that matches no tool is named, with the tools it could have meant: a typo, a
 * Spanish name in an English run, the real name for an alias and the alias for a real name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Policy, Unmatched } from "../src/index.ts"

const tools = [
  "read",
  "list",
  "search",
  "write",
  "append",
  "leer",
  "listar",
  "buscar",
  "escribir",
  "añadir",
  "fs__delete_file"
]

describe("Unmatched.find", () => {
  it("a shorthand with a typo, named by its flag, with the closest tool", () => {
    const policy = Policy.withShorthands(Policy.askBeforeChanges, { deny: ["wirte"], allow: ["append"] })
    expect(Unmatched.find(policy, tools)).toStrictEqual([
      { rule: 0, glob: "wirte", where: '--deny "wirte"', candidates: [{ name: "write" }] }
    ])
  })

  it("globs that match a name or an alias are not reported; negated and wildcard globs are judged by what they match", () => {
    const policy: Policy.Policy = {
      rules: [
        { tool: "anadir", decision: "deny" },
        { tool: "añadir", decision: "deny" },
        { tool: "fs__*", decision: "ask" },
        { tool: "!read", decision: "allow" },
        { tool: ["read", "raed*"], decision: "allow" }
      ]
    }
    expect(Unmatched.find(policy, tools)).toStrictEqual([
      { rule: 4, glob: "raed*", where: "rules[4].tool[1]", candidates: [{ name: "read" }] }
    ])
  })

  it("the real name for an alias-like spelling and the alias for a real one", () => {
    const found = Unmatched.find({ rules: [{ tool: "anadri", decision: "deny" }] }, tools)
    expect(found.map(Unmatched.message)).toStrictEqual([
      'rules[0].tool matches no tool, so it does nothing; did you mean "añadir" (sent to the model as "anadir")?'
    ])
  })

  it("nothing close: says so", () => {
    const found = Unmatched.find(Policy.withShorthands({}, { ask: ["zzzzzzzz"] }), tools)
    expect(found.map(Unmatched.message)).toStrictEqual([
      '--ask "zzzzzzzz" matches no tool, so it does nothing (no tool has a name close to it)'
    ])
  })

  it("a part of a name is close (delete for fs__delete_file)", () => {
    const found = Unmatched.find(Policy.withShorthands({}, { deny: ["delete"] }), tools)
    expect(found[0]?.candidates).toStrictEqual([{ name: "fs__delete_file" }])
  })

  it("edit distance", () => {
    expect(Unmatched.distance("kitten", "sitting")).toBe(3)
    expect(Unmatched.distance("", "abc")).toBe(3)
    expect(Unmatched.distance("añadir", "anadir")).toBe(1)
  })
})
