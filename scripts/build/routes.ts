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

/**
 * Every function's module (`functions/<area>/<op>`), also those without an HTTP route (scheduled ones, e.g.
 * tasks-sweep): all of them are bundled.
 */
export function readFunctionModules(root = process.cwd()): string[] {
  const dir = join(root, 'functions');
  const modules: string[] = [];
  for (const area of readdirSync(dir).sort()) {
    const file = join(dir, area, 'functions.yml');
    if (!existsSync(file)) continue;
    const doc = (YAML.parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, { handler: string }>;
    for (const fn of Object.values(doc)) {
      const m = /^dist\/(functions\/.+)\.handler$/.exec(fn.handler);
      if (m) modules.push(m[1]);
    }
  }
  return modules;
}

/**
 * The functions of the service. serverless.yml includes every `functions/<area>/functions.yml`, so those
 * files are the one list of endpoints; the build, the OpenAPI document and the tests read them here.
 */
export function readRoutes(root = process.cwd()): RouteDef[] {
  const dir = join(root, 'functions');
  const routes: RouteDef[] = [];
  for (const area of readdirSync(dir).sort()) {
    const file = join(dir, area, 'functions.yml');
    if (!existsSync(file)) continue;
    const doc = (YAML.parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, { handler: string; events?: Array<{ httpApi?: { method: string; path: string } | string }> }>;
    for (const [name, fn] of Object.entries(doc)) {
      const m = /^dist\/(functions\/.+)\.handler$/.exec(fn.handler);
      if (!m) throw new Error(`${file}: ${name}.handler must look like dist/functions/<area>/<op>.handler (got ${fn.handler})`);
      for (const ev of fn.events ?? []) {
        if (!ev.httpApi) continue;
        const h = typeof ev.httpApi === 'string' ? { method: '*', path: ev.httpApi } : ev.httpApi;
        routes.push({ name, module: m[1], method: h.method.toUpperCase(), path: h.path });
      }
    }
  }
  return routes;
}
