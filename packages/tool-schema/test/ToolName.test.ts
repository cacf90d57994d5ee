import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import fc from "fast-check"
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

describe("ToolName.alias drops accents as Unicode's marks (\\p{M}) say", () => {
  /** The alias by its definition: NFKD, every mark dropped, every run of other characters one '_'. */
  const byDefinition = (name: string): string =>
    name
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .replace(/[^a-zA-Z0-9_-]+/g, "_")
  const aliasOf = (name: string): string | undefined => {
    const a = ToolName.alias(name)
    return a._tag === "Alias" ? a.alias : undefined
  }
  const expected = (name: string): string | undefined => {
    if (name === "") return undefined
    if (ToolName.providerPattern.test(name)) return name
    const safe = byDefinition(name)
    return /[a-zA-Z0-9]/.test(safe) && safe.length <= ToolName.maxLength ? safe : undefined
  }

  it("for accented Latin, other scripts' marks, and any text", () => {
    for (const name of [
      "añadir",
      "Ñandú",
      "crème brûlée",
      "naïve",
      "ǅemal",
      "x\u0301\u0327y",
      "कि",
      "a\u20dd",
      "e\u0903"
    ]) {
      expect(aliasOf(name)).toBe(expected(name))
    }
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 20 }), (name) => {
        expect(aliasOf(name)).toBe(expected(name))
      }),
      { numRuns: 2000 }
    )
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
