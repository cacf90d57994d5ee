/**
 * Structs that refuse any field they do not declare, whatever the options they are decoded with
 * (Effect Schema strips unknown fields by default, and a misspelt field of a permission rule
 * would then silently widen it).
 *
 * @since 0.1.0
 */
import { Schema, SchemaIssue, SchemaTransformation } from "effect"

/**
 * A struct of `fields` decoded from a JSON object: a field it does not declare is refused as an
 * unexpected field at its own path.
 *
 * @since 0.1.0
 */
export const struct = <F extends Schema.Struct.Fields>(
  fields: F
): Schema.decodeTo<Schema.Struct<F>, Schema.$Record<Schema.String, Schema.Unknown>> => {
  const known = new Set(Object.keys(fields))
  return Schema.Record(Schema.String, Schema.Unknown)
    .check(
      Schema.makeFilter((object: { readonly [key: string]: unknown }) => {
        for (const key of Object.keys(object)) {
          if (!known.has(key))
            return { path: [key], issue: new SchemaIssue.UnexpectedKey(Schema.Never.ast, object[key]) }
        }
        return undefined
      })
    )
    .pipe(Schema.decodeTo(Schema.Struct(fields), SchemaTransformation.passthrough({ strict: false })))
}
