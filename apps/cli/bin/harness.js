#!/usr/bin/env node
// The installed `harness` command: Node's compile cache first (Node 22.1+), then the bundled CLI.
// node:sqlite (the journal) is stable enough for us but still flagged experimental by Node 22:
// that one warning is dropped, every other warning is printed as Node would.
import module from "node:module"
import process from "node:process"

process.removeAllListeners("warning")
process.on("warning", (warning) => {
  if (warning.name === "ExperimentalWarning" && /SQLite/.test(warning.message)) return
  process.stderr.write(`${warning.name}: ${warning.message}\n`)
})
module.enableCompileCache?.()
await import("../dist/main.js")
