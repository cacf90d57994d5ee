/**
 * `Route`: the plain forms of `harness run` and `harness mcp serve` are read without the command
 * tree, with the options the tree would give; anything else goes to the tree.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Route from "../src/common/Route.ts"

describe("Route", () => {
  it("reads harness run FILE with its flags, in any order, --flag VALUE or --flag=VALUE", () => {
    assert.deepStrictEqual(Route.route(["run", "a.json"]), {
      _tag: "Run",
      flags: {
        file: "a.json",
        json: false,
        variant: "fixed",
        trace: undefined,
        engine: "local",
        databaseUrl: undefined
      }
    })
    assert.deepStrictEqual(Route.route(["run", "--json", "--variant=before", "a.json", "--trace", "t.jsonl"]), {
      _tag: "Run",
      flags: {
        file: "a.json",
        json: true,
        variant: "before",
        trace: "t.jsonl",
        engine: "local",
        databaseUrl: undefined
      }
    })
  })

  it("reads harness mcp serve with its flags, --allow and --deny repeated", () => {
    assert.deepStrictEqual(
      Route.route(["mcp", "serve", "--tools", "files", "--root=notes", "--lang", "es", "--deny", "a", "--deny", "b"]),
      {
        _tag: "McpServe",
        flags: {
          tools: "files",
          root: "notes",
          lang: "es",
          http: undefined,
          journal: undefined,
          policy: undefined,
          allow: [],
          deny: ["a", "b"]
        }
      }
    )
    const http = Route.route(["mcp", "serve", "--tools", "files", "--root", "n", "--http", "0"])
    assert.strictEqual(http?._tag === "McpServe" ? http.flags.http : "none", 0)
  })

  it("leaves everything else to the command tree", () => {
    for (const args of [
      [],
      ["--help"],
      ["run"],
      ["run", "a.json", "b.json"],
      ["run", "a.json", "--help"],
      ["run", "a.json", "--json", "true"],
      ["run", "a.json", "--json=false"],
      ["run", "a.json", "--variant", "other"],
      ["run", "a.json", "--trace", "a", "--trace", "b"],
      ["run", "a.json", "--trace"],
      ["run", "a.json", "--trace", "-x"],
      ["run", "-a.json"],
      ["run", "a.json", "--", "x"],
      ["run", "a.json", "--log-level", "debug"],
      ["mcp", "serve", "--root", "n"],
      ["mcp", "serve", "--tools", "files"],
      ["mcp", "serve", "--tools", "other", "--root", "n"],
      ["mcp", "serve", "--tools", "files", "--root", "n", "--http", "08"],
      ["mcp", "serve", "--tools", "files", "--root", "n", "--http", "-1"],
      ["mcp", "serve", "--tools", "files", "--root", "n", "extra"],
      ["mcp", "--tools", "files", "--root", "n"],
      ["test", "a.json"]
    ]) {
      assert.isUndefined(Route.route(args), args.join(" "))
    }
  })
})
