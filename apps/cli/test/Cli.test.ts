/**
 * The `harness` binary end to end: each test spawns `node src/main.ts ...` (Node 22, as vitest
 * runs here) and checks exit code and output against the CLI contract of
 * docs/scenario-format.md.
 */
import process from "node:process"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { harness, SLOW } from "./fixtures/harness.ts"
import {
  at,
  caseIds,
  catalogo,
  catalogoTimeout,
  loadJson,
  jsonFilesUnder,
  salmorejo,
  salmorejoEn,
  salmorejoEs,
  scenariosDir,
  seenT2,
  tempFolder,
  withoutId,
  withWrongObservation,
  wrongT2
} from "./fixtures/scenarios.ts"

const temp = tempFolder("cli")
afterAll(() => temp.remove())

const finalEs =
  "No hay receta de salmorejo, sólo de gazpacho y de tortilla. No he cambiado lista.txt. ¿Añado lo que falta para el gazpacho, que es lo más parecido?"

const failureLines = [
  "    turn 2, tool_use_id t2: a different observation",
  `      expected: t2 is_error=true "${wrongT2}"`,
  `      seen:     t2 is_error=true "${seenT2}"`
]

/** Checks one `--json` line: the contract's fields, with their types. */
const verdictObject = (line: string) => {
  const parsed: unknown = JSON.parse(line)
  assert.isTrue(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), line)
  const v = parsed as Record<string, unknown>
  for (const field of ["name", "kind", "passed", "reserved", "outcome", "failures"]) {
    assert.isTrue(field in v, `${field} missing in ${line}`)
  }
  assert.isTrue(Array.isArray(v.failures), line)
  assert.strictEqual(typeof v.passed, "boolean")
  assert.strictEqual(typeof v.reserved, "boolean")
  return v
}

describe("harness run", () => {
  it("the shipped Spanish salmorejo passes: exit 0, PASS", SLOW, () => {
    const r = harness(["run", salmorejoEs])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS salmorejo (es) (end, 4 model calls)\n")
    assert.strictEqual(r.stderr, "")
  })

  it("the shipped English salmorejo passes, given as a relative path", SLOW, () => {
    const r = harness(["run", "scenarios/en/salmorejo.json"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.stdout, "PASS salmorejo (en) (end, 4 model calls)\n")
  })

  it("a wrong expected observation: exit 1, naming turn 2, tool_use_id t2, expected and seen", SLOW, () => {
    const file = temp.write("run/wrong-observation.json", withWrongObservation())
    const r = harness(["run", file])
    assert.strictEqual(r.code, 1, r.stderr)
    assert.deepStrictEqual(r.lines, ["FAIL salmorejo (es) (diverged, 3 model calls)", ...failureLines])
  })

  it("a malformed file (an id deleted): exit 2, naming the file and turns[2].reply[0].id: missing", SLOW, () => {
    const file = temp.write("run/no-id.json", withoutId())
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stdout, "")
    assert.strictEqual(r.stderr, `INVALID ${file}: turns[2].reply[0].id: missing\n`)
  })

  it("a malformed file with --json: exit 2, one JSON object saying it is invalid and where", SLOW, () => {
    const file = temp.write("run/no-id-json.json", withoutId())
    const r = harness(["run", file, "--json"])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.lines.length, 1)
    const v = verdictObject(r.lines[0] ?? "")
    assert.strictEqual(v.passed, false)
    assert.strictEqual(v.valid, false)
    assert.strictEqual(v.file, file)
    assert.deepStrictEqual(v.failures, [
      {
        kind: "invalid",
        path: "turns[2].reply[0].id",
        expected: "a valid scenario file",
        seen: "missing",
        message: `${file}: turns[2].reply[0].id: missing`
      }
    ])
  })

  it("a missing file: exit 2, naming it", SLOW, () => {
    const r = harness(["run", "scenarios/es/no-such.json"])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(
      r.stderr,
      "INVALID scenarios/es/no-such.json: (file): cannot be read: NotFound: FileSystem.stat (scenarios/es/no-such.json)\n"
    )
  })

  it("--json after the path: one JSON object with the verdict", SLOW, () => {
    const r = harness(["run", salmorejoEs, "--json"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.lines.length, 1)
    const v = verdictObject(r.lines[0] ?? "")
    assert.deepStrictEqual(
      [v.name, v.kind, v.passed, v.reserved, v.failures],
      ["salmorejo (es)", "conversation", true, false, []]
    )
    assert.deepStrictEqual(v.outcome, {
      stop: "end",
      text: finalEs,
      files: salmorejo().files,
      turns: 4
    })
  })

  it("--json before the path gives the same, and a failing run's failures", SLOW, () => {
    const file = temp.write("run/wrong-observation-json.json", withWrongObservation())
    const r = harness(["run", "--json", file])
    assert.strictEqual(r.code, 1, r.stderr)
    assert.strictEqual(r.lines.length, 1)
    const v = verdictObject(r.lines[0] ?? "")
    assert.deepStrictEqual([v.name, v.passed, v.reserved], ["salmorejo (es)", false, false])
    assert.deepStrictEqual(v.failures, [
      {
        kind: "divergence",
        turn: 2,
        tool_use_id: "t2",
        expected: `t2 is_error=true "${wrongT2}"`,
        seen: `t2 is_error=true "${seenT2}"`,
        message: `turn 2, tool_use_id t2: a different observation\n  expected: t2 is_error=true "${wrongT2}"\n  seen:     t2 is_error=true "${seenT2}"`
      }
    ])
  })
})

describe("harness test", () => {
  it(
    "a folder: one line per scenario (failures under theirs), reserved on its own line, N passed, N failed last",
    SLOW,
    () => {
      temp.write("suite/a-pass.json", { ...salmorejo(), name: "pass" })
      temp.write("suite/b-fail.json", { ...withWrongObservation(), name: "fail" })
      temp.write("suite/sub/c-reserved.json", { ...salmorejo(), name: "reserved pass", reserved: true })
      temp.write("suite/notes.txt", "not a scenario")
      const r = harness(["test", temp.path("suite")])
      assert.strictEqual(r.code, 1, r.stderr)
      assert.deepStrictEqual(r.lines, [
        "PASS pass (end, 4 model calls)",
        "FAIL fail (diverged, 3 model calls)",
        ...failureLines,
        "PASS reserved pass [reserved] (end, 4 model calls)",
        "reserved: 1 passed, 0 failed",
        "2 passed, 1 failed"
      ])
    }
  )

  it("all passing, with a reserved case: exit 0 and its own reserved line", SLOW, () => {
    const plain = temp.write("green/plain.json", { ...salmorejo(), name: "plain" })
    const reserved = temp.write("green/reserved.json", { ...salmorejo(), name: "held out", reserved: true })
    const r = harness(["test", plain, reserved])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(r.lines, [
      "PASS plain (end, 4 model calls)",
      "PASS held out [reserved] (end, 4 model calls)",
      "reserved: 1 passed, 0 failed",
      "2 passed, 0 failed"
    ])
  })

  it("an invalid file: exit 2, its INVALID line, counted as failed", SLOW, () => {
    temp.write("mixed/a.json", { ...salmorejo(), name: "good" })
    const bad = temp.write("mixed/b.json", withoutId())
    const r = harness(["test", temp.path("mixed")])
    assert.strictEqual(r.code, 2, r.stderr)
    assert.deepStrictEqual(r.lines, [
      "PASS good (end, 4 model calls)",
      `INVALID ${bad}: turns[2].reply[0].id: missing`,
      "1 invalid file (counted as failed)",
      "1 passed, 1 failed"
    ])
  })

  it("a path that does not exist: exit 2, naming it", SLOW, () => {
    const missing = temp.path("nowhere")
    const r = harness(["test", missing])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stderr, `INVALID ${missing}: (file): cannot be read: NotFound: FileSystem.stat (${missing})\n`)
  })

  it("the shipped scenarios: a line per file, the closing line last, and the exit code agrees", SLOW, () => {
    const expected = jsonFilesUnder(scenariosDir).length
    const r = harness(["test", "scenarios"])
    const last = r.lines.at(-1) ?? ""
    const match = /^(\d+) passed, (\d+) failed$/.exec(last)
    assert.isNotNull(match, last)
    if (match === null) return
    const passed = Number(match[1])
    const failed = Number(match[2])
    const verdictLines = r.lines.filter((l) => /^(PASS|FAIL|INVALID) /.test(l))
    assert.strictEqual(verdictLines.length, expected)
    assert.strictEqual(passed + failed, expected)
    assert.strictEqual(verdictLines.filter((l) => l.startsWith("PASS ")).length, passed)
    assert.include(verdictLines, "PASS salmorejo (es) (end, 4 model calls)")
    assert.include(verdictLines, "PASS salmorejo (en) (end, 4 model calls)")
    const invalid = verdictLines.some((l) => l.startsWith("INVALID "))
    assert.strictEqual(r.code, invalid ? 2 : failed > 0 ? 1 : 0, r.stdout)
  })

  it("--json after the paths: one JSON object per scenario, no closing line", SLOW, () => {
    const r = harness(["test", salmorejoEs, salmorejoEn, "--json"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.strictEqual(r.lines.length, 2)
    const names = r.lines.map((l) => verdictObject(l).name)
    assert.deepStrictEqual(names, ["salmorejo (en)", "salmorejo (es)"])
  })

  it("--json before the paths: the same, with reserved and failing cases", SLOW, () => {
    temp.write("json/a.json", { ...withWrongObservation(), name: "fails" })
    temp.write("json/b.json", { ...salmorejo(), name: "reserved", reserved: true })
    const r = harness(["test", "--json", temp.path("json")])
    assert.strictEqual(r.code, 1, r.stderr)
    assert.strictEqual(r.lines.length, 2)
    const [a, b] = r.lines.map(verdictObject)
    assert.deepStrictEqual([a?.name, a?.passed, a?.reserved], ["fails", false, false])
    assert.deepStrictEqual([b?.name, b?.passed, b?.reserved], ["reserved", true, true])
    assert.strictEqual(Array.isArray(a?.failures) ? a.failures.length : -1, 1)
  })
})

describe("harness demo salmorejo", () => {
  it("--lang es: exit 0, the seed's two errors verbatim, fin: end", SLOW, () => {
    const r = harness(["demo", "salmorejo", "--lang", "es"])
    assert.strictEqual(r.code, 0, r.stderr)
    for (const line of [
      "[user] Añade a lista.txt lo que falta para el salmorejo.",
      'modelo llama a t1 leer({"rutas":["recetas/salmorejo.txt","lista.txt"]})',
      "  error t1: no se ha ejecutado: falta el campo 'ruta'",
      "  error t2: no existe el fichero 'recetas/salmorejo.txt'",
      "  ok    t3: pan, leche, huevos",
      `respuesta final: ${finalEs}`,
      "fin: end",
      "ficheros tras la ejecución: sin cambios",
      "PASS salmorejo (es) (end, 4 model calls)"
    ]) {
      assert.include(r.lines, line)
    }
    assert.isTrue(
      r.lines.indexOf("  error t1: no se ha ejecutado: falta el campo 'ruta'") < r.lines.indexOf("fin: end")
    )
  })

  it("in English by default: exit 0", SLOW, () => {
    const r = harness(["demo", "salmorejo"])
    assert.strictEqual(r.code, 0, r.stderr)
    for (const line of [
      "  error t1: not executed: missing field 'path'",
      "  error t2: file 'recipes/salmorejo.txt' does not exist",
      "stop: end",
      "files after the run: unchanged",
      "PASS salmorejo (en) (end, 4 model calls)"
    ]) {
      assert.include(r.lines, line)
    }
  })
})

const beforeLine =
  "variant: before — the bug the contract fixes: a response with content is taken as the answer, whatever its status"
const casesName = "catalogo.buscar: the response contract"

describe("harness demo regress", () => {
  const steps = (lines: ReadonlyArray<string>) => lines.filter((l) => /^\d\. /.test(l)).map((l) => l.slice(0, 2))

  it(
    "--variant before: exit 1; reg-001 and res-001 fail, both controls pass, the reserved case on its own line",
    SLOW,
    () => {
      const r = harness(["demo", "regress", "--variant", "before"])
      assert.strictEqual(r.code, 1, r.stderr)
      assert.deepStrictEqual(steps(r.lines), ["1.", "2.", "3.", "4.", "5.", "6."])
      const run = r.lines.slice(r.lines.indexOf("4. Baseline: the before variant on all 4 cases") + 1)
      assert.deepStrictEqual(
        run.filter((l) => /^ {3}(PASS|FAIL|reserved:) /.test(l)),
        [
          `   FAIL ${caseIds.reg} regression`,
          `   PASS ${caseIds.ctl1} control`,
          `   PASS ${caseIds.ctl2} control`,
          `   reserved: FAIL ${caseIds.res}`
        ]
      )
      assert.include(r.lines, "   2 passed, 2 failed (reserved: 0 passed, 1 failed) → exit 1")
      assert.include(r.lines, '   call:     c1 catalogo.buscar({"titulo":"El faro de las mareas lentas"})')
      assert.include(
        r.lines,
        `   the before parser made of it: {"ok":true,"answer":"Tiempo de espera agotado: el catálogo no respondió en 5 segundos."}`
      )
      assert.include(r.lines, "   run it: harness demo regress --variant fixed")
    }
  )

  it("--variant fixed: exit 0; every case passes, the reserved case on its own line", SLOW, () => {
    const r = harness(["demo", "regress", "--variant", "fixed"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(steps(r.lines), ["1.", "2.", "3.", "4.", "5.", "6."])
    const run = r.lines.slice(r.lines.indexOf("6. Re-evaluation: the fixed variant on the same 4 cases") + 1)
    assert.deepStrictEqual(run.slice(0, 5), [
      `   PASS ${caseIds.reg} regression`,
      `   PASS ${caseIds.ctl1} control`,
      `   PASS ${caseIds.ctl2} control`,
      `   reserved: PASS ${caseIds.res}`,
      "   4 passed, 0 failed (reserved: 1 passed, 0 failed) → exit 0"
    ])
    assert.notInclude(r.stdout, "FAIL")
  })

  it("fixed is the default; an unknown variant is a usage error", SLOW, () => {
    assert.strictEqual(harness(["demo", "regress"]).code, 0)
    const bad = harness(["demo", "regress", "--variant", "after"])
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "after")
  })
})

describe("--variant on run and test", () => {
  it("run a case file under before: exit 1, a line naming the variant, a line per case", SLOW, () => {
    const r = harness(["run", catalogo, "--variant", "before"])
    assert.strictEqual(r.code, 1, r.stderr)
    assert.strictEqual(r.lines[0], beforeLine)
    assert.strictEqual(r.lines[1], `FAIL ${casesName} (4 cases, 2 failed)`)
    assert.deepStrictEqual(
      r.lines.filter((l) => /^ {4}\S/.test(l)),
      [
        `    FAIL ${caseIds.reg} regression`,
        `    PASS ${caseIds.ctl1} control`,
        `    PASS ${caseIds.ctl2} control`,
        `    reserved: FAIL ${caseIds.res}`
      ]
    )
    assert.include(
      r.lines,
      `      seen:     {"ok":true,"answer":"El catálogo está en mantenimiento; vuelve a intentarlo más tarde."}`
    )
  })

  it("run a case file under fixed (the default): exit 0 and no variant line", SLOW, () => {
    for (const args of [
      ["run", catalogo],
      ["run", "--variant", "fixed", catalogo]
    ]) {
      const r = harness(args)
      assert.strictEqual(r.code, 0, r.stderr)
      assert.deepStrictEqual(r.lines, [
        `PASS ${casesName} (4 cases, 0 failed)`,
        `    PASS ${caseIds.reg} regression`,
        `    PASS ${caseIds.ctl1} control`,
        `    PASS ${caseIds.ctl2} control`,
        `    reserved: PASS ${caseIds.res}`
      ])
    }
  })

  it("run --json: the verdict names its variant", SLOW, () => {
    const before = harness(["run", catalogo, "--json", "--variant", "before"])
    assert.strictEqual(before.code, 1)
    assert.strictEqual(before.lines.length, 1)
    const v = verdictObject(before.lines[0] ?? "")
    assert.strictEqual(v.variant, "before")
    assert.strictEqual(v.kind, "response-cases")
    const fixed = verdictObject(harness(["run", salmorejoEs, "--json"]).lines[0] ?? "")
    assert.strictEqual(fixed.variant, "fixed")
  })

  it("a conversation with an envelope tool: passes under fixed, diverges under before", SLOW, () => {
    assert.strictEqual(harness(["run", catalogoTimeout]).code, 0)
    const r = harness(["run", catalogoTimeout, "--variant", "before"])
    assert.strictEqual(r.code, 1)
    assert.include(r.lines, "    turn 1, tool_use_id c1: a different observation")
  })

  it(
    "test under before: the variant line first, the case file fails, the reserved line counts its reserved case",
    SLOW,
    () => {
      const r = harness(["test", "--variant", "before", "scenarios/regress"])
      assert.strictEqual(r.code, 1, r.stderr)
      assert.strictEqual(r.lines[0], beforeLine)
      assert.deepStrictEqual(r.lines.slice(-2), ["reserved: 0 passed, 1 failed", "0 passed, 2 failed"])
    }
  )

  it("test under fixed: the shipped scenarios all pass", SLOW, () => {
    const r = harness(["test", "scenarios", "--variant", "fixed"])
    assert.strictEqual(r.code, 0, r.stdout)
    assert.notStrictEqual(r.lines[0]?.startsWith("variant:"), true)
    assert.match(r.lines.at(-1) ?? "", /^\d+ passed, 0 failed$/)
  })

  it("test --json: every object names the variant, invalid files too", SLOW, () => {
    const bad = temp.write("variant-json/bad.json", { format: 1, kind: "response-cases", cases: [] })
    const r = harness(["test", "--json", "--variant", "before", "scenarios/regress", bad])
    assert.strictEqual(r.code, 2)
    const objects = r.lines.map(verdictObject)
    assert.deepStrictEqual(
      objects.map((o) => o.variant),
      ["before", "before", "before"]
    )
  })
})

describe("malformed case files", () => {
  const broken = (edit: (json: ReturnType<typeof loadJson>) => void) => {
    const json = loadJson(catalogo)
    edit(json)
    return json
  }

  it("run: exit 2, naming the file and the JSON path of the bad field", SLOW, () => {
    const file = temp.write(
      "cases/role.json",
      broken((json) => {
        at(json, "cases", 2).role = "held-out"
      })
    )
    const r = harness(["run", file])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stdout, "")
    assert.strictEqual(
      r.stderr,
      `INVALID ${file}: cases[2].role: expected "regression" | "control" | "reserved", got "held-out"\n`
    )
  })

  it("run under before: still exit 2, nothing runs", SLOW, () => {
    const file = temp.write(
      "cases/missing-expected.json",
      broken((json) => {
        delete at(json, "cases", 1).expected
      })
    )
    const r = harness(["run", file, "--variant", "before"])
    assert.strictEqual(r.code, 2)
    assert.strictEqual(r.stdout, "")
    assert.strictEqual(r.stderr, `INVALID ${file}: cases[1].expected: missing\n`)
  })

  it("test: exit 2, the INVALID line among the verdicts", SLOW, () => {
    const file = temp.write(
      "cases-suite/dup.json",
      broken((json) => {
        at(json, "cases", 3).id = caseIds.ctl1
      })
    )
    temp.write("cases-suite/good.json", loadJson(catalogo))
    const r = harness(["test", temp.path("cases-suite")])
    assert.strictEqual(r.code, 2)
    assert.include(r.lines, `INVALID ${file}: cases[3].id: case id '${caseIds.ctl1}' appears twice`)
    assert.deepStrictEqual(r.lines.slice(-3), [
      "reserved: 1 passed, 0 failed",
      "1 invalid file (counted as failed)",
      "1 passed, 1 failed"
    ])
  })

  it("--json: one object with the path", SLOW, () => {
    const file = temp.write(
      "cases/response.json",
      broken((json) => {
        at(json, "cases", 0).response = "TIMEOUT"
      })
    )
    const r = harness(["run", file, "--json"])
    assert.strictEqual(r.code, 2)
    const v = verdictObject(r.lines[0] ?? "")
    assert.deepStrictEqual(
      [v.valid, v.variant, (v.failures as Array<{ path: string }>)[0]?.path],
      [false, "fixed", "cases[0].response"]
    )
  })
})

describe("harness usage", () => {
  it("an unknown subcommand: exit 2", SLOW, () => {
    const r = harness(["bogus"])
    assert.strictEqual(r.code, 2)
    assert.include(r.stderr, `Unknown subcommand "bogus" for "harness"`)
  })

  it("a missing argument: exit 2", SLOW, () => {
    const r = harness(["run"])
    assert.strictEqual(r.code, 2)
    assert.include(r.stderr, "Missing required argument: file")
  })

  it("--help: exit 0 with the subcommands", SLOW, () => {
    const r = harness(["--help"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.include(r.stdout, "SUBCOMMANDS")
    for (const sub of ["run", "test", "demo"]) assert.match(r.stdout, new RegExp(`^  ${sub} `, "m"))
  })

  it("without NO_COLOR, output that is not a terminal is not coloured either", SLOW, () => {
    const env: NodeJS.ProcessEnv = { ...process.env }
    delete env.NO_COLOR
    const file = temp.write("color/wrong.json", withWrongObservation())
    const r = harness(["run", file], env)
    assert.strictEqual(r.code, 1)
    assert.strictEqual(r.lines[0], "FAIL salmorejo (es) (diverged, 3 model calls)")
  })
})
