import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Tool, ToolName, Toolset } from "../src/index.ts"

const named = (name: string) =>
  Tool.make(name, { description: name, parameters: Schema.Struct({}), run: () => Effect.succeed("ok") })

describe("ToolName.alias", () => {
  it("keeps a safe name as it is", () => {
    for (const name of ["read", "read_file", "fs__list-2", "a".repeat(64)]) {
      expect(ToolName.alias(name)).toStrictEqual({ _tag: "Alias", alias: name })
    }
  })

  it("drops accents and makes every run of other characters one '_'", () => {
    expect(ToolName.alias("añadir")).toStrictEqual({ _tag: "Alias", alias: "anadir" })
    expect(ToolName.alias("catalogo.buscar")).toStrictEqual({ _tag: "Alias", alias: "catalogo_buscar" })
    expect(ToolName.alias("Éxito / búsqueda")).toStrictEqual({ _tag: "Alias", alias: "Exito_busqueda" })
    expect(ToolName.alias("ﬁle")).toStrictEqual({ _tag: "Alias", alias: "file" })
  })

  it("every alias matches the providers' pattern", () => {
    for (const name of ["añadir", "catalogo.buscar", "a b\tc", "x/y:z", "ümlaut…"]) {
      const a = ToolName.alias(name)
      expect(a._tag === "Alias" && ToolName.providerPattern.test(a.alias)).toBe(true)
    }
  })

  it("has no alias for an empty name, a name without ASCII letters or digits, or one too long", () => {
    expect(ToolName.alias("")).toStrictEqual({ _tag: "Unsafe", problem: "a tool name must not be empty" })
    expect(ToolName.alias("检索")).toStrictEqual({
      _tag: "Unsafe",
      problem:
        'the tool name "检索" keeps no ASCII letter or digit once made provider-safe (providers accept ^[a-zA-Z0-9_-]{1,64}$); name it with Latin letters'
    })
    expect(ToolName.alias(`${"a".repeat(64)}.`)).toStrictEqual({
      _tag: "Unsafe",
      problem: `the tool name "${"a".repeat(64)}." is 65 characters once made provider-safe; providers accept at most 64`
    })
  })
})

describe("Toolset.make refuses names that cannot be sent to a provider", () => {
  it("accepts the seed's Spanish and dotted names", () => {
    const toolset = Toolset.make(named("añadir"), named("catalogo.buscar"), named("leer"))
    expect(toolset.tools.map((t) => t.name)).toStrictEqual(["añadir", "catalogo.buscar", "leer"])
  })

  it("refuses a name without an alias, naming it", () => {
    expect(() => Toolset.make(named("leer"), named("检索"))).toThrow(
      'Toolset.make: the tool name "检索" keeps no ASCII letter or digit once made provider-safe'
    )
    expect(() => Toolset.make(named(""))).toThrow("Toolset.make: a tool name must not be empty")
  })

  it("refuses two tools with one alias, naming both", () => {
    expect(() => Toolset.make(named("catalogo_buscar"), named("catalogo.buscar"))).toThrow(
      `Toolset.make: the tools "catalogo_buscar" and "catalogo.buscar" would both be sent to model providers as 'catalogo_buscar'; rename one`
    )
    expect(() => Toolset.merge(Toolset.make(named("añadir")), Toolset.make(named("anadir")))).toThrow(
      "would both be sent to model providers as 'anadir'"
    )
  })
})
