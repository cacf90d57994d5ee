import { describe, expect, it } from "@effect/vitest"
import { Render, Tool } from "../src/index.ts"
import { nested } from "./fixtures.ts"

const revoked = (): object => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

describe("Render.value", () => {
  it("renders what JSON holds exactly as JSON.stringify", () => {
    for (const value of [{ a: [1, null, "x"] }, [undefined, () => 1], 3, null, true, { d: new Date(0) }, nested(50)]) {
      expect(Render.value(value)).toBe(JSON.stringify(value))
    }
    expect(Render.value("a\nb")).toBe("a\nb")
    expect(Render.value(undefined)).toBe("")
    expect(Render.value(Symbol.for("s"))).toBe("Symbol(s)")
  })

  it("a cycle is marked, never '[object Object]'", () => {
    const cyclic: Record<string, unknown> = { name: "root", list: [1] }
    cyclic.self = cyclic
    ;(cyclic.list as Array<unknown>).push(cyclic)
    expect(Render.value(cyclic)).toBe('{"name":"root","list":[1,"[Circular]"],"self":"[Circular]"}')
    expect(Tool.renderValue(cyclic)).toBe(Render.value(cyclic))
  })

  it("a value shared by siblings is not a cycle", () => {
    const shared = { v: 1 }
    const value: Record<string, unknown> = { a: shared, b: shared, n: 1n }
    expect(Render.value(value)).toBe('{"a":{"v":1},"b":{"v":1},"n":1}')
  })

  it("10,000 levels deep: the first 64 levels, then a marker", () => {
    const text = Render.value(nested(10_000))
    expect(text.startsWith(`${'{"a":'.repeat(64)}"[Truncated]"`)).toBe(true)
    expect(() => JSON.parse(text)).not.toThrow()
  })

  it("bigints are their digits, inside JSON too", () => {
    expect(Render.value(10n)).toBe("10")
    expect(Render.value({ id: 12345678901234567890n, list: [1n] })).toBe('{"id":12345678901234567890,"list":[1]}')
  })

  it("a part that throws when read is marked with what it threw; the rest is rendered", () => {
    const getter = {
      ok: 1,
      get bad(): string {
        throw new Error("getter boom")
      }
    }
    expect(Render.value(getter)).toBe('{"ok":1,"bad":"[Unreadable: getter boom]"}')
    const toJSON = {
      when: {
        toJSON: (): string => {
          throw new RangeError("no date")
        }
      }
    }
    expect(Render.value(toJSON)).toBe('{"when":"[Unreadable: no date]"}')
  })

  it("hostile and revoked proxies", () => {
    const ownKeys = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("ownKeys boom")
        }
      }
    )
    expect(Render.value(ownKeys)).toBe('"[Unreadable: ownKeys boom]"')
    expect(Render.value({ inner: revoked() })).toMatch(/^\{"inner":"\[Unreadable: .*revoked.*\]"\}$/)
    expect(Render.value(revoked())).toMatch(/^"\[Unreadable: .*revoked.*\]"$/)
    const everything = new Proxy(
      {},
      {
        get() {
          throw new Error("get boom")
        },
        getPrototypeOf() {
          throw new Error("prototype boom")
        }
      }
    )
    expect(Render.value(everything)).toBe('"[Unreadable: prototype boom]"')
  })
})

describe("Render.messageOf and Render.thrown", () => {
  it("an error's or an object's non-empty message, or a non-empty string", () => {
    expect(Render.messageOf(new Error("m"))).toBe("m")
    expect(Render.messageOf({ message: "disk full" })).toBe("disk full")
    expect(Render.messageOf("boom")).toBe("boom")
    expect(Render.messageOf(new Error(""))).toBeUndefined()
    expect(Render.messageOf({ message: 5 })).toBeUndefined()
    expect(Render.messageOf(undefined)).toBeUndefined()
    expect(Render.messageOf(revoked())).toBeUndefined()
  })

  it("thrown: never empty, never throwing", () => {
    expect(Render.thrown(new TypeError("t"))).toBe("t")
    expect(Render.thrown(undefined)).toBe("undefined")
    expect(Render.thrown("")).toBe("''")
    expect(Render.thrown(null)).toBe("null")
    expect(Render.thrown({ code: 1 })).toBe('{"code":1}')
    expect(Render.thrown(revoked())).toMatch(/^"\[Unreadable: .*revoked.*\]"$/)
  })
})
