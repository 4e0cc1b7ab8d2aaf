import type { FieldError } from '#shared/errors/domain-errors';

/**
 * Rules every request input obeys before anything reads it.
 *
 * Storable text: PostgreSQL text and jsonb cannot hold U+0000, and an unpaired UTF-16 surrogate has no UTF-8
 * encoding, so either one would fail deep in the store as a 500 (or be mangled on the way). Such strings are
 * refused up front, in keys as well as values. U+FFFE, U+FFFF and astral characters (emoji) are valid Unicode
 * and pass.
 */
export function unstorableProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) return 'must not contain an unpaired UTF-16 surrogate (U+D800–U+DFFF)';
  return undefined;
}

const join = (field: string, key: string | number) => (typeof key === 'number' ? `${field}[${key}]` : `${field}.${key}`);

/**
 * How deep a request's JSON may nest. No input of the API comes near it (an agent's inventory nests 6 levels);
 * deeper documents are refused rather than walked, so no check, hash or jsonb conversion further on meets one.
 */
export const MAX_JSON_DEPTH = 64;
export const TOO_DEEP = `must not nest deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;

/**
 * Every unstorable string in a JSON value, keys included, named like the validator names fields; and a value
 * nested deeper than MAX_JSON_DEPTH, named where it crosses the bound (so the check is total: nothing below the
 * bound goes unchecked, nothing beyond it is accepted).
 */
export function findUnstorable(value: unknown, field: string, out: FieldError[] = [], depth = 0): FieldError[] {
  if (out.length >= 20) return out; // enough to name the problem; JSON.parse already bounds the size
  if (typeof value === 'string') {
    const problem = unstorableProblem(value);
    if (problem) out.push({ field, problem });
    return out;
  }
  if (!value || typeof value !== 'object') return out;
  if (depth >= MAX_JSON_DEPTH) {
    out.push({ field, problem: TOO_DEEP });
    return out;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      findUnstorable(v, join(field, i), out, depth + 1);
    });
  } else {
    for (const [k, v] of Object.entries(value)) {
      const keyProblem = unstorableProblem(k);
      if (keyProblem) {
        out.push({ field, problem: `has a key that ${keyProblem}` });
        continue;
      }
      findUnstorable(v, join(field, k), out, depth + 1);
    }
  }
  return out;
}

/**
 * Integers in paths and query strings are canonical decimal: `0`, or a digit 1–9 followed by digits. A string
 * the validator would coerce to an integer in any other spelling (sign, leading zeros, spaces, exponent, hex,
 * `101.0`) is refused — otherwise `/jail/0x65`, `/jail/00101` and `/jail/%20101` would all name jail 101, and
 * `size=1e2` would be 100. Strings that are no integer at all (`abc`, `1.5`) and plain negatives (`-1`) are
 * left to the validator, which names the type or range they miss.
 */
const CANONICAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;
export const isCanonicalInteger = (s: string) => {
  if (CANONICAL_INTEGER.test(s)) return true;
  const n = s.trim() === '' ? NaN : Number(s);
  return !Number.isInteger(n);
};
export const NOT_CANONICAL = 'must be an integer in plain decimal (digits only, no sign, leading zeros, spaces or exponent)';
