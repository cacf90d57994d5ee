/**
 * The permission policies scenarios declare (`policy`, `approvals`, `untrustedOutput`),
 * enforced: the scenario package's `Permissions` service over this package, as `harness test`
 * runs them. The policy is decoded with `Policy.decode` (unknown fields, decisions and globs
 * that do not compile refused at their path), the approvals with `Approver.ScriptedAnswers`;
 * every call of the run goes through `Gate.make`'s middleware, asked questions answered by
 * `Approver.scripted(approvals)`, or by `Approver.unattended` (no one can be asked: denied)
 * when the file scripts none.
 *
 * Import it from `@agent-harness/permission/scenario`, and provide `layer` where scenario files
 * run (`scenarioTests(folder, { layer })` of `@agent-harness/testing/vitest`, or
 * `Effect.provide(layer)` around `Suite.load` and `Suite.run`). The rest of the package is loaded
 * on the first scenario that declares a policy: running one that does not never loads it.
 *
 * @since 0.1.0
 */
import type { Execute } from "@agent-harness/executor"
import { Permissions, ScenarioFile } from "@agent-harness/scenario"
import { Effect, Layer, Result, SchemaParser } from "effect"
import type * as Permission from "./index.ts"

/** The permission package, loaded when first needed (the module system keeps it after that). */
const load = Effect.promise(() => import("./index.ts"))

type Answers = ReadonlyArray<Permission.Approver.ScriptedAnswer>

/** The declarations decoded: the policy, and the scripted answers (none: no one can be asked). */
const decode = (
  permission: typeof Permission,
  declared: Permissions.Declared
): Result.Result<
  { readonly policy: Permission.Policy.Policy; readonly answers: Answers | undefined },
  Permissions.InvalidPermissions
> => {
  const policy = permission.Policy.decode(declared.policy)
  if (Result.isFailure(policy)) {
    return Result.fail(
      new Permissions.InvalidPermissions({
        field: "policy",
        path: policy.failure.path,
        problem: policy.failure.problem
      })
    )
  }
  if (declared.approvals === undefined) return Result.succeed({ policy: policy.success, answers: undefined })
  const answers = SchemaParser.decodeUnknownResult(permission.Approver.ScriptedAnswers)(
    declared.approvals,
    ScenarioFile.parseOptions
  )
  if (Result.isFailure(answers)) {
    return Result.fail(
      new Permissions.InvalidPermissions({ field: "approvals", ...ScenarioFile.firstProblem(answers.failure) })
    )
  }
  return Result.succeed({ policy: policy.success, answers: answers.success })
}

/**
 * The `Permissions` service: `check` decodes a file's declarations, `gate` makes the gate of one
 * run over them.
 *
 * @since 0.1.0
 */
export const permissions: Permissions.Shape = Permissions.Permissions.of({
  check: (declared) =>
    Effect.flatMap(load, (permission) => Effect.asVoid(Effect.fromResult(decode(permission, declared)))),
  gate: (declared) =>
    Effect.gen(function* () {
      const permission = yield* load
      const { policy, answers } = yield* Effect.fromResult(decode(permission, declared))
      const gate = yield* Effect.mapError(
        permission.Gate.make({ policy, untrustedOutput: declared.untrustedOutput }),
        (error) => new Permissions.InvalidPermissions({ field: "policy", path: error.path, problem: error.problem })
      )
      const scripted = answers === undefined ? undefined : yield* permission.Approver.scripted(answers)
      const approver = scripted?.approver ?? permission.Approver.unattended
      const middleware: Execute.Middleware = (call, tool, run) =>
        Effect.provideService(gate(call, tool, run), permission.Approver.Approver, approver)
      return { middleware, problems: scripted?.problems ?? Effect.succeed([]) }
    })
})

/**
 * `permissions` as a layer: provide it where scenario files are loaded and run.
 *
 * @example
 * ```ts
 * import * as PermissionScenario from "@agent-harness/permission/scenario"
 * import { scenarioTests } from "@agent-harness/testing/vitest"
 *
 * scenarioTests("scenarios/permission", { layer: PermissionScenario.layer })
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Permissions.Permissions> = Layer.succeed(Permissions.Permissions, permissions)
