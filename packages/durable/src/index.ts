/**
 * Plan sessions and conversations beyond one machine: effect/workflow workflows on effect/cluster
 * runners, their state in Postgres. Each step and tool call is recorded by the idempotency
 * journal under its call id, in a table every runner shares, so a runner's death loses nothing
 * and runs no side effect twice; planner answers and model turns are activities.
 *
 * @since 0.1.0
 */

/** The Postgres database: the URL checked, a pool, `DatabaseUnavailable`. @since 0.1.0 */
export * as Database from "./Database.ts"
/** Approvals on the durable engine: asked calls parked, the conversation suspended until someone answers. @since 0.2.0 */
export * as DurableApprovals from "./DurableApprovals.ts"
/** Conversations (the loop) as workflows: model turns as activities, tool calls journaled. @since 0.1.0 */
export * as DurableLoop from "./DurableLoop.ts"
/** Tool calls recorded by the journal under their call ids: the executor middleware. @since 0.1.0 */
export * as DurableJournal from "./DurableJournal.ts"
/** Plan sessions as workflows: planner answers as activities, steps journaled. @since 0.1.0 */
export * as DurableSession from "./DurableSession.ts"
/** The workflow engine over Postgres: one process, a runner of many, or a client. @since 0.1.0 */
export * as Engine from "./Engine.ts"
/** The approvals store in a Postgres table: parked calls, each answered once. @since 0.2.0 */
export * as PgApprovals from "./PgApprovals.ts"
/** The idempotency journal's store in a Postgres table. @since 0.1.0 */
export * as PgStore from "./PgStore.ts"
