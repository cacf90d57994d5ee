/**
 * Scenario files that mount MCP servers, through the CLI: the shipped calculator scenario (a
 * dependency-free server next to it), what a failing one says, a server that cannot start,
 * warnings on stderr, and a traced run captured into a scenario that mounts the same server and
 * replays. Each spawn has its own generous timeout (fixtures/harness.ts).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { harness } from "./fixtures/harness.ts"
import { at, type Json, loadJson, scenariosDir, tempFolder } from "./fixtures/scenarios.ts"

const SPAWNS = { timeout: 180_000 }
const calculator = join(scenariosDir, "mcp", "calculator.json")
const server = join(scenariosDir, "mcp", "calculator.mjs")

const temp = tempFolder("mcp-scenario")
afterAll(() => temp.remove())

/** A copy of the calculator scenario in its own folder, with the server next to it, edited by `edit`. */
const copy = (name: string, edit: (json: Json) => void = () => undefined): string => {
  const json = loadJson(calculator)
  edit(json)
  const file = temp.write(`${name}/scenario.json`, json)
  copyFileSync(server, temp.path(`${name}/calculator.mjs`))
  return file
}

describe("scenarios that mount MCP servers", () => {
  it("the shipped calculator scenario passes: invalid call not sent, valid call, the server's isError", SPAWNS, () => {
    const r = harness(["run", calculator])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS a mounted MCP server (calculator) (end, 4 model calls)\n")
    assert.strictEqual(r.stderr, "")
  })

  it("a scenario expecting another answer of the server fails, naming the call, expected and seen", SPAWNS, () => {
    const file = copy("wrong", (json) => {
      at(json, "turns", 1, "expect", 1).content = "division by zero"
    })
    const r = harness(["run", file])
    assert.strictEqual(r.code, 1)
    assert.deepStrictEqual(r.lines, [
      "FAIL a mounted MCP server (calculator) (diverged, 3 model calls)",
      "    turn 2, tool_use_id d3: a different observation",
      `      expected: d3 is_error=true "division by zero"`,
      `      seen:     d3 is_error=true "cannot divide 1 by zero"`
    ])
  })

  it("a server that cannot be started fails the scenario, naming the declaration; nothing runs", SPAWNS, () => {
    const file = copy("missing", (json) => {
      at(json, "mcp", 0).command = "no-such-command-for-the-harness"
    })
    const r = harness(["run", file])
    assert.strictEqual(r.code, 1)
    assert.strictEqual(r.lines[0], "FAIL a mounted MCP server (calculator) (diverged, 0 model calls)")
    assert.match(
      r.lines[1] ?? "",
      /^ {4}mcp\[0\] \(calc\): MCP server 'no-such-command-for-the-harness calculator\.mjs': could not start 'no-such-command-for-the-harness': .*ENOENT/
    )
  })

  it("an invalid declaration is an invalid file (exit 2), naming its JSON path", SPAWNS, () => {
    const file = copy("invalid", (json) => {
      at(json, "mcp", 0).url = "http://127.0.0.1:1/mcp"
    })
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      `INVALID ${file}: mcp[0].url: a server is started ("command") or reached ("url"), not both\n`
    )
  })

  it("what a mount warns about is printed on stderr, led by the file and the prefix", SPAWNS, () => {
    const folder = "warned"
    const file = copy(folder, (json) => {
      json.turns = [{ reply: [{ type: "text", text: "nothing to do" }] }]
      json.outcome = { stop: "end", text: "nothing to do" }
    })
    // The server lists a name providers refuse: it is mounted under a safe name, and said so.
    const script = temp.path(`${folder}/calculator.mjs`)
    writeFileSync(script, readFileSync(script, "utf8").replaceAll(`"calls"`, `"calls.count"`))
    const r = harness(["run", file])
    assert.strictEqual(r.code, 0, r.stdout)
    assert.match(
      r.stderr,
      /^[^\n]*scenario\.json: mcp calc: tool 'calls\.count' is mounted as 'calc__calls_count_[0-9a-f]{8}' \(model providers accept only letters, digits, '_' and '-', 64 at most\)\n$/
    )
  })

  it("a traced run, captured elsewhere, keeps the server (cwd made absolute) and replays", SPAWNS, () => {
    const trace = temp.path("calculator.jsonl")
    const ran = harness(["run", calculator, "--trace", trace])
    assert.strictEqual(ran.code, 0, ran.stderr)
    const out = temp.path("elsewhere/captured.json")
    temp.write("elsewhere/.keep", "")
    const captured = harness(["capture", trace, "--out", out])
    assert.strictEqual(captured.code, 0, captured.stderr)
    const json = loadJson(out)
    assert.deepStrictEqual(json.mcp, [
      // The trust given in the scenario travels with it: the replay believes the same server's hints.
      { command: "node", args: ["calculator.mjs"], prefix: "calc", trust: true, cwd: join(scenariosDir, "mcp") }
    ])
    const replayed = harness(["run", out])
    assert.strictEqual(replayed.code, 0, replayed.stdout + replayed.stderr)
    assert.match(replayed.stdout, /^PASS captured from calculator\.jsonl \(end, 4 model calls\)\n$/)
  })
})
