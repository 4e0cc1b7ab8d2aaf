/**
 * Page-numbered listing shared by the list endpoints: `page` ≥ 1 (default 1), `size` 1–100 (default 25),
 * answered as `{data, last_page}` with `last_page` ≥ 1 even when nothing matches (the E12 shape, DESIGN §8).
 */
export const pageQuery = {
  page: { type: 'integer', minimum: 1, maximum: 2147483647, default: 1 },
  size: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
} as const;

export interface PageRequest {
  page: number;
  size: number;
}

export interface Page<T> {
  data: T[];
  last_page: number;
}

export const lastPage = (total: number, size: number): number => Math.max(1, Math.ceil(total / size));
export const offsetOf = ({ page, size }: PageRequest): number => (page - 1) * size;

/** A set of record ids for the bulk operations (E21, E23): non-empty, unique, each 1..2^31−1. */
export const idSetBody = {
  type: 'object',
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: 10000, uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 2147483647 } },
  },
  required: ['ids'],
  additionalProperties: false,
} as const;

/** The requested ids that are not among the found ones, in request order. */
export const missingIds = (requested: readonly number[], found: Iterable<number>): number[] => {
  const have = new Set(found);
  return requested.filter((id) => !have.has(id));
};

/** Timestamps leave the API as ISO 8601 strings (UTC); absent ones as null. */
export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
