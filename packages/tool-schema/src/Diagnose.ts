/**
 * Turns a Schema issue tree into the first violation, in the order of the scenario contract:
 * each declared field in order (missing, then wrong type or invalid value), then unexpected
 * fields in input order. Used only on the slow path, once a decode has already failed.
 *
 * @internal
 */
import { SchemaAST, type SchemaIssue } from "effect"
import * as JsonPath from "./JsonPath.ts"
import * as Violation from "./Violation.ts"

const pathText = JsonPath.plain

const integerCheck = (ast: SchemaAST.AST): boolean =>
  ast.checks?.some((check) => check._tag === "Filter" && check.annotations?.expected === "an integer") ?? false

/** Describes the type an AST node expects. */
export const expectedOf = (ast: SchemaAST.AST): Violation.Expected => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return { kind: "string" }
    case "Number":
      return { kind: integerCheck(ast) ? "integer" : "number" }
    case "Boolean":
      return { kind: "boolean" }
    case "Arrays":
      return { kind: "array" }
    case "Objects":
      return { kind: "object" }
    case "Null":
      return { kind: "null" }
    case "Literal":
      return { kind: "literal", values: [ast.literal as string | number | boolean] }
    case "Enum":
      return { kind: "literal", values: ast.enums.map(([, value]) => value) }
    case "Union": {
      const members = ast.types.map(expectedOf)
      if (members.every((m) => m.kind === "literal")) {
        return { kind: "literal", values: members.flatMap((m) => (m.kind === "literal" ? m.values : [])) }
      }
      return { kind: "union", members }
    }
    case "Suspend":
      return expectedOf(ast.thunk())
    default:
      return { kind: "value" }
  }
}

/** The first leaf problem under an issue, with the path that leads to it. */
const describe = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Violation.Violation | undefined => {
  switch (issue._tag) {
    case "Pointer":
      return describe(issue.issue, [...path, ...issue.path])
    case "Composite":
      for (const inner of issue.issues) {
        const found = describe(inner, path)
        if (found !== undefined) return found
      }
      return undefined
    case "Encoding":
      return describe(issue.issue, path)
    case "MissingKey":
      return Violation.missingField(pathText(path))
    case "UnexpectedKey":
      return Violation.unexpectedField(pathText(path))
    case "InvalidType":
      return Violation.wrongType(pathText(path), expectedOf(issue.ast))
    case "AnyOf":
      return Violation.wrongType(pathText(path), expectedOf(issue.ast))
    case "OneOf":
      return Violation.wrongType(pathText(path), expectedOf(issue.ast))
    case "Filter": {
      // A check that names the field at fault: that field's problem.
      if (issue.issue._tag === "Pointer") return describe(issue.issue, path)
      const expected = issue.filter.annotations?.expected
      return Violation.invalidValue(pathText(path), typeof expected === "string" ? expected : "a valid value")
    }
    case "InvalidValue":
    case "Forbidden": {
      const message = issue.annotations?.message
      return Violation.invalidValue(pathText(path), typeof message === "string" ? message : "a valid value")
    }
  }
}

/** Top-level issues of a struct decode, by the field they concern. */
const byField = (
  issue: SchemaIssue.Issue,
  into: Map<PropertyKey, SchemaIssue.Issue>,
  rest: Array<SchemaIssue.Issue>
) => {
  if (issue._tag === "Composite") {
    for (const inner of issue.issues) byField(inner, into, rest)
  } else if (issue._tag === "Pointer" && issue.path.length > 0) {
    const key = issue.path[0] as PropertyKey
    if (!into.has(key)) into.set(key, issue)
  } else if (issue._tag === "Filter" && issue.issue._tag === "Pointer") {
    // A check on the whole input that names the field at fault (`{ path, issue }`).
    byField(issue.issue, into, rest)
  } else {
    rest.push(issue)
  }
}

/**
 * The first violation, in contract order, of an object input against a struct.
 * `fields` are the declared keys in order; `input` is the raw object.
 */
export const firstViolation = (
  issue: SchemaIssue.Issue,
  fields: ReadonlyArray<PropertyKey>,
  input: object,
  formatter: (issue: SchemaIssue.Issue) => string
): Violation.Violation => {
  const perField = new Map<PropertyKey, SchemaIssue.Issue>()
  const rest: Array<SchemaIssue.Issue> = []
  byField(issue, perField, rest)
  for (const field of fields) {
    const found = perField.get(field)
    if (found === undefined) continue
    const violation = describe(found, [])
    if (violation !== undefined) return violation
  }
  // Then the other keys, in input order: unexpected ones, or keys an index signature refused.
  const declared = new Set(fields)
  for (const key of Object.keys(input)) {
    if (declared.has(key)) continue
    const found = perField.get(key)
    const violation = found === undefined ? undefined : describe(found, [])
    if (violation !== undefined) return violation
  }
  for (const other of rest) {
    if (other._tag === "InvalidType" && SchemaAST.isObjects(other.ast)) return Violation.inputNotObject
  }
  return Violation.invalidInput(formatter(issue))
}
