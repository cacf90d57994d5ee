/**
 * Texts in several languages, written one way in every package: one set per shipped locale
 * (English and Spanish), English for a locale that has none, and a package's texts as a
 * `Context.Reference` that, when nobody provides it, follows the locale in use (the
 * `MessageCatalog`'s).
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"

/**
 * The locales whose texts ship: English and Spanish.
 *
 * @since 0.1.0
 */
export type Locale = "en" | "es"

/**
 * One set of texts per shipped locale.
 *
 * @since 0.1.0
 */
export type ByLocale<T> = Readonly<Record<Locale, T>>

/**
 * The texts of `locale`: Spanish for `"es"`, English for any other.
 *
 * @since 0.1.0
 */
export const pick = <T>(byLocale: ByLocale<T>, locale: string): T => (locale === "es" ? byLocale.es : byLocale.en)

/**
 * A package's texts as a service under `key`: nobody's (`undefined`) unless provided, so that
 * {@link current} follows the locale in use.
 *
 * @since 0.1.0
 */
export const reference = <T>(key: string): Context.Reference<T | undefined> =>
  Context.Reference<T | undefined>(key, { defaultValue: () => undefined })

/**
 * The texts of the current fiber: those provided under `ref`, else those of the locale `locale`
 * gives (see {@link pick}).
 *
 * @since 0.1.0
 */
export const current = <T, E, R>(
  ref: Context.Reference<T | undefined>,
  byLocale: ByLocale<T>,
  locale: Effect.Effect<string, E, R>
): Effect.Effect<T, E, R> =>
  Effect.withFiber((fiber) => {
    const given = fiber.getRef(ref)
    if (given !== undefined) return Effect.succeed(given)
    return Effect.map(locale, (l) => pick(byLocale, l))
  })
