import { describe, expect, it } from "vitest"
import * as DenoOutput from "../DenoOutput.ts"

const root = "/repo"

// Shapes copied from what deno 2.9 prints with NO_COLOR=1.
const slowTypes = `Check src/index.ts
Checking for slow types in the public API...
error[missing-explicit-type]: missing explicit type in the public API
    --> /repo/packages/a/src/Tools.ts:252:14
    |
252 | export const Read = Tool.make("read", {
    |              ^^^^ this symbol is missing an explicit type
    |
    = hint: add an explicit type annotation to the symbol

error[unsupported-super-class-expr]: super class expression was too complex
  --> /repo/packages/a/src/Files.ts:53:28
   |
53 | export class Files extends Context.Service<Files, FilesShape>()("x") {}
   |                            ^^^^ this is the superclass expression

This package contains errors for slow types. Fixing these errors will:

error: Found 2 problems
`

const typeCheck = `Check src/index.ts
TS2339 [ERROR]: Property 'id' does not exist on type 'Block'.
  Property 'id' does not exist on type '{ readonly type: "reasoning"; }'.
            names.set(block.id, block.name)
                            ~~
    at file:///repo/packages/executor/src/LanguageModelAdapter.ts:68:29

TS2379 [ERROR]: Argument of type 'A' is not assignable to parameter of type 'B'.
    at file:///repo/apps/cli/src/Demo.ts:72:101

error: Type checking failed.
`

const docLint = `Warning Failed resolving types. Could not find package 'compatibility' from referrer 'file:///repo/node_modules/@types/node/index.d.ts'.
error[missing-jsdoc]: exported symbol is missing JSDoc documentation
 --> /repo/packages/b/src/index.ts:9:8
  |
9 | export * as Budget from "./Budget.ts"
  |        ^


error[missing-return-type]: exported function is missing an explicit return type annotation
  --> /repo/packages/b/src/Retry.ts:70:14
   |
70 | export const notes: Middleware = (_call, tool, run) =>
   |              ^


error: Found 2 documentation lint errors.
`

describe("DenoOutput.problems", () => {
  it("reads JSR's slow-type diagnostics with their places, and skips the summary", () => {
    expect(DenoOutput.problems(slowTypes, root)).toStrictEqual([
      {
        severity: "error",
        code: "missing-explicit-type",
        message: "missing explicit type in the public API",
        at: "packages/a/src/Tools.ts:252:14"
      },
      {
        severity: "error",
        code: "unsupported-super-class-expr",
        message: "super class expression was too complex",
        at: "packages/a/src/Files.ts:53:28"
      }
    ])
  })

  it("reads the type check's errors with the place of each", () => {
    expect(DenoOutput.problems(typeCheck, root)).toStrictEqual([
      {
        severity: "error",
        code: "TS2339",
        message: "Property 'id' does not exist on type 'Block'.",
        at: "packages/executor/src/LanguageModelAdapter.ts:68:29"
      },
      {
        severity: "error",
        code: "TS2379",
        message: "Argument of type 'A' is not assignable to parameter of type 'B'.",
        at: "apps/cli/src/Demo.ts:72:101"
      }
    ])
  })

  it("reads doc lint errors and leaves Deno's own warnings out", () => {
    expect(DenoOutput.problems(docLint, root).map((p) => [p.code, p.at])).toStrictEqual([
      ["missing-jsdoc", "packages/b/src/index.ts:9:8"],
      ["missing-return-type", "packages/b/src/Retry.ts:70:14"]
    ])
  })

  it("keeps a bare error (a manifest Deno cannot read) as a problem of code error", () => {
    const output = "error: Failed to parse deno.json\n    at file:///repo/packages/c/deno.json\n"
    expect(DenoOutput.problems(output, root)).toStrictEqual([
      { severity: "error", code: "error", message: "Failed to parse deno.json", at: undefined }
    ])
  })

  it("reads warnings as warnings, and output in colour as without", () => {
    const esc = String.fromCharCode(27)
    const output = `${esc}[1m${esc}[33mwarning[unanalyzable-dynamic-import]${esc}[0m: unable to analyze dynamic import\n  --> /repo/packages/d/src/a.ts:3:1\n`
    expect(DenoOutput.problems(output, root)).toStrictEqual([
      {
        severity: "warning",
        code: "unanalyzable-dynamic-import",
        message: "unable to analyze dynamic import",
        at: "packages/d/src/a.ts:3:1"
      }
    ])
  })

  it("finds nothing in a clean run", () => {
    expect(DenoOutput.problems("Check src/index.ts\nChecked 1 file\n", root)).toStrictEqual([])
  })
})

describe("DenoOutput.publishedFiles and unwantedFiles", () => {
  const output = `Checking for slow types in the public API...
Simulating publish of @x/a@0.1.0 with files:
   file:///repo/packages/a/LICENSE (1.06KB)
   file:///repo/packages/a/deno.json (277B)
   file:///repo/packages/a/src/index.ts (928B)
   file:///repo/packages/a/src/testing.ts (1KB)
   file:///repo/packages/a/test/index.test.ts (2KB)
   file:///repo/packages/a/artifacts/shot.png (20KB)
   file:///repo/packages/a/src/fixtures/one.json (1KB)
   file:///repo/packages/a/src/a.spec.ts (1KB)
Success Dry run complete
`

  it("lists the files of the simulated publish, relative to the package", () => {
    expect(DenoOutput.publishedFiles(output, "/repo/packages/a")).toStrictEqual([
      "LICENSE",
      "deno.json",
      "src/index.ts",
      "src/testing.ts",
      "test/index.test.ts",
      "artifacts/shot.png",
      "src/fixtures/one.json",
      "src/a.spec.ts"
    ])
  })

  it("names tests, fixtures and artifacts, not sources whose names only start alike", () => {
    expect(DenoOutput.unwantedFiles(DenoOutput.publishedFiles(output, "/repo/packages/a"))).toStrictEqual([
      "test/index.test.ts",
      "artifacts/shot.png",
      "src/fixtures/one.json",
      "src/a.spec.ts"
    ])
  })

  it("lists nothing when Deno did not get as far as the publish", () => {
    expect(DenoOutput.publishedFiles(slowTypes, "/repo/packages/a")).toStrictEqual([])
  })
})
