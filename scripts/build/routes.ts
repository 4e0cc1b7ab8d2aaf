import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { load } from 'js-yaml';
import type { EndpointSchema } from '#http/spec';
import type { Trigger } from '#shared/trigger';

/** serverless.yml's functions section, written by the build from the declarations (serverless.yml includes it). */
export const FUNCTIONS_YML = '.generated/functions.yml';

/** One HTTP route of serverless.yml's functions (the catch-all has method and path `*`). */
export interface RouteDef {
  /** serverless function name */
  name: string;
  /** `functions/<area>/<op>` (no extension): the source, the bundle's name and the spec's name */
  module: string;
  method: string;
  path: string;
}

/**
 * One function as declared beside its handler `functions/<area>/<op>.ts`: an endpoint by `<op>.schema.ts`
 * (`schema`, with its method and route), any other function by `<op>.trigger.ts` (`trigger`). Exactly one each.
 */
export interface FunctionDef {
  /** `<area>-<op>`: the serverless function name */
  name: string;
  module: string;
  schema?: EndpointSchema;
  trigger?: Trigger;
}

async function exported<T>(file: string, name: string): Promise<T> {
  const mod = (await import(pathToFileURL(file).href)) as Record<string, T | undefined>;
  if (!mod[name]) throw new Error(`${file} must export \`${name}\``);
  return mod[name]!;
}

/** The `{name}` segments of a route must be exactly the properties of the schema's `path`. */
function checkPathParams(file: string, s: EndpointSchema): void {
  const inRoute = [...s.route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
  const inSchema = Object.keys((s.path as { properties?: object } | undefined)?.properties ?? {}).sort();
  if (inRoute.join() !== inSchema.join()) throw new Error(`${file}: route ${s.route} has parameters [${inRoute}] but \`path\` validates [${inSchema}]`);
}

/**
 * Every function of the service, in area then op order. A handler (`export const handler`) without a
 * declaration, a declaration without a handler, a schema without method or route, and two functions on one
 * route all fail the build, so the routes cannot drift from the schemas.
 */
export async function declaredFunctions(root = process.cwd()): Promise<FunctionDef[]> {
  const fns: FunctionDef[] = [];
  const routeKeys = new Map<string, string>();
  for (const area of readdirSync(join(root, 'functions')).sort()) {
    const dir = join(root, 'functions', area);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .sort();
    const ops = new Set(files.map((f) => f.replace(/(\.schema|\.trigger)?\.ts$/, '')));
    for (const op of ops) {
      const file = (suffix: string) => join(dir, `${op}${suffix}`);
      const hasSchema = existsSync(file('.schema.ts'));
      const hasTrigger = existsSync(file('.trigger.ts'));
      const isHandler = existsSync(file('.ts')) && /^export const handler\b/m.test(readFileSync(file('.ts'), 'utf8'));
      if (!hasSchema && !hasTrigger) {
        if (isHandler) throw new Error(`${file('.ts')} exports a handler but has neither ${op}.schema.ts nor ${op}.trigger.ts`);
        continue; // a helper module of the area
      }
      if (hasSchema && hasTrigger) throw new Error(`${dir}: ${op} has both a schema and a trigger; an endpoint's route is in its schema`);
      if (!isHandler) throw new Error(`${file(hasSchema ? '.schema.ts' : '.trigger.ts')} declares a function but ${op}.ts exports no handler`);
      const fn: FunctionDef = { name: `${area}-${op}`, module: `functions/${area}/${op}` };
      let key: string | undefined;
      if (hasSchema) {
        const s = (fn.schema = await exported<EndpointSchema>(file('.schema.ts'), 'schema'));
        if (!s.method || !s.route?.startsWith('/api/')) throw new Error(`${file('.schema.ts')} must declare \`method\` and \`route\` (/api/…)`);
        checkPathParams(file('.schema.ts'), s);
        key = `${s.method} ${s.route}`;
      } else {
        const t = (fn.trigger = await exported<Trigger>(file('.trigger.ts'), 'trigger'));
        if ('route' in t) key = t.route;
        else if (!('schedule' in t) && !('pages' in t))
          throw new Error(`${file('.trigger.ts')} must declare \`route: '$default'\`, \`pages\` or a \`schedule\``);
      }
      const keys = fn.trigger && 'pages' in fn.trigger ? fn.trigger.pages.map((p) => `GET ${p}`) : key ? [key] : [];
      for (const k of keys) {
        if (routeKeys.has(k)) throw new Error(`${fn.name} and ${routeKeys.get(k)} both declare ${k}`);
        routeKeys.set(k, fn.name);
      }
      fns.push(fn);
    }
  }
  return fns;
}

/** The HTTP routes of the generated functions section: what serverless deploys and serverless-offline serves. */
export function readRoutes(root = process.cwd()): RouteDef[] {
  const file = join(root, FUNCTIONS_YML);
  if (!existsSync(file)) throw new Error(`${FUNCTIONS_YML} is missing: run \`npm run build\` first`);
  const doc = load(readFileSync(file, 'utf8')) as Record<string, { handler: string; events?: Array<{ httpApi?: { method: string; path: string } | string }> }>;
  return Object.entries(doc).flatMap(([name, fn]) =>
    (fn.events ?? []).flatMap((ev) => {
      if (!ev.httpApi) return [];
      const h = typeof ev.httpApi === 'string' ? { method: '*', path: ev.httpApi } : ev.httpApi;
      return [{ name, module: fn.handler.replace(/^dist\//, '').replace(/\.handler$/, ''), method: h.method.toUpperCase(), path: h.path }];
    }),
  );
}
