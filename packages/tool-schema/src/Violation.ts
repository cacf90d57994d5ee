/**
 * Why a raw tool call was not executed. A violation is a plain, JSON-ready value: it is
 * created on every invalid call, so it carries no stack and costs an object literal.
 *
 * @since 0.1.0
 */

/**
 * What a field should have been, in words a catalogue can render in any language.
 *
 * @since 0.1.0
 */
export type Expected =
  | { readonly kind: "string" | "number" | "integer" | "boolean" | "array" | "object" | "null" | "value" }
  | { readonly kind: "literal"; readonly values: ReadonlyArray<string | number | boolean | null> }
  | { readonly kind: "union"; readonly members: ReadonlyArray<Expected> }

/** The model named a tool that the toolset does not have. @since 0.1.0 */
export interface UnknownTool {
  readonly _tag: "UnknownTool"
  readonly name: string
}

/** The call's input is not a JSON object (an array, a string, `null`...). @since 0.1.0 */
export interface InputNotObject {
  readonly _tag: "InputNotObject"
}

/** A declared, required field is absent. @since 0.1.0 */
export interface MissingField {
  readonly _tag: "MissingField"
  readonly field: string
}

/** A field holds a value of another type; nothing is coerced. @since 0.1.0 */
export interface WrongType {
  readonly _tag: "WrongType"
  readonly field: string
  readonly expected: Expected
}

/** A field has the right type but fails a refinement (an integer, a minimum length...). @since 0.1.0 */
export interface InvalidValue {
  readonly _tag: "InvalidValue"
  readonly field: string
  /** What the refinement expected, as the schema states it (e.g. `an integer`). */
  readonly expected: string
}

/** A field the tool does not declare; it is never silently dropped. @since 0.1.0 */
export interface UnexpectedField {
  readonly _tag: "UnexpectedField"
  readonly field: string
}

/** A check on the whole input failed (a struct-level refinement). @since 0.1.0 */
export interface InvalidInput {
  readonly _tag: "InvalidInput"
  readonly message: string
}

/**
 * Checking the input threw: a getter, a `Proxy` trap or a revoked `Proxy` in the input, or a
 * check of the schema itself. `message` is what was thrown. Nothing ran.
 *
 * @since 0.1.0
 */
export interface UncheckableInput {
  readonly _tag: "UncheckableInput"
  readonly message: string
}

/**
 * Every reason a call can be refused before it runs.
 *
 * @since 0.1.0
 */
export type Violation =
  | UnknownTool
  | InputNotObject
  | MissingField
  | WrongType
  | InvalidValue
  | UnexpectedField
  | InvalidInput
  | UncheckableInput

/** @since 0.1.0 */
export const unknownTool = (name: string): Violation => ({ _tag: "UnknownTool", name })
/** @since 0.1.0 */
export const inputNotObject: Violation = { _tag: "InputNotObject" }
/** @since 0.1.0 */
export const missingField = (field: string): Violation => ({ _tag: "MissingField", field })
/** @since 0.1.0 */
export const wrongType = (field: string, expected: Expected): Violation => ({ _tag: "WrongType", field, expected })
/** @since 0.1.0 */
export const invalidValue = (field: string, expected: string): Violation => ({ _tag: "InvalidValue", field, expected })
/** @since 0.1.0 */
export const unexpectedField = (field: string): Violation => ({ _tag: "UnexpectedField", field })
/** @since 0.1.0 */
export const invalidInput = (message: string): Violation => ({ _tag: "InvalidInput", message })
/** @since 0.1.0 */
export const uncheckableInput = (message: string): Violation => ({ _tag: "UncheckableInput", message })
