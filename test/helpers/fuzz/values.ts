import fc from 'fast-check';

/**
 * Values for one JSON schema (as the OpenAPI document states it): valid ones drawn from the schema, values at
 * and just past its bounds, and hostile ones a client could send anyway — U+0000, U+FFFF, emoji, lone
 * surrogates, 1 MiB strings, `__proto__`, huge, negative and fractional numbers, wrong types, deep nesting.
 */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  default?: unknown;
}

/** Values the fuzzer knows exist in the store (a registered node's id, its tunables), by field name. */
export type Known = Record<string, string[]>;

export const MIB_STRING = 'x'.repeat(1024 * 1024);

/** Strings no schema asks for but any client can send. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\uffff',
  '\ufffe',
  'pool\ud800',
  '\udc00x',
  '🐚🐚',
  '\u202eevil',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  "'; DROP TABLE tasks; --",
  '%00',
  '$' + '{jndi:ldap://x}',
  '0x10',
  '0101',
  '1e3',
  '-0',
  ' 101 ',
  'NaN',
  'Infinity',
  'null',
  'x'.repeat(4096),
];

/** Numbers an integer field must refuse, or accept only at its bounds. */
export const HOSTILE_NUMBERS = [0, -1, 1.5, -0.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e20, 1e308, -1e308, Number.MIN_VALUE];

const hostileScalar = fc.oneof(
  fc.constantFrom<unknown>(...HOSTILE_STRINGS),
  fc.constantFrom<unknown>(...HOSTILE_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { __proto__: null, x: 1 }),
);

/** A value nested `depth` arrays or objects deep. */
export const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

const typesOf = (s: Schema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** Strings of a pattern; undefined for patterns fast-check cannot generate from (lookaheads). */
function matching(pattern: string, min: number, max: number): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= min && v.length <= max);
  } catch {
    return undefined;
  }
}

function validString(s: Schema, name: string, known: Known, clean: boolean): fc.Arbitrary<unknown> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 64, 256);
  const free = fc.string({ minLength: min, maxLength: Math.max(min, max), unit: 'grapheme' });
  const base = s.pattern ? (matching(s.pattern, min, s.maxLength ?? Infinity) ?? free) : free;
  const around = [...(s.maxLength !== undefined ? ['y'.repeat(s.maxLength), 'y'.repeat(s.maxLength + 1)] : []), ...(min > 0 ? ['y'.repeat(min - 1)] : [])];
  if (known[name]?.length) return fc.oneof({ arbitrary: fc.constantFrom(...known[name]), weight: clean ? 4 : 1 }, base);
  const options: fc.Arbitrary<unknown>[] = [base];
  if (around.length && !clean) options.push(fc.constantFrom(...around));
  return fc.oneof(...options);
}

function validNumber(s: Schema, integer: boolean, clean: boolean): fc.Arbitrary<unknown> {
  const min = s.minimum ?? -(2 ** 31);
  const max = s.maximum ?? 2 ** 31;
  const inRange = integer
    ? fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) })
    : fc.double({ min, max, noNaN: true });
  const bounds = clean ? [min, max] : [min, max, min - 1, max + 1, ...(integer ? [min + 0.5] : [])];
  return fc.oneof(inRange, fc.constantFrom(...bounds));
}

/**
 * Values of a schema: `clean` ones valid (known values preferred for fields such as `nodeId`), otherwise also
 * just past the bounds; `depth` limits recursion.
 */
export function validValue(s: Schema, name: string, known: Known, clean: boolean, depth = 0): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const types = typesOf(s);
  if (!types.length) return hostileScalar;
  return fc.oneof(
    ...types.map((t): fc.Arbitrary<unknown> => {
      switch (t) {
        case 'string':
          return validString(s, name, known, clean);
        case 'integer':
          return validNumber(s, true, clean);
        case 'number':
          return validNumber(s, false, clean);
        case 'boolean':
          return fc.boolean();
        case 'null':
          return fc.constant(null);
        case 'array':
          return depth > 4
            ? fc.constant([])
            : fc.array(clean ? validValue(s.items ?? {}, name, known, true, depth + 1) : anyValue(s.items ?? {}, name, known, depth + 1), {
                minLength: s.minItems ?? 0,
                maxLength: Math.min(s.maxItems ?? 4, 6),
              });
        case 'object':
          return depth > 4 ? fc.constant({}) : objectValue(s, known, clean, depth + 1);
        default:
          return hostileScalar;
      }
    }),
  );
}

function objectValue(s: Schema, known: Known, clean: boolean, depth: number): fc.Arbitrary<unknown> {
  const props = s.properties ?? {};
  const model = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, clean ? validValue(p, k, known, true, depth) : anyValue(p, k, known, depth)]));
  const required = (s.required ?? []).filter((k) => k in props);
  const record = fc.record(model, { requiredKeys: required });
  if (clean) return record;
  // sometimes a required member goes missing, or an unknown one (or `__proto__` as an own key) comes along
  return fc.tuple(record, fc.nat(9), fc.constantFrom('extra', '__proto__', 'constructor', '')).map(([v, roll, key]) => {
    const out = { ...(v as Record<string, unknown>) };
    if (roll === 0 && required.length) delete out[required[0]];
    if (roll === 1) Object.defineProperty(out, key, { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    return out;
  });
}

/** Mostly valid values, some at the bounds, some hostile or of the wrong type. */
export function anyValue(s: Schema, name: string, known: Known, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: validValue(s, name, known, false, depth), weight: 6 }, { arbitrary: hostileScalar, weight: 2 });
}
