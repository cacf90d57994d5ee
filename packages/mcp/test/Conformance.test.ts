/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.16, every
 * scenario: `--suite all`) against `Serve.http` carrying the suite's fixture tools. Each
 * scenario for what we offer (the handshake, ping, logging, tools, tools that ask the client
 * for sampling and elicitation through `Caller`, DNS-rebinding protection)
 * must pass every check; each scenario for a capability we do not offer must still fail, so
 * this test says when one starts to pass (then move it, here and in the README). A scenario
 * the suite adds is named too.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { Serve } from "../src/index.ts"
import { conformanceTools } from "./fixtures/conformance-tools.ts"

/** The CLI's script, run with this Node (22: the suite needs `fs.globSync`; a `node` on PATH may be older). */
const cli = (() => {
  const folder = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/", import.meta.url))
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { bin: { conformance: string } }
  return join(folder, manifest.bin.conformance)
})()
const readme = fileURLToPath(new URL("../README.md", import.meta.url))

/** The scenarios of what we offer: every check passes. */
const offered = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "json-schema-2020-12",
  "server-sse-multiple-streams",
  "dns-rebinding-protection"
]

/** The scenarios of capabilities we do not offer (the README lists them, with why). */
const notOffered = [
  "completion-complete",
  "server-sse-polling",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  "resources-subscribe",
  "resources-unsubscribe",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image"
]

interface Check {
  readonly id: string
  readonly status: string
  readonly errorMessage?: string
}

/** Runs the CLI to its end (at most `within` ms); its output, for the failure message. */
const runSuite = (args: ReadonlyArray<string>, within: number) =>
  new Promise<{ readonly code: number | null; readonly output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    let output = ""
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8")
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the conformance suite did not finish within ${within} ms:\n${output.slice(-4000)}`))
    }, within)
    child.once("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })

/** Each scenario's checks, from the suite's `-o` folder (`server-<scenario>-<time>/checks.json`). */
const resultsIn = async (folder: string): Promise<ReadonlyMap<string, ReadonlyArray<Check>>> => {
  const results = new Map<string, ReadonlyArray<Check>>()
  for (const entry of await readdir(folder)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry)?.[1]
    if (scenario === undefined) continue
    results.set(scenario, JSON.parse(await readFile(join(folder, entry, "checks.json"), "utf8")) as Array<Check>)
  }
  return results
}

describe("the MCP conformance suite against Serve.http", () => {
  it("passes every scenario of what we offer; the others fail until we offer them", { timeout: 180_000 }, async () => {
    const scope = await Effect.runPromise(Scope.make())
    const folder = await mkdtemp(join(tmpdir(), "conformance-"))
    try {
      const { url } = await Effect.runPromise(
        Scope.provide(Serve.http(conformanceTools, { port: 0, name: "conformance-fixture" }), scope)
      )
      const run = await runSuite(["server", "--url", url, "--suite", "all", "-o", folder], 150_000)
      const results = await resultsIn(folder)
      const problems: Array<string> = []
      for (const scenario of offered) {
        const checks = results.get(scenario)
        if (checks === undefined) problems.push(`${scenario}: did not run`)
        else if (checks.length === 0) problems.push(`${scenario}: no checks`)
        for (const check of checks ?? []) {
          if (check.status === "FAILURE") problems.push(`${scenario}: ${check.id} failed: ${check.errorMessage ?? ""}`)
        }
      }
      for (const scenario of notOffered) {
        const checks = results.get(scenario)
        if (checks === undefined) problems.push(`${scenario}: did not run`)
        else if (!checks.some((check) => check.status === "FAILURE")) {
          problems.push(`${scenario}: passes now: move it to the offered scenarios (and out of the README's list)`)
        }
      }
      for (const scenario of results.keys()) {
        if (!offered.includes(scenario) && !notOffered.includes(scenario)) {
          problems.push(`${scenario}: a scenario this test does not know (offered or not?)`)
        }
      }
      expect(problems, run.output.slice(-4000)).toStrictEqual([])
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await rm(folder, { recursive: true, force: true })
    }
  })

  it("the README lists every scenario we do not offer", async () => {
    const text = await readFile(readme, "utf8")
    expect(notOffered.filter((scenario) => !text.includes(`\`${scenario}\``))).toStrictEqual([])
  })
})
