/**
 * Who answers `harness agent`'s questions: a person at the terminal (the permission package's
 * `Terminal`: y / n / always, asked on stderr, every question read in turn, a nonsense answer
 * asked again, Ctrl-D a no) when stdin is a terminal, else no one
 * (`Approver.unattended`: the call is denied, saying no one could be asked). What the person
 * answers is kept, in order, as scripted answers: `--trace` records them (the `approvals`
 * annotation) so that the captured scenario replays the same answers.
 *
 * @since 0.1.0
 */
import { Approver, Terminal } from "@agent-harness/permission"
import { Effect } from "effect"

/**
 * The approver, and the answers given so far (empty when no one can be asked: replaying the
 * run without answers denies the same calls, the same way).
 *
 * @since 0.1.0
 */
export interface Recording {
  readonly approver: Approver.Approver
  readonly answers: ReadonlyArray<Approver.ScriptedAnswer>
}

/**
 * The terminal a person answers on: stdin when it is a terminal, with the questions on stderr
 * when that is a terminal too, else on stdout when it is one (`2>log` must not hide the
 * question from the person typing the answer); `undefined` when no one can see a question and
 * type its answer.
 *
 * @since 0.1.0
 */
export const terminalOf = (io: {
  readonly stdin: Terminal.Streams["input"] & { readonly isTTY?: boolean | undefined }
  readonly stdout: Terminal.Streams["output"] & { readonly isTTY?: boolean | undefined }
  readonly stderr: Terminal.Streams["output"] & { readonly isTTY?: boolean | undefined }
}): Terminal.Streams | undefined => {
  if (io.stdin.isTTY !== true) return undefined
  if (io.stderr.isTTY === true) return { input: io.stdin, output: io.stderr }
  if (io.stdout.isTTY === true) return { input: io.stdin, output: io.stdout }
  return undefined
}

/**
 * A person at `terminal` (its input and output streams), or no one when there is none.
 *
 * @since 0.1.0
 */
export const make = (terminal: Terminal.Streams | undefined): Recording =>
  terminal === undefined ? { approver: Approver.unattended, answers: [] } : recording(Terminal.make(terminal))

/**
 * Any approver (a person at the terminal, the parking approver of `--park`), with what it
 * answers kept in order.
 *
 * @since 0.2.0
 */
export const recording = (approver: Approver.Approver): Recording => {
  const answers: Array<Approver.ScriptedAnswer> = []
  return {
    answers,
    approver: {
      ask: (request) =>
        Effect.tap(approver.ask(request), (given) =>
          Effect.sync(() => {
            answers.push({
              tool_use_id: request.id,
              tool: request.name,
              answer: given.answer,
              ...(given.reason === undefined ? {} : { reason: given.reason })
            })
          })
        )
    }
  }
}
