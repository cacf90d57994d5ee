import { execFile } from "node:child_process"
import process from "node:process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const deno = `${root}node_modules/.bin/deno`
const smoke = fileURLToPath(new URL("./deno/smoke.ts", import.meta.url))

const denoRun = () =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(
      deno,
      ["run", "--allow-all", smoke, process.execPath],
      { cwd: root, env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", NO_COLOR: "1" } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr })
    )
  })

describe("under Deno (the repo's pinned deno)", { timeout: 120_000 }, () => {
  it("serves over HTTP, mounts over HTTP and stdio, and answers as on Node", async () => {
    const { code, stdout, stderr } = await denoRun()
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
    ).toStrictEqual([
      { name: "ours__read", tag: "Succeeded", content: "contents of a" },
      { name: "ours__read", tag: "NotExecuted", content: "no se ha ejecutado: falta el campo 'path'" },
      { name: "ours__throws", tag: "Failed", content: "kaboom" },
      { name: "fx__echo", tag: "Succeeded", content: "hola" },
      {
        name: "fx__send",
        tag: "NotExecuted",
        content: "no se ha ejecutado: el campo 'to' no es válido: se esperaba a valid email"
      },
      { name: "fx__fail", tag: "Failed", content: "quota exceeded" }
    ])
  })
})
