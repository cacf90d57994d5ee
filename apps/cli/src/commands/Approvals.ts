/**
 * `harness approvals list`, `harness approve ID`, `harness deny ID --reason …`: a person answers
 * the calls a permission rule asked about, parked by a run that waits for them — from another
 * terminal, another machine, tomorrow. The approvals are where the run parked them: a journal
 * file (`--journal FILE`: `harness agent --journal FILE --park`) or the durable engine's
 * Postgres database (`--database-url URL`, else `$DATABASE_URL`: `harness agent --engine
 * postgres`).
 *
 * An id is the 16 hexadecimal digits `list` shows, or a unique prefix of at least 4. Each
 * approval is answered once: a second answer, an answer for other arguments (`--digest` names
 * the digest the person saw) or for no approval is refused, changes nothing, exit 1. The answer
 * is recorded with who gave it (`--by`, default the user and host) and, on Postgres, wakes the
 * waiting conversation (a client of the engine: this process runs nothing).
 *
 * @since 0.2.0
 */
import os from "node:os"
import process from "node:process"
import { Approvals, SqliteStore } from "@agent-harness/idempotency"
import { Report } from "@agent-harness/scenario"
import { Console, Effect, Layer, type Scope } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Style from "../printing/Style.ts"

/**
 * Where the approvals are: `--journal` or `--database-url` (at most one; neither: `$DATABASE_URL`).
 *
 * @since 0.2.0
 */
export interface Where {
  readonly journal?: string | undefined
  readonly databaseUrl?: string | undefined
}

/**
 * The flags of `harness approvals list`.
 *
 * @since 0.2.0
 */
export interface ListOptions extends Where {
  /** Answered ones too (default: only pending). */
  readonly all: boolean
  /** Only this session's. */
  readonly session?: string | undefined
  /** One JSON object per approval. */
  readonly json: boolean
}

/**
 * The flags of `harness approve` and `harness deny`.
 *
 * @since 0.2.0
 */
export interface AnswerOptions extends Where {
  /** The approval's id, or a unique prefix of it. */
  readonly id: string
  /** Who answers (default `USER@HOST`). */
  readonly by?: string | undefined
  /** Why: the model reads it on a denial. */
  readonly reason?: string | undefined
  /** The digest the person saw: an approval with another is refused. */
  readonly digest?: string | undefined
}

const usage = (who: string, message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`${who}: ${message}`), Effect.fail(ExitCode.invalid))

/** Who answers when `--by` is not given: the user at this host. */
const whoAmI = (): string => {
  let user = process.env.USER ?? process.env.LOGNAME ?? ""
  try {
    if (user === "") user = os.userInfo().username
  } catch {
    // No user of this uid in the password database: the host alone.
  }
  return `${user === "" ? "someone" : user}@${os.hostname()}`
}

/** An answered approval's wake-up on the engine, or nothing (a journal's runs read the file). */
type Wake = (
  approval: Approvals.Approval
) => Effect.Effect<{ readonly woken: boolean; readonly problem?: string | undefined }>

/** The store `where` names, open for the scope, and how to wake a waiting run. */
const open = (
  who: string,
  where: Where
): Effect.Effect<
  { readonly store: Approvals.Store; readonly wake: Wake | undefined },
  ExitCode.ExitCode,
  Scope.Scope
> =>
  Effect.gen(function* () {
    if (where.journal !== undefined && where.databaseUrl !== undefined) {
      return yield* usage(who, "give --journal FILE or --database-url URL, not both")
    }
    if (where.journal !== undefined) {
      const store = yield* Effect.catch(SqliteStore.approvals(where.journal), (error) =>
        usage(who, `--journal ${error.message}`)
      )
      return { store, wake: undefined }
    }
    const fromEnv = process.env.DATABASE_URL
    if (where.databaseUrl === undefined && (fromEnv === undefined || fromEnv === "")) {
      return yield* usage(
        who,
        "say where the approvals are: --journal FILE (harness agent --journal FILE --park) or --database-url URL (harness agent --engine postgres; default $DATABASE_URL)"
      )
    }
    const { Database, DurableApprovals, Engine } = yield* Effect.promise(() => import("@agent-harness/durable"))
    const postgres = yield* Effect.promise(() => import("../engine/Postgres.ts"))
    const url = yield* postgres.databaseUrl(where.databaseUrl, who)
    const context = yield* Layer.build(
      DurableApprovals.layerPg().pipe(Layer.provideMerge(Engine.client({ url })))
    ).pipe(
      Effect.catchTags({
        DatabaseUnavailable: (error) => usage(who, error.message),
        ApprovalError: (error) => usage(who, `${Database.redact(url)}: ${error.message}`)
      })
    )
    const store = yield* Effect.provide(Effect.service(DurableApprovals.DurableApprovals), context)
    const wake: Wake = (approval) => Effect.provide(DurableApprovals.wakeUp(approval), context)
    return { store, wake }
  })

/** A time as people read it, in UTC. */
const when = (millis: number | undefined): string =>
  millis === undefined
    ? ""
    : new Date(millis)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z")

/** The call of an approval as one printable line: `command {"args":["push"],"program":"git"}`. */
const callText = (approval: Approvals.Approval, max = 200): string => {
  const text = `${approval.name} ${approval.input}`
  return Report.printable(text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text)
}

/** An approval on the wire: snake_case, every field. */
const wire = (a: Approvals.Approval) => ({
  id: a.id,
  state: a.state,
  session: a.session,
  tool_use_id: a.toolUseId,
  name: a.name,
  input: a.input,
  digest: a.digest,
  ...(a.reason === undefined ? {} : { reason: a.reason }),
  ...(a.rule === undefined ? {} : { rule: a.rule }),
  asked_at: new Date(a.askedAt).toISOString(),
  ...(a.by === undefined ? {} : { by: a.by }),
  ...(a.answerReason === undefined ? {} : { answer_reason: a.answerReason }),
  ...(a.answeredAt === undefined ? {} : { answered_at: new Date(a.answeredAt).toISOString() })
})

/** An approval as `list` prints it: a line, and an indented line of details. */
const lines = (a: Approvals.Approval, style: Report.Style): ReadonlyArray<string> => {
  const state =
    a.state === "pending" ? "pending " : a.state === "approved" ? style.pass("approved") : style.fail("denied  ")
  const why = a.reason === undefined ? "" : `, because: ${Report.printable(a.reason)}`
  const answered =
    a.state === "pending"
      ? ""
      : `; ${a.state} by ${Report.printable(a.by ?? "someone")} at ${when(a.answeredAt)}${a.answerReason === undefined ? "" : `: ${Report.printable(a.answerReason)}`}`
  return [
    `${a.id}  ${state}  ${callText(a)}`,
    style.dim(
      `  session ${Report.printable(a.session)}, call ${Report.printable(a.toolUseId)}, asked ${when(a.askedAt)}${why}; digest ${a.digest.slice(0, 16)}${answered}`
    )
  ]
}

/**
 * `harness approvals list`: the pending approvals (every one with `--all`), oldest first; exit 0.
 *
 * @since 0.2.0
 */
export const list = (options: ListOptions): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.scoped(
    Effect.gen(function* () {
      const who = "harness approvals list"
      const { store } = yield* open(who, options)
      const found = yield* Effect.catch(
        store.list({ ...(options.all ? {} : { state: "pending" }), session: options.session }),
        (error) => usage(who, error.message)
      )
      if (options.json) {
        for (const approval of found) yield* Console.log(JSON.stringify(wire(approval)))
        return
      }
      const style = Style.current()
      if (found.length === 0) {
        yield* Console.log(options.all ? "no approvals" : "no pending approvals")
        return
      }
      for (const approval of found) for (const line of lines(approval, style)) yield* Console.log(line)
      const pending = found.filter((a) => a.state === "pending").length
      if (pending > 0) {
        yield* Console.log(
          style.dim(
            `answer with: harness approve ID ${where(options)}  /  harness deny ID ${where(options)} --reason "…"`
          )
        )
      }
    })
  )

/** The flag that names where, for the hint lines. */
const where = (options: Where): string =>
  options.journal !== undefined
    ? `--journal ${JSON.stringify(options.journal)}`
    : options.databaseUrl !== undefined
      ? "--database-url URL"
      : ""

/**
 * `harness approve ID` (`approve: true`) and `harness deny ID` (`approve: false`): the answer,
 * once; exit 0 when it was taken, 1 when it was refused (nothing changed), 2 for bad usage.
 *
 * @since 0.2.0
 */
export const answer = (options: AnswerOptions, approve: boolean): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.scoped(
    Effect.gen(function* () {
      const who = approve ? "harness approve" : "harness deny"
      const by = options.by ?? whoAmI()
      if (by.trim() === "") return yield* usage(who, "--by is empty: say who answers")
      if (!/^[0-9a-f]{4,16}$/i.test(options.id)) {
        return yield* usage(
          who,
          `${JSON.stringify(options.id)} is not an approval id: 4 to 16 hexadecimal digits, as harness approvals list shows it`
        )
      }
      const { store, wake } = yield* open(who, options)
      const refused = (message: string) =>
        Effect.andThen(Console.error(`${who}: ${message}`), Effect.fail(ExitCode.failed))
      const approval = yield* Effect.catchTags(Approvals.find(store, options.id), {
        AnswerRefused: (error) => refused(Report.printable(error.message)),
        ApprovalError: (error) => usage(who, error.message)
      })
      const answered = yield* Effect.catchTags(
        store.answer(approval.id, {
          approve,
          by,
          ...(options.reason === undefined ? {} : { reason: options.reason }),
          ...(options.digest === undefined ? {} : { digest: options.digest.toLowerCase() })
        }),
        {
          AnswerRefused: (error) => refused(Report.printable(error.message)),
          ApprovalError: (error) => usage(who, error.message)
        }
      )
      const verb = approve ? "approved" : "denied"
      yield* Console.log(`${verb} ${answered.id}: ${callText(answered)} (by ${Report.printable(by)})`)
      if (wake === undefined) {
        yield* Console.log(`the run waiting in ${Report.printable(store.location)} reads the answer now`)
        return
      }
      const woken = yield* wake(answered)
      yield* Console.log(
        woken.woken
          ? `its conversation (session ${Report.printable(answered.session)}) was told; it goes on on a runner now, or when one starts`
          : `its conversation could not be told (${Report.printable(woken.problem ?? "unknown")}): it takes the answer at its next look at the database (at most 5 minutes away), or when it is resumed`
      )
    })
  )
