/**
 * The page: one self-contained HTML file. Its style sheet and script are inline and allowed by
 * their SHA-256 hashes in a strict Content-Security-Policy (`default-src 'none'`, no
 * `'unsafe-inline'`), so the page makes no network request and runs no other script; the data
 * is embedded as JSON in a `<script type="application/json">` block (not run), with every `<`,
 * `>`, `&`, U+2028 and U+2029 escaped so no input can close the block.
 *
 * @since 0.1.0
 */
import * as Client from "./client.generated.ts"
import * as Input from "./Input.ts"
import type * as Model from "./Model.ts"
import * as TrialsChart from "./TrialsChart.ts"

/**
 * The page's Content-Security-Policy: nothing is allowed but its own inline script and style
 * sheet (by hash); no fetch, image, font, frame, form target or base URL.
 *
 * @since 0.1.0
 */
export const policy: string = [
  "default-src 'none'",
  `script-src ${Client.scriptHash}`,
  `style-src ${Client.styleHash}`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'"
].join("; ")

/**
 * JSON that is safe inside a `<script>` block: no `<`, `>` or `&` (so no `</script>` or
 * `<!--`), no U+2028 or U+2029; `JSON.parse` reads it back unchanged.
 *
 * @since 0.1.0
 */
export const embed = (value: unknown): string =>
  (JSON.stringify(value) ?? "null")
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029")

const escapeText = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")

/**
 * The HTML of a page model.
 *
 * @since 0.1.0
 */
export const fromPage = (page: Model.Page): string =>
  [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeText(policy)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="color-scheme" content="light dark">',
    '<link rel="icon" href="data:,">',
    `<title>${escapeText(page.title)}</title>`,
    `<style>${Client.style}</style>`,
    "</head>",
    "<body>",
    '<div id="viewer"><noscript>This page draws its content with JavaScript (trials reports below need none).</noscript></div>',
    // Trials reports are drawn here, in HTML and SVG: the script moves each into its view.
    ...page.files.flatMap((file) => (file.kind === "trials" ? [TrialsChart.section(file)] : [])),
    `<script id="viewer-data" type="application/json">${embed(page)}</script>`,
    `<script>${Client.script}</script>`,
    "</body>",
    "</html>",
    ""
  ].join("\n")

/**
 * The options of `render`.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The page title; default `harness view: <the file names>`. */
  readonly title?: string | undefined
}

/**
 * Renders input files (conversation traces, plan session traces, test reports, told apart by
 * their content) as one self-contained HTML page. Never fails: what cannot be read is named on
 * the page, by line and JSON path. A trials report's bars open the traces it links to only when
 * they are among the inputs (see `Input.linked`).
 *
 * @since 0.1.0
 */
export const render = (inputs: ReadonlyArray<Input.Input>, options?: Options): string =>
  fromPage(Input.page(inputs, options?.title))
