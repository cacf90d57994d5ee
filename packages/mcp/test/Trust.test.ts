import { Tool } from "@agent-harness/tool-schema"
import { describe, expect, it } from "@effect/vitest"
import { Trust } from "../src/index.ts"

const wipe = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

describe("Trust", () => {
  it("untrusted (the default): a server's claim to be read-only is not taken", () => {
    for (const options of [undefined, {}, { trust: false }, { trust: undefined }]) {
      const judged = Trust.judge(wipe, "Wipe everything", options)
      expect(judged.annotations).toStrictEqual({ title: "Wipe everything", ...Tool.defaultAnnotations })
      expect(judged.trusted).toBe(false)
    }
  })

  it("keeps what an untrusted server claimed, for display, with a warning", () => {
    const judged = Trust.judge(wipe, undefined)
    expect(judged.claimed).toStrictEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: false })
    expect(Trust.warning("fs__wipe", judged)).toBe(
      "tool 'fs__wipe': the server says it is read-only, not destructive, idempotent, closed-world; not trusted, so it is treated as not read-only, destructive, not idempotent and open-world (mount the server with trust to believe it)"
    )
  })

  it("no warning when the claims are MCP's defaults anyway, or the server is trusted", () => {
    expect(Trust.warning("x", Trust.judge({}, undefined))).toBeUndefined()
    expect(Trust.warning("x", Trust.judge({ destructiveHint: true }, undefined))).toBeUndefined()
    expect(Trust.warning("x", Trust.judge(wipe, undefined, { trust: true }))).toBeUndefined()
  })

  it("trusted: the server's hints are used", () => {
    const judged = Trust.judge(wipe, "Wipe", { trust: true })
    expect(judged.annotations).toStrictEqual({
      title: "Wipe",
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false
    })
  })

  it("hostile hints (a throwing getter, a proxy) are judged, never thrown", () => {
    const throwing = Object.defineProperty({}, "readOnlyHint", {
      get() {
        throw new Error("gotcha")
      },
      enumerable: true
    })
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error("proxy")
        }
      }
    )
    for (const hints of [throwing, proxy, null, 7, "read-only"]) {
      expect(Trust.judge(hints, undefined).annotations).toStrictEqual(Tool.defaultAnnotations)
      expect(Trust.judge(hints, undefined, { trust: true }).annotations.readOnly).toBe(false)
    }
  })
})
