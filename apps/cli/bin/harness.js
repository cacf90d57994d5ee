#!/usr/bin/env node
// The installed `harness` command: Node's compile cache first (Node 22.1+), then the bundled CLI.
// node:sqlite (the journal) is stable enough for us but still flagged experimental by Node 22:
// that one warning is dropped, every other warning is printed as Node would.
// Built-in modules are read with process.getBuiltinModule, never imported: importing node:process
// would make Node read all its exports, opening stdin, stdout and stderr before anything runs.
process.removeAllListeners("warning")
process.on("warning", (warning) => {
  if (warning.name === "ExperimentalWarning" && /SQLite/.test(warning.message)) return
  process.stderr.write(`${warning.name}: ${warning.message}\n`)
})
const module = process.getBuiltinModule("node:module")
module.enableCompileCache?.()
// A chunk's import of another (`./name.js`, all in dist/, all ES modules) resolved at once, without
// the file system look-ups Node makes for any specifier (Node 22.15+; elsewhere Node resolves it).
const dist = new URL("../dist/", import.meta.url).href
module.registerHooks?.({
  resolve: (specifier, context, nextResolve) =>
    specifier.startsWith("./") && !specifier.includes("/", 2) && context.parentURL?.startsWith(dist)
      ? { url: `${dist}${specifier.slice(2)}`, format: "module", shortCircuit: true }
      : nextResolve(specifier, context)
})
await import("../dist/main.js")
