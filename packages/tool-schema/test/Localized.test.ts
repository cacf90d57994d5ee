/**
 * Texts in several languages, written once: the set of a locale (English for one that has none),
 * and a package's texts that follow the locale in use unless provided.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Localized } from "../src/index.ts"

const byLocale: Localized.ByLocale<{ readonly hello: string }> = { en: { hello: "hello" }, es: { hello: "hola" } }

describe("Localized", () => {
  it("pick: Spanish for es, English for en and for any locale that has none", () => {
    assert.strictEqual(Localized.pick(byLocale, "es").hello, "hola")
    assert.strictEqual(Localized.pick(byLocale, "en").hello, "hello")
    assert.strictEqual(Localized.pick(byLocale, "fr").hello, "hello")
    assert.strictEqual(Localized.pick(byLocale, "").hello, "hello")
  })

  it("current: the provided texts, else those of the locale in use", async () => {
    const Texts = Localized.reference<{ readonly hello: string }>("test/Localized/Texts")
    const current = (locale: string) => Localized.current(Texts, byLocale, Effect.succeed(locale))
    assert.strictEqual((await Effect.runPromise(current("es"))).hello, "hola")
    assert.strictEqual((await Effect.runPromise(current("de"))).hello, "hello")
    const given = await Effect.runPromise(current("es").pipe(Effect.provideService(Texts, { hello: "hallo" })))
    assert.strictEqual(given.hello, "hallo")
  })
})
