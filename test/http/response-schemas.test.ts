// @tier fast
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointSchema } from '#http/spec';

/**
 * Every endpoint declares the `data` it answers, so the OpenAPI document types every response and the suite's
 * HTTP helper checks every answer against it (test/helpers/response-schemas.ts). An endpoint without one is
 * listed here; so is one whose declared shape did not reach the built document.
 */
const schemaFiles = readdirSync('functions')
  .flatMap((area) =>
    readdirSync(join('functions', area))
      .filter((f) => f.endsWith('.schema.ts'))
      .map((f) => join('functions', area, f)),
  )
  .sort();
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, { content: { 'application/json': { schema: { allOf?: unknown[] } } } }> }>>;
  components: { schemas: Record<string, unknown> };
}

const declared = schemaFiles.map((file) => ({ file, schema: require(join(process.cwd(), file)).schema as EndpointSchema }));

describe('response schemas', () => {
  test('the schema files are found', () => {
    expect(declared.length).toBeGreaterThan(50);
  });

  test('every endpoint declares the data of its success response', () => {
    const missing = declared.filter((d) => d.schema.data === undefined).map((d) => `${d.schema.method} ${d.schema.route} (${d.file})`);
    expect(missing).toEqual([]);
  });

  test('every declared errorData names a message code of the endpoint’s responses', () => {
    const stray = declared.flatMap((d) => {
      const codes = new Set(Object.values(d.schema.responses ?? {}).flatMap((m) => m.split(/\s*[|/,]\s*/)));
      return Object.keys(d.schema.errorData ?? {})
        .filter((c) => !codes.has(c))
        .map((c) => `${d.file}: ${c}`);
    });
    expect(stray).toEqual([]);
  });

  test('the built OpenAPI document carries each declared data', () => {
    const doc = JSON.parse(readFileSync('.generated/openapi.json', 'utf8')) as OpenApi;
    // the document names shared shapes (`$ref` to a component); compared here with their references resolved
    const resolved = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(resolved);
      if (!x || typeof x !== 'object') return x;
      const ref = (x as { $ref?: string }).$ref;
      if (ref?.startsWith('#/components/schemas/')) return resolved(doc.components.schemas[ref.slice('#/components/schemas/'.length)]);
      return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, resolved(v)]));
    };
    const absent = declared
      .filter((d) => d.schema.data !== undefined)
      .filter((d) => {
        const op = doc.paths[d.schema.route]?.[d.schema.method.toLowerCase()];
        const success = Object.entries(op?.responses ?? {}).find(([code]) => Number(code) < 300)?.[1];
        const data = (success?.content['application/json'].schema.allOf?.[1] as { properties?: { data?: unknown } } | undefined)?.properties?.data;
        return JSON.stringify(resolved(data)) !== JSON.stringify(d.schema.data);
      })
      .map((d) => `${d.schema.method} ${d.schema.route}`);
    expect(absent).toEqual([]);
  });
});
