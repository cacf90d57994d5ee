/**
 * What the page says for each status: a word (shown, never colour alone), a sign, and a
 * sentence (the tooltip and the legend). Pure, so it is tested without a browser.
 */
import type { CallStatus, Conversation, StepStatus } from "../src/Model.ts"

/** The words for one status. */
export interface Words {
  readonly word: string
  readonly sign: string
  readonly meaning: string
}

/** The words for each call status. */
export const call: { readonly [S in CallStatus]: Words } = {
  ok: { word: "ok", sign: "✓", meaning: "ran and returned" },
  failed: { word: "failed", sign: "✗", meaning: "ran and failed" },
  not_executed: { word: "not executed", sign: "⊘", meaning: "failed its schema or named no tool: nothing ran" },
  denied: {
    word: "denied",
    sign: "⊖",
    meaning: "a harness layer (a journal, a permission check) refused it: nothing ran"
  },
  unknown: {
    word: "outcome unknown",
    sign: "?",
    meaning: "started before a crash and never recorded: it may or may not have run, and is not run again"
  },
  replayed: { word: "replayed", sign: "↺", meaning: "a recorded outcome given again: nothing ran" },
  unanswered: { word: "no observation", sign: "∅", meaning: "the trace has no observation for this call" }
}

/** The words for each step status. */
export const step: { readonly [S in StepStatus]: Words } = {
  succeeded: { word: "succeeded", sign: "✓", meaning: "ran and succeeded" },
  failed: { word: "failed", sign: "✗", meaning: "ran and failed" },
  not_executed: { word: "not executed", sign: "⊘", meaning: "failed its schema: nothing ran" },
  cached: { word: "kept", sign: "↺", meaning: "already succeeded with the same tool and args: not run again" },
  started: { word: "started", sign: "…", meaning: "started, with no outcome recorded" },
  not_reached: { word: "not reached", sign: "·", meaning: "the session never got to it" }
}

/** The words for a verdict. */
export const verdict: { readonly [V in "pass" | "fail" | "invalid"]: Words } = {
  pass: { word: "PASS", sign: "✓", meaning: "every expectation held" },
  fail: { word: "FAIL", sign: "✗", meaning: "an expectation did not hold" },
  invalid: { word: "INVALID", sign: "⚠", meaning: "the scenario file could not be read" }
}

/** Whether a call's status is an error the "only errors" filter keeps. */
export const isErrorStatus = (status: CallStatus): boolean => status !== "ok" && status !== "replayed"

/** `1 turn`, `2 turns`, with thousands separated. */
export const count = (n: number, word: string, plural = `${word}s`): string =>
  `${n.toLocaleString("en-US")} ${n === 1 ? word : plural}`

/** What was spent, in words: `18,000 tokens in · 900 out · $0.0675`, and the refusal. */
export const spent = (spend: NonNullable<Conversation["spend"]>): string =>
  `${spend.inputTokens.toLocaleString("en-US")} tokens in · ${spend.outputTokens.toLocaleString("en-US")} out${spend.cost > 0 ? ` · $${spend.cost.toFixed(4)}` : ""}${spend.refused === null ? "" : ` · refused: ${spend.refused}`}`
