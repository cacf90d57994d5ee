import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ResponseContract } from "../src/index.ts"

const fixed = ResponseContract.contract()
const before = ResponseContract.contentPresent()

describe("ResponseContract.contract", () => {
  it("succeeds only on status ok, with the content as the answer", () => {
    expect(fixed({ status: "ok", content: "3 copies" })).toStrictEqual({ ok: true, answer: "3 copies" })
  })

  it("an empty result with status ok is a valid answer", () => {
    expect(fixed({ status: "ok", content: [] })).toStrictEqual({ ok: true, answer: [] })
  })

  it("an ok response without content answers null, as the seed's Python does (response.get('content'))", () => {
    expect(fixed({ status: "ok" })).toStrictEqual({ ok: true, answer: null })
    expect(fixed({ status: "ok", content: null })).toStrictEqual({ ok: true, answer: null })
    const parsed = fixed({ status: "ok" })
    expect(Schema.decodeUnknownSync(ResponseContract.Parsed)(JSON.parse(JSON.stringify(parsed)))).toStrictEqual(parsed)
  })

  it("never decides from the text of the content", () => {
    expect(fixed({ status: "ok", content: "«The error of Ada»: 2 copies" })).toStrictEqual({
      ok: true,
      answer: "«The error of Ada»: 2 copies"
    })
    expect(fixed({ status: "unavailable", error_code: "SERVICE_UNAVAILABLE", content: "try later" })).toStrictEqual({
      ok: false,
      error_code: "SERVICE_UNAVAILABLE",
      message: "try later"
    })
  })

  it("any other status, or none, fails with the code or UNKNOWN and the content or ''", () => {
    expect(fixed({ status: "error", error_code: "TIMEOUT", content: "timed out" })).toStrictEqual({
      ok: false,
      error_code: "TIMEOUT",
      message: "timed out"
    })
    expect(fixed({ content: "no status" })).toStrictEqual({ ok: false, error_code: "UNKNOWN", message: "no status" })
    expect(fixed({ status: "error" })).toStrictEqual({ ok: false, error_code: "UNKNOWN", message: "" })
    expect(fixed("plain text")).toStrictEqual({ ok: false, error_code: "UNKNOWN", message: "" })
    expect(fixed(null)).toStrictEqual({ ok: false, error_code: "UNKNOWN", message: "" })
    expect(fixed({ status: "OK" })).toStrictEqual({ ok: false, error_code: "UNKNOWN", message: "" })
  })

  it("field names and the ok value are configurable", () => {
    const custom = ResponseContract.contract({ status: "state", ok: 200, errorCode: "code", content: "body" })
    expect(custom({ state: 200, body: "fine" })).toStrictEqual({ ok: true, answer: "fine" })
    expect(custom({ state: 503, code: 503, body: "down" })).toStrictEqual({
      ok: false,
      error_code: "503",
      message: "down"
    })
  })

  it("a parsed result is JSON of its Schema", () => {
    const parsed = fixed({ status: "error", error_code: "TIMEOUT", content: "x" })
    expect(Schema.decodeUnknownSync(ResponseContract.Parsed)(JSON.parse(JSON.stringify(parsed)))).toStrictEqual(parsed)
  })
})

describe("ResponseContract.contentPresent (the seed's `before`)", () => {
  it("takes any response with content as the answer: the bug seed 003 fixes", () => {
    expect(before({ status: "error", error_code: "TIMEOUT", content: "timed out" })).toStrictEqual({
      ok: true,
      answer: "timed out"
    })
    expect(before({ status: "error", error_code: "TIMEOUT" })).toStrictEqual({
      ok: false,
      error_code: "TIMEOUT",
      message: ""
    })
  })
})
