/**
 * Diffing two plans by step id: which steps a revision removed, added or revised, as plain data
 * with a Schema, and renderers of that diff as text, ANSI-coloured text or JSON.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as PlanDiff from "./PlanDiff.ts"
/** @since 0.1.0 */
export * as Render from "./Render.ts"
