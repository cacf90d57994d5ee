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
  /** Discriminates the violation. */
  readonly _tag: "UnknownTool"
  /** The name the model sent. */
  readonly name: string
}

/** The call's input is not a JSON object (an array, a string, `null`...). @since 0.1.0 */
export interface InputNotObject {
  /** Discriminates the violation. */
  readonly _tag: "InputNotObject"
}

/** A declared, required field is absent. @since 0.1.0 */
export interface MissingField {
  /** Discriminates the violation. */
  readonly _tag: "MissingField"
  /** The path of the missing field (`address.city`). */
  readonly field: string
}

/** A field holds a value of another type; nothing is coerced. @since 0.1.0 */
export interface WrongType {
  /** Discriminates the violation. */
  readonly _tag: "WrongType"
  /** The path of the field. */
  readonly field: string
  /** The type the field should have had. */
  readonly expected: Expected
}

/** A field has the right type but fails a refinement (an integer, a minimum length...). @since 0.1.0 */
export interface InvalidValue {
  /** Discriminates the violation. */
  readonly _tag: "InvalidValue"
  /** The path of the field. */
  readonly field: string
  /** What the refinement expected, as the schema states it (e.g. `an integer`). */
  readonly expected: string
}

/** A field the tool does not declare; it is never silently dropped. @since 0.1.0 */
export interface UnexpectedField {
  /** Discriminates the violation. */
  readonly _tag: "UnexpectedField"
  /** The path of the undeclared field. */
  readonly field: string
}

/** A check on the whole input failed (a struct-level refinement). @since 0.1.0 */
export interface InvalidInput {
  /** Discriminates the violation. */
  readonly _tag: "InvalidInput"
  /** What the check said. */
  readonly message: string
}

/**
 * Checking the input threw: a getter, a `Proxy` trap or a revoked `Proxy` in the input, or a
 * check of the schema itself. `message` is what was thrown. Nothing ran.
 *
 * @since 0.1.0
 */
export interface UncheckableInput {
  /** Discriminates the violation. */
  readonly _tag: "UncheckableInput"
  /** What was thrown, as text. */
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

/** An `UnknownTool` violation for the name the model sent. @since 0.1.0 */
export const unknownTool = (name: string): Violation => ({ _tag: "UnknownTool", name })
/** The `InputNotObject` violation (there is only one). @since 0.1.0 */
export const inputNotObject: Violation = { _tag: "InputNotObject" }
/** A `MissingField` violation for the field's path. @since 0.1.0 */
export const missingField = (field: string): Violation => ({ _tag: "MissingField", field })
/** A `WrongType` violation: the field's path and the type it should have had. @since 0.1.0 */
export const wrongType = (field: string, expected: Expected): Violation => ({ _tag: "WrongType", field, expected })
/** An `InvalidValue` violation: the field's path and what the refinement expected. @since 0.1.0 */
export const invalidValue = (field: string, expected: string): Violation => ({ _tag: "InvalidValue", field, expected })
/** An `UnexpectedField` violation for the undeclared field's path. @since 0.1.0 */
export const unexpectedField = (field: string): Violation => ({ _tag: "UnexpectedField", field })
/** An `InvalidInput` violation with what the whole-input check said. @since 0.1.0 */
export const invalidInput = (message: string): Violation => ({ _tag: "InvalidInput", message })
/** An `UncheckableInput` violation with what checking the input threw. @since 0.1.0 */
export const uncheckableInput = (message: string): Violation => ({ _tag: "UncheckableInput", message })
