/**
 * Tool globs that match no tool. A `--deny` glob with a typo, or a policy rule written for a
 * tool the run does not have, is silently inert: the call it was meant for runs under another
 * rule. `find` lists every such glob of a policy, given the tools of the run (each matched by
 * its name or its provider-safe alias, as `Policy.decide` matches them), with the tools it
 * could have meant: the closest names by edit distance, each with its alias (`añadir`, sent to
 * the model as `anadir`). `message` says it in one line, for stderr.
 *
 * @since 0.1.0
 */
import { ToolName } from "@agent-harness/tool-schema"
import { Result } from "effect"
import * as Glob from "./Glob.ts"
import type * as Policy from "./Policy.ts"

/**
 * A tool the glob could have meant: its name, and the alias providers are sent when it differs.
 *
 * @since 0.1.0
 */
export interface Candidate {
  /** The tool's name. */
  readonly name: string
  /** Its provider-safe alias, when it is not the name (`anadir` for `añadir`). */
  readonly alias?: string | undefined
}

/**
 * A glob that matches no tool of the run.
 *
 * @since 0.1.0
 */
export interface Unmatched {
  /** The index of its rule in the policy's `rules`. */
  readonly rule: number
  /** The glob as written. */
  readonly glob: string
  /** Where it was written: its flag (`--deny "wirte"`) or its rule (`rules[2].tool`). */
  readonly where: string
  /** The tools it could have meant, closest first (at most three; none when nothing is close). */
  readonly candidates: ReadonlyArray<Candidate>
}

/**
 * The Levenshtein distance of two texts, over code points, in O(a × b) time and O(b) space.
 *
 * @since 0.1.0
 */
export const distance = (a: string, b: string): number => {
  const x = Array.from(a)
  const y = Array.from(b)
  let previous = Array.from({ length: y.length + 1 }, (_, i) => i)
  for (let i = 1; i <= x.length; i++) {
    const current = [i]
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[y.length] ?? 0
}

const candidateOf = (name: string): Candidate => {
  const alias = ToolName.alias(name)
  return alias._tag === "Alias" && alias.alias !== name ? { name, alias: alias.alias } : { name }
}

/** The literal text of a glob, for comparing with names: its `!`, wildcards and escapes dropped. */
const literal = (glob: string): string =>
  glob
    .replace(/^!+/, "")
    .replace(/\\(.)/g, "$1")
    .replace(/[*?[\]{}]/g, "")
    .toLowerCase()

/** The tools closest to a glob: within a third of its length (at least 2 edits), closest first. */
const closest = (glob: string, tools: ReadonlyArray<Candidate>): ReadonlyArray<Candidate> => {
  const text = literal(glob)
  if (text === "") return []
  const bound = Math.max(2, Math.floor(Array.from(text).length / 3))
  return tools
    .map((tool) => {
      const spellings = [tool.name, tool.alias ?? tool.name].map((s) => s.toLowerCase())
      const d = Math.min(
        ...spellings.map((s) => distance(text, s)),
        // A glob that is part of a name (`delete` for `fs__delete_file`) is close.
        ...spellings.map((s) => (s.includes(text) || text.includes(s) ? 1 : Infinity))
      )
      return { tool, d }
    })
    .filter(({ d }) => d <= bound)
    .sort((a, b) => a.d - b.d || a.tool.name.localeCompare(b.tool.name))
    .slice(0, 3)
    .map(({ tool }) => tool)
}

/** A rule made by `Policy.withShorthands` says its flag as its reason. */
const whereOf = (rule: Policy.Rule, index: number, glob: string, position: number | undefined): string => {
  const flag = `--${rule.decision} ${JSON.stringify(glob)}`
  if (rule.reason === flag) return flag
  return position === undefined ? `rules[${index}].tool` : `rules[${index}].tool[${position}]`
}

/**
 * Every tool glob of `policy` that matches none of `tools` (names; each also matched by its
 * provider-safe alias), in the order of the rules, with the tools each could have meant. A glob
 * that does not compile is left to `Policy.compile` to refuse.
 *
 * @example
 * ```ts
 * import { Policy, Unmatched } from "@agent-harness/permission"
 *
 * const policy = Policy.withShorthands(Policy.askBeforeChanges, { deny: ["wirte"] })
 * Unmatched.find(policy, ["read", "write", "añadir"])
 * // [{ rule: 0, glob: "wirte", where: '--deny "wirte"', candidates: [{ name: "write" }] }]
 * ```
 *
 * @since 0.1.0
 */
export const find = (policy: Policy.Policy, tools: Iterable<string>): ReadonlyArray<Unmatched> => {
  const candidates = [...new Set(tools)].map(candidateOf)
  const spellings = candidates.map((c) => (c.alias === undefined ? [c.name] : [c.name, c.alias]))
  const out: Array<Unmatched> = []
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    if (rule.tool === undefined) continue
    const globs = typeof rule.tool === "string" ? [rule.tool] : rule.tool
    for (const [position, glob] of globs.entries()) {
      const compiled = Glob.compile(glob)
      if (Result.isFailure(compiled)) continue
      if (spellings.some((names) => Glob.matchesSome(compiled.success, names))) continue
      out.push({
        rule: index,
        glob,
        where: whereOf(rule, index, glob, typeof rule.tool === "string" ? undefined : position),
        candidates: closest(glob, candidates)
      })
    }
  }
  return out
}

const shown = (candidate: Candidate): string =>
  candidate.alias === undefined
    ? JSON.stringify(candidate.name)
    : `${JSON.stringify(candidate.name)} (sent to the model as ${JSON.stringify(candidate.alias)})`

/**
 * One line for an unmatched glob: `--deny "wirte" matches no tool, so it does nothing; did you
 * mean "write"?`.
 *
 * @since 0.1.0
 */
export const message = (unmatched: Unmatched): string => {
  const base = `${unmatched.where} matches no tool, so it does nothing`
  const { candidates } = unmatched
  if (candidates.length === 0) return `${base} (no tool has a name close to it)`
  return `${base}; did you mean ${candidates.map(shown).join(" or ")}?`
}
