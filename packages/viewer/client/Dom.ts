/**
 * The page's template helper: `h(tag, attributes, ...children)` builds an element. Text is
 * always set as text (never parsed as HTML), attributes with `setAttribute`, handlers with
 * `addEventListener`; `null`, `undefined` and `false` children and attributes are left out.
 */

/** A child: a node, a text, nothing, or a list of those. */
export type Child = Node | string | number | null | undefined | false | ReadonlyArray<Child>

/** Attributes: strings and numbers are set, `true` sets an empty attribute, handlers start with `on`. */
export type Attributes = {
  readonly [name: string]: string | number | boolean | null | undefined | ((event: Event) => void)
}

const append = (parent: Node, child: Child): void => {
  if (child === null || child === undefined || child === false) return
  if (Array.isArray(child)) {
    for (const c of child as ReadonlyArray<Child>) append(parent, c)
    return
  }
  parent.appendChild(
    typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : (child as Node)
  )
}

/** An element with its attributes and children. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes | null,
  ...children: ReadonlyArray<Child>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  if (attributes !== null && attributes !== undefined) {
    for (const [name, value] of Object.entries(attributes)) {
      if (value === null || value === undefined || value === false) continue
      if (typeof value === "function") element.addEventListener(name.slice(2), value)
      else element.setAttribute(name, value === true ? "" : String(value))
    }
  }
  for (const child of children) append(element, child)
  return element
}

/** A fragment of children. */
export const fragment = (...children: ReadonlyArray<Child>): DocumentFragment => {
  const out = document.createDocumentFragment()
  for (const child of children) append(out, child)
  return out
}

/**
 * A text with every case-insensitive occurrence of `query` in a `<mark>` (the text as it is when
 * the query is empty).
 */
export const marked = (text: string, query: string): Child => {
  if (query === "") return text
  const lower = text.toLowerCase()
  const parts: Array<Child> = []
  let from = 0
  for (let at = lower.indexOf(query, from); at !== -1; at = lower.indexOf(query, from)) {
    if (at > from) parts.push(text.slice(from, at))
    parts.push(h("mark", null, text.slice(at, at + query.length)))
    from = at + query.length
  }
  if (from < text.length) parts.push(text.slice(from))
  return parts
}

/** JSON as people read it: indented. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2) ?? String(value)
