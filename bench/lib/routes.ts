import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRoutes, type RouteDef } from '#scripts/build/routes';
import type { CompiledSpec } from '#http/spec';

export interface BuiltFunction {
  module: string;
  /** absolute path of dist/<module>.js */
  bundle: string;
  bytes: number;
  /** the first route that reaches it (a function may serve several) */
  route: RouteDef;
}

/** Every HTTP function of the generated functions section with its built bundle (those not built are left out). */
export function builtFunctions(): BuiltFunction[] {
  const seen = new Map<string, BuiltFunction>();
  for (const r of readRoutes()) {
    if (seen.has(r.module)) continue;
    const bundle = resolve('dist', `${r.module}.js`);
    if (!existsSync(bundle)) continue;
    seen.set(r.module, { module: r.module, bundle, bytes: statSync(bundle).size, route: r });
  }
  return [...seen.values()];
}

/** The compiled spec of a function (role, takesBody…), or null for functions without a schema. */
export async function compiledSpec(module: string): Promise<CompiledSpec | null> {
  const file = resolve('.generated/spec', `${module.replace(/^functions\//, '')}.js`);
  if (!existsSync(file)) return null;
  return ((await import(pathToFileURL(file).href)) as { default: CompiledSpec }).default;
}

export const distFile = (module: string) => join('dist', `${module}.js`);
