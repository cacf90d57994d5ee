/**
 * The files the salmorejo conversation starts from: the shopping list, the dinner
 * note and the two recipes under `recetas/` (gazpacho and tortilla), plus an English twin.
 * There is deliberately no salmorejo recipe. Contents have no trailing newline, so an append
 * continues the same line.
 *
 * @since 0.1.0
 */
import type { Locale } from "./FileTools.ts"

/**
 * The Spanish starting files.
 *
 * @since 0.1.0
 */
export const spanish: Readonly<Record<string, string>> = Object.freeze({
  "lista.txt": "pan, leche, huevos",
  "nota.txt": "Cena del viernes: somos cuatro. Gazpacho de primero y tortilla de segundo.",
  "recetas/gazpacho.txt": "tomates, pepino, pimiento, ajo, aceite, vinagre, sal",
  "recetas/tortilla.txt": "huevos, patatas, cebolla, aceite, sal"
})

/**
 * The same starting files in English.
 *
 * @since 0.1.0
 */
export const english: Readonly<Record<string, string>> = Object.freeze({
  "list.txt": "bread, milk, eggs",
  "note.txt": "Dinner on Friday: four of us. Gazpacho to start, then tortilla.",
  "recipes/gazpacho.txt": "tomatoes, cucumber, pepper, garlic, olive oil, vinegar, salt",
  "recipes/tortilla.txt": "eggs, potatoes, onion, olive oil, salt"
})

/**
 * The starting files of a locale.
 *
 * @since 0.1.0
 */
export const forLocale = (locale: Locale): Readonly<Record<string, string>> => (locale === "es" ? spanish : english)
