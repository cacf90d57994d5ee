/**
 * `harness agent` on a real terminal, answered as a person answers: the CLI runs inside a
 * pseudo-terminal (Python's `pty`, through a small driver that relays the terminal's bytes both
 * ways), against the loopback fake provider, with the default policy (changes are asked about).
 * Each answer is typed only once its question is on the screen, with Enter as a terminal sends
 * it (`\r`). It pins down: every question is read (not only the first), a nonsense answer is
 * asked again, Ctrl-D denies, each answer takes effect on disk, the question shows the path
 * first, and what the model wrote (its bidi controls included) is shown escaped in the question
 * and in the transcript.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import process from "node:process"
import { FakeProvider } from "@agent-harness/ai-sdk/testing"
import { Message } from "@agent-harness/executor"
import { afterAll, afterEach, assert, describe, it } from "@effect/vitest"
import { agentArgs, anthropicEnv, freshRoots } from "./fixtures/agent.ts"
import { fakeProviders } from "./fixtures/fakes.ts"
import { demoDir, tempFolder } from "./fixtures/scenarios.ts"

/** The whole test: a CLI run on a loaded 2-core machine, a few questions. */
const RUN = { timeout: 180_000 }
/** How long one question (or the run's end) may take to appear. */
const STEP = 60_000

/**
 * The terminal: runs `argv` with its stdin, stdout and stderr on the slave side of a new
 * pseudo-terminal (its controlling terminal), copies what the program writes to our stdout and
 * what we write to our stdin into the terminal, and exits with the program's exit code.
 */
const driver = `
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
reading = True
while True:
    watched = [fd, 0] if reading else [fd]
    ready, _, _ = select.select(watched, [], [])
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
    if reading and 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            reading = False
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
`

/** Python 3 with its `pty` module, or a failure saying what is missing (never a skip). */
const requirePty = (): void => {
  const probe = spawnSync("python3", ["-c", "import pty, select"], { encoding: "utf8", timeout: 30_000 })
  assert.strictEqual(
    probe.status,
    0,
    `this test drives harness agent through a pseudo-terminal and needs python3 with its pty module (apt-get install python3): ${probe.error?.message ?? probe.stderr}`
  )
}

const temp = tempFolder("agent-tty")
afterAll(() => temp.remove())

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** A person at a terminal running `harness agent ARGS`. */
interface Person {
  /** Waits until the screen shows `text` `count` times in all (at most `STEP`). */
  readonly sees: (text: string, count?: number) => Promise<void>
  /** Types keys (Enter is `\r`, Ctrl-D is `\u0004`). */
  readonly types: (keys: string) => void
  /** Waits for the run to end: its exit code. */
  readonly exit: () => Promise<number | null>
  /** Everything the screen showed, line breaks as `\n`. */
  readonly screen: () => string
}

const terminal = (fake: FakeProvider.Fake, args: ReadonlyArray<string>): Person => {
  const env = anthropicEnv()
  const child: ChildProcessWithoutNullStreams = spawn(
    "python3",
    [
      "-c",
      driver,
      process.execPath,
      "--disable-warning=ExperimentalWarning",
      `${demoDir}/src/main.ts`,
      ...agentArgs(fake),
      ...args
    ],
    { cwd: demoDir, env, stdio: ["pipe", "pipe", "pipe"] }
  )
  let shown = ""
  let stderr = ""
  let code: number | null | undefined
  const waiting = new Set<() => void>()
  const changed = () => {
    for (const check of [...waiting]) check()
  }
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    shown += chunk
    changed()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  child.once("close", (exitCode) => {
    code = exitCode
    changed()
  })
  cleanups.push(() => {
    if (code === undefined) child.kill("SIGKILL")
  })
  const screen = () => shown.replace(/\r\n/g, "\n")
  const waitFor = <A>(what: string, done: () => A | undefined): Promise<A> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(check)
        reject(new Error(`after ${STEP} ms, still waiting for ${what}; the screen:\n${screen()}\n${stderr}`))
      }, STEP)
      const check = () => {
        let result: A | undefined
        try {
          result = done()
        } catch (failed) {
          clearTimeout(timer)
          waiting.delete(check)
          reject(failed)
          return
        }
        if (result === undefined) return
        clearTimeout(timer)
        waiting.delete(check)
        resolve(result)
      }
      waiting.add(check)
      check()
    })
  return {
    sees: (text, count = 1) =>
      waitFor(`${JSON.stringify(text)} (×${count})`, () => {
        if (screen().split(text).length - 1 >= count) return true
        if (code !== undefined)
          throw new Error(`the run ended (${code}) before ${JSON.stringify(text)} was shown:\n${screen()}\n${stderr}`)
        return undefined
      }).then(() => undefined),
    types: (keys) => {
      child.stdin.write(keys)
    },
    exit: () => waitFor("the run to end", () => (code === undefined ? undefined : { code })).then((r) => r.code),
    screen
  }
}

const start = fakeProviders()

const freshRoot = freshRoots(temp, "zero\n", "notes.txt")

const question = (id: string) => `(call ${id}) with\n`
const prompt = "Allow it? [y]es, [N]o, [a]lways"

/** Waits for the question about call `id` and the `n`-th prompt, then types `keys`. */
const answer = async (person: Person, id: string, n: number, keys: string): Promise<void> => {
  await person.sees(question(id))
  await person.sees(prompt, n)
  person.types(keys)
}

describe("harness agent on a terminal", () => {
  it(
    "asks every call, re-asks a nonsense answer, and each answer takes effect; model text shown escaped",
    RUN,
    async () => {
      requirePty()
      const long = "x".repeat(5000)
      const fake = await start({
        anthropic: [
          FakeProvider.reply([
            Message.toolUse("toolu_1", "append", { path: "notes.txt", content: "one\u202Eeno\n" }),
            Message.toolUse("toolu_2", "append", { path: "notes.txt", content: "two\n" })
          ]),
          FakeProvider.reply([Message.toolUse("toolu_3", "write", { content: long, path: "other.txt" })]),
          FakeProvider.reply([Message.text("Done \u202Eevil")])
        ]
      })
      const root = freshRoot()
      const person = terminal(fake, ["--root", root, "Add to my notes"])

      await answer(person, "toolu_1", 1, "y\r")
      await answer(person, "toolu_2", 2, "maybe\r")
      await person.sees("Please answer y, n or a.\n")
      await person.sees(prompt, 3)
      person.types("n\r")
      await answer(person, "toolu_3", 4, "y\r")
      assert.strictEqual(await person.exit(), 0, person.screen())

      // Each answer took effect: the first append ran, the second did not, the write ran.
      assert.strictEqual(readFileSync(join(root, "notes.txt"), "utf8"), "zero\none\u202Eeno\n")
      assert.strictEqual(readFileSync(join(root, "other.txt"), "utf8"), long)

      const screen = person.screen()
      // The questions: the path first, the model's bidi control escaped, a long field cut.
      assert.include(
        screen,
        'The model wants to run append (call toolu_1) with\n  path: "notes.txt"\n  content: "one\\u202eeno\\n"\n'
      )
      assert.include(screen, 'The model wants to run write (call toolu_3) with\n  path: "other.txt"\n  content: "xxx')
      assert.include(screen, "… (4602 more characters)")
      // The transcript: what ran, what was denied and why, the model's text escaped.
      assert.include(screen, "  ok    toolu_1: appended 8 characters to notes.txt")
      assert.include(screen, "  error toolu_2: not executed: denied: the person asked said no")
      assert.include(screen, "  ok    toolu_3: wrote 5000 characters to other.txt")
      assert.include(screen, "final answer: Done \\u202eevil")
      assert.include(screen, 'model calls toolu_1 append({"path":"notes.txt","content":"one\\u202eeno\\n"})')
      assert.notInclude(screen, "\u202E")
      // The model read the denial under its call's id.
      const requests = fake.requestsTo("anthropic")
      assert.strictEqual(requests.length, 3)
      assert.include(JSON.stringify(requests[1]?.json), "not executed: denied: the person asked said no")
    }
  )

  it("Ctrl-D denies the call asked about and every later one; the run still ends", RUN, async () => {
    requirePty()
    const fake = await start({
      anthropic: [
        FakeProvider.reply([Message.toolUse("toolu_1", "append", { path: "notes.txt", content: "one\n" })]),
        FakeProvider.reply([Message.toolUse("toolu_2", "append", { path: "notes.txt", content: "two\n" })]),
        FakeProvider.reply([Message.toolUse("toolu_3", "write", { path: "notes.txt", content: "gone" })]),
        FakeProvider.reply([Message.text("One line added.")])
      ]
    })
    const root = freshRoot()
    const person = terminal(fake, ["--root", root, "Add to my notes"])
    await answer(person, "toolu_1", 1, "y\r")
    await answer(person, "toolu_2", 2, "\u0004")
    assert.strictEqual(await person.exit(), 0, person.screen())
    assert.strictEqual(readFileSync(join(root, "notes.txt"), "utf8"), "zero\none\n")
    const screen = person.screen()
    assert.include(screen, "  ok    toolu_1: appended 4 characters to notes.txt")
    assert.include(screen, "Denied: the input ended before an answer.\n")
    assert.include(screen, "  error toolu_2: not executed: denied: the input ended before an answer")
    assert.include(screen, "  error toolu_3: not executed: denied: the input ended before an answer")
    assert.include(screen, "final answer: One line added.")
  })
})
