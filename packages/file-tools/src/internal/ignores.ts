/**
 * The `.gitignore` rules that apply in a folder: one matcher (the `ignore` package) per folder
 * that has a `.gitignore`, each matching paths relative to its own folder. As in git, the
 * deepest `.gitignore` that has a rule for a path decides (a later rule wins inside one file);
 * a path no rule matches is kept.
 *
 * @internal
 */
import ignore from "ignore"

/** The rules of one folder. */
interface Level {
  /** The folder, root-relative (`""` for the root). */
  readonly base: string
  readonly matcher: ignore.Ignore
}

/** The rules in force in a folder: its own and its ancestors', deepest last. */
export type Ignores = ReadonlyArray<Level>

/** No rules. */
export const none: Ignores = []

const ignoreCase = process.platform === "darwin" || process.platform === "win32"

/**
 * The rules of a folder added to its ancestors': `texts` are `.gitignore`-syntax files (later
 * ones win). A text the matcher cannot take is left out (git, too, goes on past a bad line).
 */
export const push = (ignores: Ignores, base: string, texts: ReadonlyArray<string>): Ignores => {
  if (texts.length === 0) return ignores
  const matcher = ignore({ ignorecase: ignoreCase })
  for (const text of texts) {
    try {
      matcher.add(text)
    } catch {
      // a text that is not a list of patterns: no rules from it
    }
  }
  return [...ignores, { base, matcher }]
}

/**
 * Whether a root-relative path is ignored (a folder is given with a trailing `/`, as the
 * matcher expects, so `build/` rules match folders only).
 */
export const ignored = (ignores: Ignores, path: string): boolean => {
  for (let i = ignores.length - 1; i >= 0; i--) {
    const level = ignores[i]
    if (level === undefined) continue
    const relative = level.base === "" ? path : path.slice(level.base.length + 1)
    if (relative === "" || relative === "/") continue
    let result: ignore.TestResult
    try {
      result = level.matcher.test(relative)
    } catch {
      continue
    }
    if (result.ignored) return true
    if (result.unignored) return false
  }
  return false
}
