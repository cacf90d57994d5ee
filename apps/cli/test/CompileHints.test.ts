/**
 * The build's compile hints (`compileHints.ts`): each function that ran is rewritten into the form
 * V8 compiles with its module, and nothing else about it changes. Each case runs a program as
 * written and as rewritten (every function hinted, as if every one had run) and compares what
 * they compute: values, names, hoisting, `this`, `arguments`, `super`, generators, async
 * functions; the forms that cannot change without a difference are left as they are.
 */
import * as vm from "node:vm"
import { assert, describe, it } from "@effect/vitest"
import { parseAst } from "rolldown/parseAst"
import { type Range, rewrite } from "../compileHints.ts"

interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { readonly type?: unknown }).type === "string"

/** Every function of `code`, by the range V8 gives it (a method from its key). */
const everyFunction = (code: string): Array<Range> => {
  const ranges: Array<Range> = []
  const visit = (node: Node, parent: Node | undefined): void => {
    if (/^(FunctionExpression|ArrowFunctionExpression|FunctionDeclaration)$/.test(node.type)) {
      const method =
        parent !== undefined &&
        /^(Property|MethodDefinition)$/.test(parent.type) &&
        (parent as unknown as { readonly value: unknown }).value === node
      ranges.push({ start: method ? parent.start : node.start, end: node.end })
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) if (isNode(item)) visit(item, node)
      if (isNode(value)) visit(value, node)
    }
  }
  visit(parseAst(code) as unknown as Node, undefined)
  return ranges
}

/** What a program leaves in `out`, run as a strict script in a context of its own. */
const run = async (code: string): Promise<string> => {
  const context = vm.createContext({ out: undefined })
  vm.runInContext(`"use strict";${code}`, context)
  return JSON.stringify(await (context as { readonly out: unknown }).out)
}

/** The program rewritten with every function hinted; both versions compute the same, checked here. */
const same = async (code: string) => {
  const rewritten = rewrite(code, everyFunction(code))
  assert.strictEqual(await run(rewritten.code), await run(code), rewritten.code)
  return rewritten
}

describe("compile hints", () => {
  it("arrow functions become parenthesized function expressions, computing the same", async () => {
    const { code, counts } = await same(`
      const add = (a, b) => a + b
      const pair = (a, b) => ({ a, b })
      const last = (a, b) => (a, b)
      const curry = (a) => (b) => a + b
      const block = (x) => { const y = x * 2; return y + 1 }
      const none = () => 7
      const spread = (...xs) => xs.length
      const defaults = (a, b = a + 1) => a + b
      const destructured = ({ a }, [b]) => a + b
      const later = async (x) => (await x) + 1
      out = later(Promise.resolve(1)).then((n) => [add(1, 2), pair(1, 2), last(1, 2), curry(1)(2), block(3), none(),
        spread(1, 2, 3), defaults(1), destructured({ a: 1 }, [2]), n, add.length, defaults.length, spread.length])
    `)
    assert.strictEqual(counts.arrows, 12)
    assert.notInclude(code, "=>")
    assert.include(code, "const add = (function(a, b){return  a + b})")
  })

  it("a function keeps the name its place gives it", async () => {
    await same(`
      const named = (x) => x
      const o = { p: (x) => x, ["q"]: function () {}, r(x) { return x } }
      let assigned; assigned = () => 1
      const withDefault = (f = () => 1) => f
      out = [named.name, o.p.name, o.q.name, o.r.name, assigned.name, decl.name, withDefault().name]
      function decl() {}
    `)
  })

  it("an arrow that reads this, arguments, super or new.target stays an arrow", async () => {
    const { code, counts } = await same(`
      function Outer() { this.k = 1; this.get = () => this.k; this.args = () => arguments.length }
      const o = new Outer(1, 2)
      class A { m() { return 1 } }
      class B extends A { m() { const up = () => super.m(); return up() + 1 } }
      function T() { const seen = () => new.target !== undefined; return seen() }
      out = [o.get(), o.args(), new B().m(), new T() instanceof T]
    `)
    assert.strictEqual(counts.arrows, 0)
    assert.include(code, "=> this.k")
    assert.include(code, "=> arguments.length")
    assert.include(code, "=> super.m()")
  })

  it("declarations move to the top of their scope, as their bindings were ready there", async () => {
    const { code, counts } = await same(`
      const early = twice(2)
      function twice(x) { return plus(x, x) }
      function plus(a, b) { return a + b }
      function outer(n) {
        const r = fact(n)
        function fact(k) { return k <= 1 ? 1 : k * fact(k - 1) }
        { const inner = three(); function three() { return 3 } out2 = inner }
        return r
      }
      let out2
      function* gen() { yield 1; yield 2 }
      async function later() { return 5 }
      out = later().then((five) => [early, outer(4), out2, [...gen()], five, twice.name, gen.name, later.name])
    `)
    assert.strictEqual(counts.declarations, 7)
    assert.notInclude(code, "function twice")
    assert.include(code, "var twice=(function(x)")
    assert.include(code, "let three=(function()")
  })

  it("a declaration in a switch case stays as it is", async () => {
    const { counts } = await same(`
      function pick(x) { switch (x) { case 1: function one() { return "one" } return one(); default: return "other" } }
      out = [pick(1), pick(2)]
    `)
    assert.strictEqual(counts.declarations, 1)
  })

  it("an object literal's methods become properties holding function expressions; not getters, setters, __proto__ or super", async () => {
    const { code, counts } = await same(`
      const key = "dyn"
      const base = { hi() { return "base" } }
      const o = {
        k: 2,
        m(x) { return this.k + x },
        [key](a, b) { return a * b },
        *gen() { yield this.k },
        async am() { return this.k + 1 },
        get g() { return this.k },
        set s(v) { this.k = v },
        __proto__() { return "own" },
        up() { return super.hi() }
      }
      Object.setPrototypeOf(o, base)
      out = o.am().then((am) => [o.m(1), o.dyn(2, 3), [...o.gen()], am, o.g, typeof o.__proto__, o.up(), Object.keys(o), o.m.name, o.dyn.name])
    `)
    assert.strictEqual(counts.methods, 5)
    assert.include(code, "hi:(function()")
    assert.include(code, "m:(function(x)")
    assert.include(code, "[key]:(function(a, b)")
    assert.include(code, "gen:(function*()")
    assert.include(code, "am:(async function()")
    assert.include(code, "__proto__() {")
    assert.include(code, "up() {")
  })

  it("a class's methods stay as they are; a function expression is put in parentheses once", async () => {
    const { code, counts } = await same(`
      class C { m() { return 1 } static s() { return 2 } }
      const f = function (x) { return x + 1 }
      const g = (function (x) { return x + 2 })
      out = [new C().m(), C.s(), f(1), g(1), f.name, g.name]
    `)
    assert.strictEqual(counts.expressions, 1)
    assert.include(code, "const f = (function (x)")
    assert.include(code, "m() { return 1 }")
  })

  it("only the functions that ran are rewritten", () => {
    const code = "const a = (x) => x; const b = (x) => x + 1; out = a(1)"
    const ran = everyFunction(code).slice(0, 1)
    const { code: rewritten, counts } = rewrite(code, ran)
    assert.strictEqual(counts.arrows, 1)
    assert.strictEqual(rewritten, "const a = (function(x){return  x}); const b = (x) => x + 1; out = a(1)")
  })

  it("a module's declarations go after its imports", () => {
    const code = 'import { x } from "./x.js"; const y = f(); function f() { return x }'
    const { code: rewritten } = rewrite(code, everyFunction(code))
    assert.strictEqual(rewritten, 'import { x } from "./x.js"; var f=(function() { return x });const y = f(); ')
  })
})
