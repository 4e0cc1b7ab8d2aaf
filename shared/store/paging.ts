import { notFound } from '#shared/errors/domain-errors';

/**
 * Page-numbered listing shared by the list queries (the HTTP layer declares their `page`/`size` query),
 * answered as `{data, last_page}` with `last_page` ≥ 1 even when nothing matches (the E12 shape).
 */
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

/**
 * The all-or-nothing check of the bulk operations (E21, E23): 404 `code` naming every requested id that is
 * not among the found ones, in request order.
 */
export function requireAllFound(requested: readonly number[], found: Iterable<number>, code: string, noun: string): void {
  const have = new Set(found);
  const missing = requested.filter((id) => !have.has(id));
  if (!missing.length) return;
  const many = missing.length > 1;
  throw notFound(code, `${noun}${many ? 's' : ''} ${missing.join(', ')} ${many ? 'do' : 'does'} not exist; nothing was deleted`);
}

/** Timestamps leave the API as ISO 8601 strings (UTC); absent ones as null. */
export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
