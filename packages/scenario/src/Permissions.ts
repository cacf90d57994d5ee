/**
 * Permission gates in conversation scenarios (an extension of format 1): a file's `policy` (the
 * permission policy every call of the run goes through), its scripted `approvals` (the answers
 * to the calls the policy asks about) and `untrustedOutput`, and the `Permissions` service that
 * turns them into the executor middleware of the run.
 *
 * The scenario package never imports `@agent-harness/permission` (an edge package: `harness
 * run` of a scenario without a policy never loads it). A host that can enforce policies
 * provides a `Permissions`: `layer` of `@agent-harness/permission/scenario` is one, over the
 * permission package's `Policy`, `Gate` and `Approver` (the `harness` CLI provides it). Without one, a scenario that declares a policy is refused, never run
 * without its gate.
 *
 * @since 0.1.0
 */
import type { Execute } from "@agent-harness/executor"
import { type Cause, Context, type Effect, Schema } from "effect"

/**
 * What a file declares: its `policy` as written (a JSON object), its `approvals` (a list, in
 * the order they are used; none: no one can be asked, so a call the policy asks about is
 * denied) and whether tool output is marked as untrusted data.
 *
 * @since 0.1.0
 */
export interface Declared {
  /** The permission policy, as the file has it. */
  readonly policy: unknown
  /** The scripted answers, as the file has them; `undefined`: no one can be asked. */
  readonly approvals?: ReadonlyArray<unknown> | undefined
  /** Mark the text of every result a tool produced as untrusted data. */
  readonly untrustedOutput?: boolean | undefined
}

const InvalidPermissionsBase: Schema.Class<
  InvalidPermissions,
  Schema.TaggedStruct<
    "InvalidPermissions",
    {
      readonly field: Schema.Literals<readonly ["policy", "approvals"]>
      readonly path: Schema.String
      readonly problem: Schema.String
    }
  >,
  Cause.YieldableError
> = Schema.TaggedError<InvalidPermissions>()("InvalidPermissions", {
  field: Schema.Literals(["policy", "approvals"]),
  path: Schema.String,
  problem: Schema.String
})

/**
 * A declared policy or approvals that do not decode: which field, the JSON path inside it
 * (`rules[0].decision`, or `(root)` for the field itself) and what is wrong.
 *
 * @since 0.1.0
 */
export class InvalidPermissions extends InvalidPermissionsBase {
  /** The JSON path from the file's root: `policy.rules[0].decision`. */
  get at(): string {
    if (this.path === "(root)") return this.field
    return this.path.startsWith("[") ? `${this.field}${this.path}` : `${this.field}.${this.path}`
  }

  /** `policy.rules[0].decision: <problem>`. */
  override get message(): string {
    return `${this.at}: ${this.problem}`
  }
}

/**
 * The gate of one run: the middleware every call goes through, and, after the run, what did
 * not go as the approvals scripted (a call asked about with no answer left, an answer for
 * another call, answers never used). Empty when the script was followed exactly.
 *
 * @since 0.1.0
 */
export interface Gate {
  /** The executor middleware of the run. */
  readonly middleware: Execute.Middleware
  /** What went off the scripted approvals, read after the run. */
  readonly problems: Effect.Effect<ReadonlyArray<string>>
}

/**
 * What enforces the declarations: `check` decodes them (`Suite.load` refuses a file whose
 * policy or approvals do not decode, naming the JSON path), `gate` makes the gate of one run.
 *
 * @since 0.1.0
 */
export interface Shape {
  /** Decodes the declarations; fails naming the first problem. */
  readonly check: (declared: Declared) => Effect.Effect<void, InvalidPermissions>
  /** The gate of one run, with a fresh approver over the scripted answers. */
  readonly gate: (declared: Declared) => Effect.Effect<Gate, InvalidPermissions>
}

const PermissionsBase: Context.ServiceClass<Permissions, "@agent-harness/scenario/Permissions", Shape> =
  Context.Service<Permissions, Shape>()("@agent-harness/scenario/Permissions")

/**
 * The service that enforces the permission policies scenarios declare. Optional: a scenario
 * without `policy` never asks for it, one with `policy` is refused when it is missing.
 *
 * @since 0.1.0
 */
export class Permissions extends PermissionsBase {}

/**
 * Why a scenario that declares a policy cannot run without a `Permissions` service.
 *
 * @since 0.1.0
 */
export const missing: string =
  "declares a permission policy, but nothing here can enforce it: run it with the harness CLI, or provide the " +
  "Permissions of @agent-harness/permission/scenario (its layer)"
