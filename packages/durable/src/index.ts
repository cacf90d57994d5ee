/**
 * Plan sessions and conversations beyond one machine: effect/workflow workflows on effect/cluster
 * runners, their state in Postgres. Each step and tool call is an activity keyed by its call id
 * and guarded by the idempotency journal, so a runner's death loses nothing and runs no side
 * effect twice.
 *
 * @since 0.1.0
 */

/** The Postgres database: the URL checked, a pool, `DatabaseUnavailable`. @since 0.1.0 */
export * as Database from "./Database.ts"
/** The idempotency journal's store in a Postgres table. @since 0.1.0 */
export * as PgStore from "./PgStore.ts"
