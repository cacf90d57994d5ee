/**
 * A JSON path as text, written once for every package (scenario files, policies, MCP configs,
 * violations the model reads, off-spec MCP results).
 */
import { assert, describe, it } from "@effect/vitest"
import { JsonPath } from "../src/index.ts"

describe("JsonPath.text", () => {
  it("indexes in brackets, identifiers after a dot, other names quoted, (root) for none", () => {
    assert.strictEqual(JsonPath.text([]), "(root)")
    assert.strictEqual(JsonPath.text(["turns", 2, "reply", 0, "id"]), "turns[2].reply[0].id")
    assert.strictEqual(JsonPath.text(["mcpServers", "fs", "args", 1]), "mcpServers.fs.args[1]")
    assert.strictEqual(JsonPath.text(["mcpServers", "my server"]), `mcpServers["my server"]`)
    assert.strictEqual(JsonPath.text(["files", "lista.txt"]), `files["lista.txt"]`)
    assert.strictEqual(JsonPath.text(["a b", "c"]), `["a b"].c`)
    assert.strictEqual(JsonPath.text([0, "$x", "_y"]), "[0].$x._y")
    assert.strictEqual(JsonPath.text([""]), `[""]`)
    assert.strictEqual(JsonPath.text(['say "hi"']), `["say \\"hi\\""]`)
    assert.strictEqual(JsonPath.text([Symbol("s")]), `["Symbol(s)"]`)
  })
})

describe("JsonPath.plain", () => {
  it("indexes in brackets, every name after a dot as it is, empty for none", () => {
    assert.strictEqual(JsonPath.plain([]), "")
    assert.strictEqual(JsonPath.plain(["a", 0, "b"]), "a[0].b")
    assert.strictEqual(JsonPath.plain([0, "b"]), "[0].b")
    assert.strictEqual(JsonPath.plain(["my key", "lista.txt"]), "my key.lista.txt")
  })
})
