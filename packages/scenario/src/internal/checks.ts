/**
 * What a scenario file must be beyond its Schema: patterns that compile, step and case ids once
 * each, `mcp` servers that can be started under their own prefixes, the gate's fields only with
 * a `policy`, a relative `root` folder instead of inline files, `commands` only over a `root`
 * with variables that can be set, and a turn with calls that lists what the model must be shown. Each check gives the first problem, or `undefined`.
 */
import { JsonPath } from "@agent-harness/tool-schema"
import { Result } from "effect"
import * as Commands from "../Commands.ts"
import * as Mounter from "../Mounter.ts"
import * as Pattern from "../Pattern.ts"
import type * as ScenarioFile from "../ScenarioFile.ts"

/** Where a file is wrong and what is wrong there. */
export interface Problem {
  /** The JSON path of the bad field. */
  readonly path: string
  /** What is wrong there. */
  readonly problem: string
}

/** A `pattern` that compiles (see `Pattern.make`). */
export const checkPattern = (path: string, pattern: string): Problem | undefined => {
  const made = Pattern.make(pattern)
  return Result.isFailure(made) ? { path, problem: made.failure } : undefined
}

/** A plan's `when` patterns compile, and each of its plans lists a step id once. */
export const checkPlan = (scenario: ScenarioFile.PlanFile): Problem | undefined => {
  for (const [r, rule] of scenario.planner.entries()) {
    if (rule.when !== null && typeof rule.when !== "string") {
      const invalid = checkPattern(`planner[${r}].when.pattern`, rule.when.pattern)
      if (invalid !== undefined) return invalid
    }
    const seen = new Set<number>()
    for (const [i, step] of rule.plan.entries()) {
      if (seen.has(step.id)) {
        return {
          path: `planner[${r}].plan[${i}].id`,
          problem: `step id ${step.id} appears twice in this plan`
        }
      }
      seen.add(step.id)
    }
  }
  return undefined
}

/**
 * The `mcp` declarations: each starts or reaches a server (`Mounter.check`), prefixes differ, and
 * no scripted tool is named under a prefix (its name would be a mounted tool's).
 */
export const checkMcp = (scenario: Pick<ScenarioFile.ConversationFile, "mcp" | "tools">): Problem | undefined => {
  const prefixes = new Map<string, number>()
  for (const [i, declaration] of (scenario.mcp ?? []).entries()) {
    const wrong = Mounter.check(declaration)
    if (wrong !== undefined) {
      return {
        path: JsonPath.text(["mcp", i, ...(wrong.field === undefined ? [] : [wrong.field])]),
        problem: wrong.problem
      }
    }
    const first = prefixes.get(declaration.prefix)
    if (first !== undefined) {
      return {
        path: `mcp[${i}].prefix`,
        problem: `'${declaration.prefix}' is already the prefix of mcp[${first}]: give each server its own`
      }
    }
    prefixes.set(declaration.prefix, i)
  }
  for (const name of Object.keys(scenario.tools ?? {})) {
    for (const [prefix, i] of prefixes) {
      if (name.startsWith(`${prefix}__`)) {
        return {
          path: JsonPath.text(["tools", name]),
          problem: `a scripted tool cannot be named under the prefix of mcp[${i}] ('${prefix}__'): that is where the server's tools are mounted`
        }
      }
    }
  }
  return undefined
}

/** A turn's `compacted` pins what `compaction` did: without `compaction` nothing is compacted. */
export const checkCompaction = (
  scenario: Pick<ScenarioFile.ConversationFile, "compaction" | "turns">
): Problem | undefined => {
  if (scenario.compaction !== undefined) return undefined
  const i = scenario.turns.findIndex((turn) => turn.compacted !== undefined)
  return i < 0
    ? undefined
    : {
        path: JsonPath.text(["turns", i, "compacted"]),
        problem: `it pins what compaction did before this call, and there is none: add a "compaction" ({ "window": tokens })`
      }
}

/** `approvals` and `untrustedOutput` are the gate's: without a `policy` there is no gate. */
export const checkPermissions = (
  scenario: Pick<ScenarioFile.ConversationFile, "policy" | "approvals" | "untrustedOutput">
): Problem | undefined => {
  if (scenario.policy !== undefined) return undefined
  for (const field of ["approvals", "untrustedOutput"] as const) {
    if (scenario[field] !== undefined) {
      return {
        path: field,
        problem: `it belongs to the permission gate, and there is none: add a "policy" (every call goes through it)`
      }
    }
  }
  return undefined
}

/**
 * `root`: the files come from one place (the folder, or inline `files`, not both), and the folder
 * is named relative to the scenario file (an absolute path would make the suite depend on the
 * machine it runs on). Whether it exists and is a folder is the `Roots` service's to check.
 */
export const checkRoot = (scenario: Pick<ScenarioFile.ConversationFile, "root" | "files">): Problem | undefined => {
  const root = scenario.root
  if (root === undefined) return undefined
  if (scenario.files !== undefined) {
    return {
      path: "root",
      problem: `the files come from the "root" folder or from "files", not both: remove one`
    }
  }
  if (root.startsWith("/") || root.startsWith("\\") || /^[A-Za-z]:/.test(root)) {
    return {
      path: "root",
      problem: `expected a folder relative to the scenario file's folder, got the absolute path ${JSON.stringify(root)}`
    }
  }
  if (root.includes("\0")) {
    return { path: "root", problem: "a folder name cannot hold a NUL character" }
  }
  return undefined
}

/**
 * `commands`: they run in a real folder, so only over a `root` (inline `files` live in memory);
 * the declared variables can be set (`Commands.check`: names, NUL characters, size).
 */
export const checkCommands = (
  scenario: Pick<ScenarioFile.ConversationFile, "commands" | "root">
): Problem | undefined => {
  const commands = scenario.commands
  if (commands === undefined) return undefined
  if (scenario.root === undefined) {
    return {
      path: "commands",
      problem: `needs root: the commands run in a real folder (add "root", a folder next to this file, copied afresh for each run)`
    }
  }
  const wrong = Commands.check(commands)
  return wrong === undefined ? undefined : { path: JsonPath.text(["commands", ...wrong.path]), problem: wrong.problem }
}

/** Each case id once. */
export const checkCases = (scenario: ScenarioFile.ResponseCasesFile): Problem | undefined => {
  const seen = new Set<string>()
  for (const [i, c] of scenario.cases.entries()) {
    if (seen.has(c.id)) {
      return { path: `cases[${i}].id`, problem: `case id '${c.id}' appears twice` }
    }
    seen.add(c.id)
  }
  return undefined
}

/** A turn whose reply calls tools lists what the model must be shown; its patterns compile. */
export const checkScript = (scenario: ScenarioFile.ConversationFile): Problem | undefined => {
  for (const [t, turn] of scenario.turns.entries()) {
    const calls = turn.reply.filter((block) => block.type === "tool_use").length
    if (calls > 0 && turn.expect === undefined) {
      return {
        path: `turns[${t}].expect`,
        problem: `missing: the reply has ${calls} tool_use block(s), so the turn must list the results the model must be shown`
      }
    }
    for (const [e, expected] of (turn.expect ?? []).entries()) {
      if (typeof expected.content === "string") continue
      const invalid = checkPattern(`turns[${t}].expect[${e}].content.pattern`, expected.content.pattern)
      if (invalid !== undefined) return invalid
    }
  }
  return undefined
}
