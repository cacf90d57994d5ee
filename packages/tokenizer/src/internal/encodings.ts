/**
 * The encodings, loaded when first asked for: each one's rank table (1–2.4 MB of JavaScript)
 * is a dynamic import, so a process that never counts with it never parses it. At most one
 * encoder per encoding is kept (two in all), and gpt-tokenizer's merge cache is bounded
 * (its default, 100,000 entries).
 */
import { GptEncoding } from "gpt-tokenizer/GptEncoding"

/** Counts the tokens of a text, special-token strings counted as plain text. */
export type Count = (text: string) => number

/** The encodings shipped: OpenAI's current (o200k_base) and previous (cl100k_base). */
export type Name = "o200k_base" | "cl100k_base"

// `<|endoftext|>` in a tool's output is text the model reads, never a control token: no
// special token is allowed or refused (gpt-tokenizer throws on a refused one by default).
const plain = { disallowedSpecial: new Set<string>() }

type Ranks = typeof import("gpt-tokenizer/bpeRanks/o200k_base")

const ranks = (name: Name): Promise<Ranks> =>
  name === "o200k_base" ? import("gpt-tokenizer/bpeRanks/o200k_base") : import("gpt-tokenizer/bpeRanks/cl100k_base")

const loaded = new Map<Name, Promise<Count>>()

/** The counter of `name`, loading its ranks on the first call (a failed load is tried again next time). */
export const load = (name: Name): Promise<Count> => {
  const known = loaded.get(name)
  if (known !== undefined) return known
  const loading = ranks(name).then((module) => {
    const api = GptEncoding.getEncodingApi(name, () => module.default)
    const count: Count = (text) => api.countTokens(text, plain)
    return count
  })
  loaded.set(name, loading)
  loading.catch(() => loaded.delete(name))
  return loading
}
