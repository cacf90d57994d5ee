/**
 * How `harness agent` puts its parts together: the policy's globs are judged against the tools the
 * run really has (the locale's file tools, the mounted ones), and a person is asked only where
 * they can see the question (stdin a terminal, the question on a terminal too).
 */
import { PassThrough } from "node:stream"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, assert, describe, expect, it } from "@effect/vitest"
import * as AgentApprover from "../src/agent/Approver.ts"
import { agent } from "./fixtures/agent.ts"
import { apiKey } from "./fixtures/fakes.ts"
import { tempFolder } from "./fixtures/scenarios.ts"

/** A CLI run on a loaded 2-core machine. */
const SPAWN = { timeout: 120_000 }

const temp = tempFolder("agent-wiring")
afterAll(() => temp.remove())
temp.write("root/list.txt", "bread\n")

describe("harness agent: globs judged against the run's own tools", () => {
  it(
    "a Spanish tool name in an English session, and an MCP-looking glob with no server, are warned about",
    SPAWN,
    async () => {
      const fake = await FakeProvider.start({ apiKey, anthropic: [FakeProvider.reply([Message.text("ok")])] })
      try {
        const run = await agent({
          fake,
          args: ["--root", temp.path("root"), "--deny", "escribir", "--deny", "fs__delete*", "--allow", "read", "hi"]
        })
        assert.strictEqual(run.code, 0, run.stderr)
        expect(run.stderr).toContain('harness agent: warning: --deny "escribir" matches no tool')
        expect(run.stderr).toContain('harness agent: warning: --deny "fs__delete*" matches no tool')
        expect(run.stderr).not.toContain('--allow "read"')
      } finally {
        await fake.close()
      }
    }
  )
})

describe("AgentApprover.terminalOf: asked only where the question can be seen", () => {
  const stream = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY })
  it("stdin and stderr terminals: the question goes to stderr", () => {
    const io = { stdin: stream(true), stdout: stream(true), stderr: stream(true) }
    assert.strictEqual(AgentApprover.terminalOf(io)?.output, io.stderr)
  })
  it("stderr redirected (2>log): the question goes to the stdout terminal, never into the log", () => {
    const io = { stdin: stream(true), stdout: stream(true), stderr: stream(false) }
    assert.strictEqual(AgentApprover.terminalOf(io)?.output, io.stdout)
  })
  it("no terminal to answer on, or none to see the question on: no one is asked", () => {
    assert.isUndefined(AgentApprover.terminalOf({ stdin: stream(false), stdout: stream(true), stderr: stream(true) }))
    assert.isUndefined(AgentApprover.terminalOf({ stdin: stream(true), stdout: stream(false), stderr: stream(false) }))
  })
})
