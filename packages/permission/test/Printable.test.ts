/**
 * Text safe to show a person on a terminal: controls, bidi controls and invisible characters
 * escaped, everything else (accents, scripts, emoji sequences) as it is; hostile sizes in linear
 * time.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Printable } from "../src/index.ts"

describe("Printable", () => {
  it("escapes controls, bidi controls and invisible format characters", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["\u001b[2J", "\\u001b[2J"],
      ["a\u009bb\u007f", "a\\u009bb\\u007f"],
      ["evil\u202Etxt.exe", "evil\\u202etxt.exe"],
      [
        "\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C",
        "\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"
      ],
      ["a\u200Bb\u200Cc\u200Dd\u2060e\uFEFFf\u00ADg", "a\\u200bb\\u200cc\\u200dd\\u2060e\\ufefff\\u00adg"],
      ["\u2028\u2029", "\\u2028\\u2029"],
      ["tag\u{E0041}\u{E007F}", "tag\\u{e0041}\\u{e007f}"],
      ["hangul\u3164filler", "hangul\\u3164filler"],
      ["x\uFE0F", "x\\ufe0f"],
      ["lone\uD800high", "lone\\ud800high"],
      ["lone\uDC00low", "lone\\udc00low"]
    ]
    for (const [text, shown] of cases) assert.strictEqual(Printable.line(text), shown, JSON.stringify(text))
  })

  it("keeps what is visible: accents, scripts, emoji sequences", () => {
    for (const text of ["café ✓", "ελληνικά кириллица 日本語", "👨‍👩‍👧 ❤️ 👍🏽", 'a/b\\c "q"']) {
      assert.strictEqual(Printable.line(text), text)
    }
  })

  it("lines keeps line breaks, line escapes them", () => {
    assert.strictEqual(Printable.lines("a\nb\u202Ec\r\n"), "a\nb\\u202ec\\u000d\n")
    assert.strictEqual(Printable.line("a\nb"), "a\\u000ab")
  })

  it("what it prints has no hidden character left, whatever the text", () => {
    const hidden = /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[\ud800-\udfff])$/u
    const pictograph = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}]$/u
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("\u202e", "\u200d", "\ufe0f", "\u{1f468}", "\u{1f3fd}", "\u{e0041}", "\n", "a")
    )
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (units) => {
        const shown = Array.from(Printable.line(units.join("")))
        return shown.every((char, i) => {
          if (!hidden.test(char)) return true
          // Only an emoji's joiner or selector is kept, right after a pictograph.
          return (char === "\u200d" || char === "\ufe0f") && pictograph.test(shown[i - 1] ?? "")
        })
      }),
      { seed: 19, numRuns: 3000 }
    )
  })

  it("a huge text is escaped in linear time", () => {
    const text = "\u202Ea".repeat(500_000)
    const start = performance.now()
    const shown = Printable.line(text)
    assert.strictEqual(shown.length, 3_500_000)
    assert.isBelow(performance.now() - start, 5_000)
  })
})
