/**
 * A streamed text printed piece by piece (`Deltas`) prints what the whole text prints
 * (`Transcript.printable`), wherever the pieces are cut: inside an escape sequence, inside a
 * surrogate pair, between a zero-width joiner and the pictograph after it, between a pictograph
 * and its variation selector.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deltas from "../src/printing/Deltas.ts"
import * as Transcript from "../src/printing/Transcript.ts"

/** Texts whose escaping depends on neighbours, or that terminals act on. */
const hostile = [
  "plain text, nothing to escape",
  "red \u001b[31mALERT\u001b[0m done",
  "line one\r\nline two\n",
  "smile \ud83d\ude00 ok",
  "family \ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 end",
  "heart \u2764\ufe0f and a bare \ufe0f selector",
  "a\u200db joiner between letters, \ud83d\ude00\u200d trailing joiner",
  "\u200d leading joiner",
  "lone \ud83d high and \ude00 low surrogates\ud83d",
  "bidi notes\u202etxt.exe and \u2066isolate\u2069",
  "zero\u200bwidth soft\u00adhyphen bom\ufeff tag\udb40\udc41",
  "C1 \u0085 \u009b31m DEL \u007f"
]

/** Every text of `hostile` printed through `Deltas` cut at `cuts` (UTF-16 offsets). */
const streamed = (text: string, cuts: ReadonlyArray<number>): string => {
  const deltas = Deltas.make()
  let out = ""
  let from = 0
  for (const cut of [...cuts, text.length]) {
    out += deltas.push(text.slice(from, cut))
    from = cut
  }
  return out + deltas.end()
}

describe("Deltas", () => {
  it("prints what the whole text prints, for every cut into two and three pieces", () => {
    for (const text of hostile) {
      const whole = Transcript.printable(text)
      for (let i = 0; i <= text.length; i++) {
        assert.strictEqual(streamed(text, [i]), whole, `${JSON.stringify(text)} cut at ${i}`)
        for (let j = i; j <= text.length; j++) {
          assert.strictEqual(streamed(text, [i, j]), whole, `${JSON.stringify(text)} cut at ${i}, ${j}`)
        }
      }
    }
  })

  it("prints each character as it arrives when nothing waits on the next one", () => {
    const deltas = Deltas.make()
    assert.strictEqual(deltas.push("a\u001b"), "a\\u001b")
    assert.strictEqual(deltas.push("[31m"), "[31m")
    // Half a pair, and a joiner, wait for what follows them.
    assert.strictEqual(deltas.push("\ud83d"), "")
    assert.strictEqual(deltas.push("\ude00\u200d"), "\ud83d\ude00")
    assert.strictEqual(deltas.push("x"), "\\u200dx")
    assert.strictEqual(deltas.push("\ud83d"), "")
    // The text ends: what waited is printed as the end of a text prints it.
    assert.strictEqual(deltas.end(), "\\ud83d")
  })

  it("starts afresh after end: a joiner at the start of the next text has no pictograph before it", () => {
    const deltas = Deltas.make()
    assert.strictEqual(deltas.push("\ud83d\ude00") + deltas.end(), "\ud83d\ude00")
    assert.strictEqual(deltas.push("\u200d\ud83d\ude00") + deltas.end(), Transcript.printable("\u200d\ud83d\ude00"))
    assert.strictEqual(Transcript.printable("\u200d\ud83d\ude00"), "\\u200d\ud83d\ude00")
  })

  it("a long text in one-character pieces costs no more than the text (no quadratic re-escaping)", () => {
    const text = "word \u001b ".repeat(20_000)
    const deltas = Deltas.make()
    const started = performance.now()
    let out = ""
    for (const ch of text) out += deltas.push(ch)
    out += deltas.end()
    assert.strictEqual(out, Transcript.printable(text))
    assert.isBelow(performance.now() - started, 5_000)
  })
})
