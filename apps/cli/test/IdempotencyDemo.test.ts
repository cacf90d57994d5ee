/**
 * `harness demo idempotency` end to end: the CLI spawned on Node 22 with NO_COLOR, exit 0, the
 * seed's once-vs-twice table (añadir leaves tomates twice), the retry-safety table, and the crash
 * and resume over a real SQLite journal (replayed calls, an outcome-unknown call, no duplicate).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { harness, type Run } from "./fixtures/harness.ts"

let spawned: Run | undefined

// The demo runs once, before the tests that read its output (a spawn: its own generous timeout).
beforeAll(() => {
  spawned = harness(["demo", "idempotency"])
}, 60_000)

const demo = (): Run => {
  if (spawned === undefined) throw new Error("the demo did not run")
  return spawned
}

/** The lines that start with `prefix` (after trimming the left). */
const starting = (prefix: string): ReadonlyArray<string> => demo().lines.filter((l) => l.trimStart().startsWith(prefix))

describe("harness demo idempotency", () => {
  it("exits 0, prints no colour and nothing on stderr", () => {
    const run = demo()
    const stdout = run.stdout
    assert.strictEqual(run.code, 0, `${run.stderr}\n${stdout}`)
    assert.strictEqual(run.stderr, "")
    assert.isFalse(stdout.includes("\u001b["), "stdout has ANSI escapes")
  })

  it("the seed's once-vs-twice table: the four are idempotent, añadir leaves tomates twice", () => {
    const lines = demo().lines
    assert.deepStrictEqual(
      lines.filter((l) => l.includes("lista.txt tras dos:")),
      [
        "leer      declarada: True  idempotente: True  lista.txt tras dos: pan, leche, huevos",
        "listar    declarada: True  idempotente: True  lista.txt tras dos: pan, leche, huevos",
        "buscar    declarada: True  idempotente: True  lista.txt tras dos: pan, leche, huevos",
        "escribir  declarada: True  idempotente: True  lista.txt tras dos: pan, leche, patatas, tomates",
        "añadir    declarada: False idempotente: False lista.txt tras dos: pan, leche, huevos, tomates, tomates"
      ]
    )
  })

  it("the retry-safety table: añadir unsafe after an error while running only", () => {
    const lines = demo().lines
    const rows = ["leer", "listar", "buscar", "escribir", "añadir"].map(
      (tool) =>
        lines
          .find((l) => l.startsWith(`  ${tool} `))
          ?.trim()
          .split(/\s{2,}/) ?? []
    )
    assert.deepStrictEqual(rows, [
      ["leer", "yes", "safe: did_not_run", "safe: idempotent"],
      ["listar", "yes", "safe: did_not_run", "safe: idempotent"],
      ["buscar", "yes", "safe: did_not_run", "safe: idempotent"],
      ["escribir", "yes", "safe: did_not_run", "safe: idempotent"],
      ["añadir", "no", "safe: did_not_run", "UNSAFE: may_have_partly_run"]
    ])
  })

  it("the crash: t4 started with no outcome, its append already on disk", () => {
    const lines = demo().lines
    assert.lengthOf(starting("✝ the process dies"), 1)
    assert.include(lines, "lista.txt on disk after the crash: pan, leche, huevos, tomates, pepino, pimiento, ajo")
    const started = lines.filter((l) => /^\s+4\s+t4\s+añadir\s+started\s/.test(l))
    assert.lengthOf(started, 2, "in the journal after the crash and after the resume")
    assert.isTrue(started.every((l) => l.endsWith("(none recorded: outcome unknown)")))
  })

  it("the resume: completed calls replayed, t4 outcome unknown with the catalogue's text, later calls run", () => {
    const lines = demo().lines
    assert.deepStrictEqual(
      starting("replay ").map((l) =>
        l
          .trim()
          .split(/\s{2,}|\s(?=t\d)/)
          .slice(0, 4)
      ),
      [
        ["replay", "t1", "leer", "Replayed (Succeeded)"],
        ["replay", "t2", "leer", "Replayed (Succeeded)"],
        ["replay", "t3", "añadir", "Replayed (Succeeded)"]
      ]
    )
    assert.deepStrictEqual(starting("error  t4"), [
      `    error  t4  añadir  Failed/OutcomeUnknown  ${MessageCatalog.spanish.outcomeUnknown}`
    ])
    assert.include(
      lines,
      "resumed: replayed t1, t2, t3 (not run again) · outcome unknown t4 (not run again) · ran t5, t6, t7"
    )
    assert.include(lines, "stop: end")
  })

  it("every side effect once: the list ends with each item once", () => {
    const lines = demo().lines
    assert.deepStrictEqual(
      lines.filter((l) => /^\s+run [12]\s/.test(l)).map((l) => l.trim()),
      [
        'run 1  añadir lista.txt ", tomates, pepino"',
        'run 1  añadir lista.txt ", pimiento, ajo"',
        'run 2  añadir lista.txt ", aceite, vinagre, sal"',
        'run 2  escribir nota.txt "Cena del viernes: somos cuatro. Gazpacho de primero y tortilla de segundo. Lo del gazpacho está en lista.txt."'
      ]
    )
    assert.include(lines, "lista.txt: pan, leche, huevos, tomates, pepino, pimiento, ajo, aceite, vinagre, sal")
    assert.include(lines, "no item twice in lista.txt, and no call ran twice")
  })
})
