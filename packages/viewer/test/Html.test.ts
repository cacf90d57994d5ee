import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Html, Input } from "../src/index.ts"
import * as Client from "../src/client.generated.ts"
import { showcase } from "./fixtures.ts"

const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

const between = (html: string, open: string, close: string): string => {
  const from = html.indexOf(open)
  const to = html.indexOf(close, from + open.length)
  return from === -1 || to === -1 ? "" : html.slice(from + open.length, to)
}

describe("Html.render", () => {
  const html = Html.render([{ name: "showcase.jsonl", text: showcase() }])

  it("allows its own inline script and style sheet by hash, and nothing else", () => {
    expect(Html.policy).toBe(
      `default-src 'none'; script-src ${sha(Client.script)}; style-src ${sha(Client.style)}; img-src data:; base-uri 'none'; form-action 'none'`
    )
    expect(Html.policy).not.toContain("unsafe")
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${Html.policy}">`)
    expect(between(html, "<script>", "</script>")).toBe(Client.script)
    expect(between(html, "<style>", "</style>")).toBe(Client.style)
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"))
  })

  it("loads nothing from elsewhere", () => {
    expect(html).not.toMatch(/\b(src|href)="(?!data:)/)
    expect(html).not.toMatch(/https?:\/\//)
  })

  it("embeds input that tries to close the data block as data", () => {
    const hostile = "</script><script>alert(1)</script><!-- \u2028\u2029 & <b>"
    const inputs = [{ name: "</title><script>alert(2)</script>", text: showcase().replace("does not exist", hostile) }]
    const page = Html.render(inputs)
    expect(page.match(/<script/g)).toHaveLength(2)
    expect(page).not.toContain("alert(1)</script>")
    expect(page).toContain("<title>harness view: &lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;</title>")
    const data = between(page, '<script id="viewer-data" type="application/json">', "</script>")
    expect(data).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(data)).toStrictEqual(JSON.parse(JSON.stringify(Input.page(inputs))))
  })
})

describe("Html.embed", () => {
  it("round-trips through JSON.parse", () => {
    const value = { a: "</script>", b: "\u2028", c: ["&", "<!--"], d: null }
    expect(JSON.parse(Html.embed(value))).toStrictEqual(value)
  })
})
