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

/** Each walkthrough's module, loaded when it runs (a chunk of its own in the built CLI). */
const salmorejo = () => import("../walkthroughs/Salmorejo.ts")
const plan = () => import("../walkthroughs/Plan.ts")
const regress = () => import("../walkthroughs/Regress.ts")
const idempotency = () => import("../walkthroughs/Idempotency.ts")

/**
 * Runs the walkthrough: exit 0 when its checks hold, else its own exit code.
 *
 * @since 0.1.0
 */
export const demo = (options: Options): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> => {
  switch (options.walkthrough) {
    case "salmorejo":
      return lazy(salmorejo, (m) => m.salmorejo(options))
    case "plan":
      return lazy(plan, (m) => m.plan)
    case "regress":
      return lazy(regress, (m) => m.regress(options))
    case "idempotency":
      return lazy(idempotency, (m) => m.idempotency)
  }
}
