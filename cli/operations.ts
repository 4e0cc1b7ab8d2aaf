/**
 * The API's operations as the OpenAPI document describes them (the build writes it from the endpoints'
 * schemas: .generated/openapi.json), reduced to what a command needs: method, route, parameters with their
 * JSON schemas, the request body's properties. The document is the contract: the CLI has no other list.
 */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  description?: string;
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** operationId, e.g. jail-migrate: the generated command's name */
  id: string;
  method: string;
  route: string;
  summary: string;
  role: string;
  pathParams: Parameter[];
  query: Parameter[];
  /** the body's properties, when the body is an object */
  body: JsonSchema | null;
  bodyRequired: boolean;
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        summary?: string;
        'x-required-role'?: string;
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
      }
    >
  >;
}

export function operationsOf(doc: unknown): Operation[] {
  const out: Operation[] = [];
  for (const [route, methods] of Object.entries((doc as OpenApiDocument).paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const body = op.requestBody?.content['application/json']?.schema ?? null;
      out.push({
        id: op.operationId,
        method: method.toUpperCase(),
        route,
        summary: op.summary ?? '',
        role: op['x-required-role'] ?? '',
        pathParams: params.filter((p) => p.in === 'path'),
        query: params.filter((p) => p.in === 'query'),
        body,
        bodyRequired: Boolean(op.requestBody?.required),
      });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** camelCase → kebab-case option name: targetNodeUuid → target-node-uuid */
export const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const typeOf = (s: JsonSchema): string =>
  Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? 'string') : (s.type ?? (s.enum ? typeof s.enum[0] : 'string'));

/**
 * A command-line value as the schema types it: integers and numbers parsed strictly, booleans as
 * true/false, objects and arrays as JSON (an array of scalars may also be given comma-separated).
 */
export function coerce(name: string, raw: string, schema: JsonSchema): unknown {
  const type = typeOf(schema);
  const bad = (what: string) => new Error(`--${kebab(name)}: expected ${what}, got "${raw}"`);
  switch (type) {
    case 'integer':
      if (!/^-?\d+$/.test(raw)) throw bad('an integer');
      return Number(raw);
    case 'number':
      if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw bad('a number');
      return Number(raw);
    case 'boolean':
      if (raw === 'true' || raw === '') return true;
      if (raw === 'false') return false;
      throw bad('true or false');
    case 'array':
      if (raw.trim().startsWith('[')) return parseJson(name, raw);
      return raw.split(',').map((part) => coerce(name, part, schema.items ?? {}));
    case 'object':
      return parseJson(name, raw);
    default:
      if (schema.enum && !schema.enum.includes(raw)) throw bad(`one of ${schema.enum.join(', ')}`);
      return raw;
  }
}

function parseJson(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new Error(`--${kebab(name)}: expected JSON, got "${raw}"`);
  }
}

/** The value hint shown in --help: <integer>, <true|false>, <a|b|c>, <json> … */
export function hint(schema: JsonSchema): string {
  if (schema.enum) return `<${schema.enum.join('|')}>`;
  const type = typeOf(schema);
  if (type === 'boolean') return '[true|false]';
  if (type === 'object') return '<json>';
  if (type === 'array') return '<a,b,…|json>';
  return `<${type}>`;
}
