import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

/** One function of serverless.yml, as read from `functions/<area>/functions.yml`. */
export interface RouteDef {
  /** serverless function name */
  name: string;
  /** `functions/<area>/<op>` (no extension): the source, the bundle's name and the spec's name */
  module: string;
  method: string;
  path: string;
}

interface FunctionDef {
  name: string;
  module: string;
  events?: Array<{ httpApi?: { method: string; path: string } | string }>;
}

/** Every function of every `functions/<area>/functions.yml`, in area order. */
function readFunctions(root: string): FunctionDef[] {
  const dir = join(root, 'functions');
  const fns: FunctionDef[] = [];
  for (const area of readdirSync(dir).sort()) {
    const file = join(dir, area, 'functions.yml');
    if (!existsSync(file)) continue;
    const doc = (YAML.parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, { handler: string; events?: FunctionDef['events'] }>;
    for (const [name, fn] of Object.entries(doc)) {
      const m = /^dist\/(functions\/.+)\.handler$/.exec(fn.handler);
      if (!m) throw new Error(`${file}: ${name}.handler must look like dist/functions/<area>/<op>.handler (got ${fn.handler})`);
      fns.push({ name, module: m[1], events: fn.events });
    }
  }
  return fns;
}

/**
 * Every function's module (`functions/<area>/<op>`), also those without an HTTP route (scheduled ones, e.g.
 * tasks-sweep): all of them are bundled.
 */
export function readFunctionModules(root = process.cwd()): string[] {
  return [...new Set(readFunctions(root).map((f) => f.module))];
}

/**
 * The functions of the service. serverless.yml includes every `functions/<area>/functions.yml`, so those
 * files are the one list of endpoints; the build, the OpenAPI document and the tests read them here.
 */
export function readRoutes(root = process.cwd()): RouteDef[] {
  return readFunctions(root).flatMap(({ name, module, events }) =>
    (events ?? []).flatMap((ev) => {
      if (!ev.httpApi) return [];
      const h = typeof ev.httpApi === 'string' ? { method: '*', path: ev.httpApi } : ev.httpApi;
      return [{ name, module, method: h.method.toUpperCase(), path: h.path }];
    }),
  );
}
