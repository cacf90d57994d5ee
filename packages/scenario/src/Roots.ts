/**
 * Real folders in conversation scenarios (an extension of format 1): a file's `root` names a
 * folder next to it (relative to the scenario file's folder) whose tree the run's file tools
 * work on, instead of inline `files`. Each run works on a fresh copy of that tree, removed after
 * the run, so the fixture itself never changes and runs never see each other's writes.
 *
 * The scenario package's main entry reads no disk itself: a host that can copy folders provides
 * a `Roots` service: `layer` of `@agent-harness/scenario/TreeRoots` is one, over
 * `@agent-harness/file-tools`' `TreeFiles` (the `harness` CLI provides it).
 * Without one, a scenario that declares a root is refused, never run over something else.
 *
 * @since 0.1.0
 */
import type { Files } from "@agent-harness/file-tools"
import { type Cause, Context, type Effect, Schema, type Scope } from "effect"

const InvalidRootBase: Schema.Class<
  InvalidRoot,
  Schema.TaggedStruct<"InvalidRoot", { readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<InvalidRoot>()("InvalidRoot", { problem: Schema.String })

/**
 * A declared root that cannot be used: what is wrong with it (`no such folder next to the
 * scenario file`, `it is a symbolic link…`, `it is outside the scenario file's folder…`), in
 * words that never need the host's absolute paths.
 *
 * @since 0.1.0
 */
export class InvalidRoot extends InvalidRootBase {
  /** The problem itself. */
  override get message(): string {
    return this.problem
  }
}

/**
 * A root folder's copy, opened: the file tools' `Files` over it, and, when the copy is a real
 * folder on the disk, its absolute path (`folder`): where the commands a scenario declares run.
 * A `Roots` whose copies are not real folders leaves it out, and a scenario with `commands`
 * cannot run there.
 *
 * @since 0.2.0
 */
export interface Opened extends Files.FilesShape {
  /** The copy's absolute path, when it is a real folder (`TreeRoots`' copies are). */
  readonly folder?: string | undefined
}

/**
 * What checks a declared root and opens a copy of it. `root` is the file's `root` as written,
 * `file` the scenario file's path (the root is relative to its folder).
 *
 * @since 0.1.0
 */
export interface Shape {
  /**
   * Whether `root` names a folder the scenario may use: it exists, it is a folder (not a link
   * to one, and no link on the way), it is inside the scenario file's folder.
   */
  readonly check: (root: string, file: string) => Effect.Effect<void, InvalidRoot>
  /**
   * A fresh copy of the folder's tree for the length of the scope, as the file tools' `Files`
   * (removed when the scope closes), with the copy's path when it is a real folder. Fails,
   * naming the entry, when the tree holds what cannot be copied.
   */
  readonly open: (root: string, file: string) => Effect.Effect<Opened, InvalidRoot, Scope.Scope>
}

const RootsBase: Context.ServiceClass<Roots, "@agent-harness/scenario/Roots", Shape> = Context.Service<Roots, Shape>()(
  "@agent-harness/scenario/Roots"
)

/**
 * The service that checks and copies the root folders scenarios declare. Optional: a scenario
 * without `root` never asks for it, one with `root` is refused when it is missing.
 *
 * @since 0.1.0
 */
export class Roots extends RootsBase {}

/**
 * Why a scenario that declares a root cannot run without a `Roots` service.
 *
 * @since 0.1.0
 */
export const missing: string =
  "declares a root folder, but nothing here can copy one: run it with the harness CLI, or provide the Roots " +
  "of @agent-harness/scenario/TreeRoots (its layer)"
