import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** `true` when A and B are assignable to each other. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Ties a response schema to the type its handler returns: `describes<T>()(schema)` returns the schema, and fails
 * typecheck ("Expected 2 arguments") unless the schema describes exactly `T` — so neither can drift alone.
 */
export const describes =
  <T>() =>
  <const S extends JSONSchema>(schema: S, ..._exact: Same<T, FromSchema<S>> extends true ? [] : [never]): S =>
    schema;
