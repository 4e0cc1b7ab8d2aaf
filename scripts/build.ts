/**
 * npm run build: compiles every endpoint's schema (ajv standalone, never at cold start), writes the
 * OpenAPI document from the same schemas, and bundles each function and the agent with esbuild.
 *   --schemas-only   only the generated specs (what typecheck and tests of handlers need)
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { readRoutes } from './build/routes.ts';
import { compileSpecs } from './build/compile-specs.ts';
import { openapi } from './build/openapi.ts';

const started = Date.now();
const schemasOnly = process.argv.includes('--schemas-only');
mkdirSync('.generated', { recursive: true });
const routes = readRoutes();
const schemas = await compileSpecs(routes);
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
writeFileSync('.generated/openapi.json', JSON.stringify(openapi(routes, schemas, pkg.version), null, 2));

if (!schemasOnly) {
  // dist/ is overwritten in place, never emptied: a running serverless-offline may be reading it.
  const modules = [...new Set(routes.map((r) => r.module))];
  const common: esbuild.BuildOptions = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    // CommonJS dependencies (pg) call require() for node builtins; give the ESM bundle a real one.
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
    external: ['pg-native', 'cloudflare:sockets'],
    metafile: true,
    logLevel: 'warning',
  };
  const fn = await esbuild.build({ ...common, entryPoints: Object.fromEntries(modules.map((m) => [m, `${m}.ts`])), outdir: 'dist' });
  const agentEntry = 'agent/main.ts';
  if (existsSync(agentEntry)) await esbuild.build({ ...common, entryPoints: { 'agent/agent': agentEntry }, outdir: 'dist' });
  mkdirSync('dist', { recursive: true });
  writeFileSync('dist/package.json', '{"type":"module"}\n');
  const sizes = Object.entries(fn.metafile!.outputs).filter(([f]) => f.endsWith('.js'));
  const biggest = sizes.sort((a, b) => b[1].bytes - a[1].bytes)[0];
  console.log(`built ${modules.length} functions in ${Date.now() - started} ms; largest ${biggest?.[0]} ${(biggest?.[1].bytes / 1024).toFixed(1)} KB`);
} else {
  console.log(`compiled ${schemas.size} endpoint specs in ${Date.now() - started} ms`);
}
