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
process.getBuiltinModule("node:module").enableCompileCache?.()
await import("../dist/main.js")
