/**
 * `harness demo …`: the walkthroughs of the ideas, each loaded when it runs (`src/walkthroughs/`).
 *
 * @since 0.1.0
 */
import type { Variant } from "@agent-harness/scenario"
import type { Effect, FileSystem } from "effect"
import type * as ExitCode from "../common/ExitCode.ts"
import { lazy } from "../common/Lazy.ts"

/**
 * Which walkthrough, with its own options.
 *
 * @since 0.1.0
 */
export type Options =
  /** Errors as observations: the salmorejo conversation, turn by turn. */
  | { readonly walkthrough: "salmorejo"; readonly lang: "en" | "es" }
  /** Plan and execute: every path, each revision's diff drawn. */
  | { readonly walkthrough: "plan" }
  /** From an agent failure to a regression test, under a harness variant. */
  | { readonly walkthrough: "regress"; readonly variant: Variant.Variant }
  /** What is safe to repeat, and a crash resumed on a journal. */
  | { readonly walkthrough: "idempotency" }

/**
 * Runs the walkthrough: exit 0 when its checks hold, else its own exit code.
 *
 * @since 0.1.0
 */
export const demo = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> => {
  switch (options.walkthrough) {
    case "salmorejo":
      return lazy(
        () => import("../walkthroughs/Salmorejo.ts"),
        (m) => m.salmorejo({ lang: options.lang })
      )
    case "plan":
      return lazy(
        () => import("../walkthroughs/Plan.ts"),
        (m) => m.plan
      )
    case "regress":
      return lazy(
        () => import("../walkthroughs/Regress.ts"),
        (m) => m.regress({ variant: options.variant })
      )
    case "idempotency":
      return lazy(
        () => import("../walkthroughs/Idempotency.ts"),
        (m) => m.idempotency
      )
  }
}
