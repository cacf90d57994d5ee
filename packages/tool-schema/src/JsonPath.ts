/**
 * A JSON path as text, the one way every package writes where in a document a problem is:
 * `turns[2].reply[0].id`, `mcpServers.fs.args[1]`, `files["lista.txt"]`.
 *
 * @since 0.1.0
 */

const identifier = /^[A-Za-z_$][\w$]*$/

/**
 * A path as text for a person reading a file: indexes as `[2]`, names that are identifiers after
 * a dot, any other name quoted as JSON (`files["lista.txt"]`), `(root)` for the empty path.
 *
 * @since 0.1.0
 */
export const text = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else {
      const name = String(key)
      out += identifier.test(name) ? (out === "" ? name : `.${name}`) : `[${JSON.stringify(name)}]`
    }
  }
  return out === "" ? "(root)" : out
}

/**
 * A path as the model reads it in a violation: indexes as `[2]`, every name after a dot as it is
 * (never quoted), the empty string for the empty path.
 *
 * @since 0.1.0
 */
export const plain = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out
}
