import type { JSONSchema } from 'json-schema-to-ts';

/**
 * The page-numbered lists' answer, `{data, last_page}` (E12's shape; `last_page` ≥ 1 even when nothing matches),
 * with `extra` members some lists add (e.g. `total`), all required.
 */
export const pageOf = <I extends JSONSchema, E extends Record<string, JSONSchema> = Record<never, never>>(item: I, extra?: E) =>
  ({
    type: 'object',
    properties: { data: { type: 'array', items: item }, last_page: { type: 'integer', minimum: 1 }, ...(extra as E) },
    required: ['data', 'last_page', ...(Object.keys(extra ?? {}) as (keyof E & string)[])],
    additionalProperties: false,
  }) as const;
