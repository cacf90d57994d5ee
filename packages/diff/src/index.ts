/**
 * Diffing two plans by step id: which steps a revision removed, added or revised, as plain data
 * with a Schema, and renderers of that diff as text, ANSI-coloured text or JSON.
 *
 * @since 0.1.0
 */

/** The diff of two plans by step id (`removed`, `added`, `revised`), its Schema, `diff` and `isEmpty`. @since 0.1.0 */
export * as PlanDiff from "./PlanDiff.ts"
/** A plan diff rendered as text, ANSI-coloured text or JSON, and whether to colour a stream. @since 0.1.0 */
export * as Render from "./Render.ts"
