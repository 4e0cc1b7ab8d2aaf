/**
 * The error sites of the build's standalone validators (scripts/build/compile-specs.ts, compactErrorSites) call
 * this instead of spelling out ajv's error object each: one copy per bundle however many validators it holds.
 */
export interface ValidatorError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * ajv's message for an error of one of these keywords, from its params (ajv 8's own texts). The build leaves a
 * site's message out only when this function, run there on the site's literal params, gives exactly ajv's text.
 */
export function ajvMessage(k: string, p: Record<string, unknown>): string {
  if (k === 'required') return `must have required property '${p.missingProperty}'`;
  if (k === 'type') return `must be ${p.type}`;
  if (k === 'additionalProperties') return 'must NOT have additional properties';
  if (k === 'enum') return 'must be equal to one of the allowed values';
  if (k === 'minimum' || k === 'maximum' || k === 'exclusiveMinimum' || k === 'exclusiveMaximum') return `must be ${p.comparison} ${p.limit}`;
  if (k === 'pattern') return `must match pattern "${p.pattern}"`;
  if (k === 'format') return `must match format "${p.format}"`;
  return `must NOT have ${k.startsWith('max') ? 'more' : 'fewer'} than ${p.limit} ${k.endsWith('Length') ? 'characters' : 'items'}`;
}

/** The keywords ajvMessage knows. */
export const AJV_MESSAGE_KEYWORDS = new Set([
  'required',
  'type',
  'additionalProperties',
  'enum',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
  'format',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
]);

/** Appends ajv's error object (schemaPath left empty: nothing reads it) to the validator's list, or starts it. */
export function pushError(
  list: ValidatorError[] | null,
  instancePath: string,
  keyword: string,
  params: Record<string, unknown>,
  message?: string,
): ValidatorError[] {
  const e = { instancePath, schemaPath: '', keyword, params, message: message ?? ajvMessage(keyword, params) };
  if (list === null) return [e];
  list.push(e);
  return list;
}
