/**
 * npm run build: writes serverless.yml's functions section from the declarations beside the handlers
 * (`<op>.schema.ts`, `<op>.trigger.ts`), compiles every endpoint's schema (ajv standalone, never at cold
 * start), writes the OpenAPI document from the same schemas, and bundles each function and the agent (production and
 * simulator builds) with esbuild.
 *   --schemas-only   only the generated functions section and specs (what typecheck and tests of handlers need)
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as esbuild from 'esbuild';
import { FUNCTIONS_YML, declaredFunctions, readRoutes } from './build/routes.ts';
import { alarmsYml, functionRoles, functionsYml, rolesIn } from './build/functions-yml.ts';
import { compileSpecs } from './build/compile-specs.ts';
import { compileTaskResults } from './build/compile-task-results.ts';
import { openapi } from './build/openapi.ts';
import { docsPage } from './build/docs-page.ts';
import { buildConsole } from './build/console.ts';
import { writeApiTypes } from './build/api-types.ts';
import { kyselyNoSchema } from './build/kysely-no-schema.ts';
import { kyselyNoDdl } from './build/kysely-no-ddl.ts';
import { pgCuts } from './build/pg-cuts.ts';
import { settingsLeftOut, settingsNoDocs } from './build/settings-no-docs.ts';
import { taskKindsNoSchemas } from './build/task-kinds-no-schemas.ts';
import { jsYamlLoadOnly } from './build/js-yaml-load-only.ts';
import { builtinsViaRequire, REQUIRE_BANNER } from './build/builtins-require.ts';
import { middyStatusCodes } from './build/middy-status-codes.ts';
import { bundlesLoadingResults, resultEntries, taskResultsBeside } from './build/task-results-beside.ts';
import { ipLibraryBeside, ipLibraryEntries } from './build/ip-library-beside.ts';
import { edgeYml, prodRefusedSettings } from './build/edge.ts';

const started = Date.now();
const schemasOnly = process.argv.includes('--schemas-only');
mkdirSync('.generated', { recursive: true });
const fns = await declaredFunctions();
// the roles follow from the bundles (below); until they are rebuilt, each function keeps the role it had
writeFileSync(FUNCTIONS_YML, functionsYml(fns, existsSync(FUNCTIONS_YML) ? rolesIn(readFileSync(FUNCTIONS_YML, 'utf8')) : undefined));
writeFileSync('.generated/alarms.yml', alarmsYml(fns));
// the console's CloudFront security headers, and the settings a production template refuses (serverless.yml)
writeFileSync('.generated/edge.yml', edgeYml());
writeFileSync('.generated/prod-refused.json', `${JSON.stringify(prodRefusedSettings())}\n`);
const routes = readRoutes();
const schemas = await compileSpecs(routes);
compileTaskResults();
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
writeFileSync('.generated/openapi.json', JSON.stringify(openapi(routes, schemas, pkg.version), null, 2));
// the console's and the CLI's API types follow the same document (typecheck runs this step too)
writeApiTypes();

if (!schemasOnly) {
  // dist/ is overwritten in place, never emptied: a running serverless-offline may be reading it.
  const modules = fns.map((f) => f.module);
  const common: esbuild.BuildOptions = {
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: true,
    sourcemap: true,
    // The map stays beside the bundle, in its package, and is read only when a 500's stack is logged
    // (shared/log/mapped-stack.ts): Node's --enable-source-maps would parse it on every cold start (≈ 6–8 ms of
    // ≈ 70 ms here). Without embedded sources it is 3× smaller (notifications/count: 1151 KB → 358 KB); traces
    // still map to file:line.
    sourcesContent: false,
    legalComments: 'none',
    // CommonJS dependencies (pg) call require() for node builtins; give the ESM bundle a real one.
    banner: { js: REQUIRE_BANNER },
    external: ['pg-native', 'cloudflare:sockets'],
    metafile: true,
    logLevel: 'warning',
    plugins: [builtinsViaRequire],
  };
  // Function bundles leave `@aws-sdk/*` out: the nodejs24.x Lambda runtime ships SDK v3 (ESM imports of it
  // resolve there since nodejs18.x), and locally serverless-offline resolves it from node_modules. Measured
  // (esbuild metafile, notifications/count + SQSClient + SendMessageCommand): bundled 701 KB — @smithy/core
  // 200 KB, @aws-sdk/* 143 KB, bowser 34 KB — against the (then) 300 KB budget; external 245 KB, as without the queue.
  // kysely (149 KB) + pg (≈ 80 KB) are the floor: kysely is already tree-shaken (sideEffects: false), but its
  // `Kysely` class reaches the query compiler and every builder. Cold start: a static import of the SDK from
  // node_modules costs ≈ +100 ms here, so enqueueing code should `await import('@aws-sdk/client-sqs')` lazily.
  // The agent bundles what it imports: it runs on hosts without node_modules.
  const fn = await esbuild.build({
    ...common,
    external: [...common.external!, '@aws-sdk/*'],
    plugins: [
      middyStatusCodes,
      ...common.plugins!,
      kyselyNoSchema,
      kyselyNoDdl,
      ...pgCuts,
      settingsNoDocs,
      taskKindsNoSchemas,
      jsYamlLoadOnly,
      taskResultsBeside,
      ipLibraryBeside,
    ],
    entryPoints: Object.fromEntries(modules.map((m) => [m, `${m}.ts`])),
    outdir: 'dist',
  });
  // each task kind's result validator, beside every function that loads one when it finishes a task of that kind,
  // and ipaddr.js beside every function that loads it on use
  await esbuild.build({
    ...common,
    plugins: [middyStatusCodes, ...common.plugins!],
    entryPoints: { ...resultEntries(bundlesLoadingResults(fn.metafile!)), ...ipLibraryEntries(fn.metafile!) },
    outdir: 'dist',
  });
  // a function that names a setting the table left out of its bundle would fail at run time: stop here instead
  for (const m of modules) {
    const named = settingsLeftOut(readFileSync(`dist/${m}.js`, 'utf8'));
    if (named.length)
      throw new Error(`${m} reads ${named.join(', ')}, which the settings table does not list for functions (readers): add 'functions' to its readers`);
  }
  // each function's IAM role follows from what its bundle holds (the dispatcher: it sends task messages)
  writeFileSync(
    FUNCTIONS_YML,
    functionsYml(
      fns,
      functionRoles(fns, (m) => Object.keys(fn.metafile!.outputs[`dist/${m}.js`]?.inputs ?? {})),
    ),
  );
  // The host conformance kit (dist/agent/host-check.js) is bundled the same way: an operator runs it with Node alone.
  // Two agent bundles of the same agent code: dist/agent/agent.js (what hosts run: the local and ssh executors
  // only) and dist/simulator/agent.js (the agent plus the host simulator, for npm start and the tests). Built
  // separately, so the production bundle holds nothing from simulator/.
  const agentEntries = { 'agent/host-check': 'agent/check/main.ts', 'simulator/agent': 'scripts/stack/simulated-agent.ts' };
  // ssh2 (node-ssh) tries optional native addons (sshcrypto, cpu-features) inside try/catch and falls back to
  // pure JS: leave them out of the bundle, so hosts need no compiler and no node_modules. Its CommonJS also
  // reads __dirname, which an ESM bundle must define.
  const cjsPaths =
    "import{fileURLToPath as __fu}from'node:url';import{dirname as __dn}from'node:path';const __filename=__fu(import.meta.url);const __dirname=__dn(__filename);";
  const entryPoints = Object.fromEntries(Object.entries(agentEntries).filter(([, src]) => existsSync(src)));
  if (Object.keys(entryPoints).length) {
    await esbuild.build({ ...common, banner: { js: common.banner!.js + cjsPaths }, external: [...common.external!, '*.node'], entryPoints, outdir: 'dist' });
  }
  // The production agent is code-split: what it imports lazily (the job handlers, ACME and node-forge, ssh2, the
  // doctor) sits in dist/agent/chunks/ and is read only when an operation needs it. Node keeps the source of
  // every module it loads: one 2 MB file held ≈ 17 MiB more RSS at start than the 335 KB entry chunk does
  // (Node 24, --lite-mode). Hosts install the directory: agent.js and chunks/.
  if (existsSync('agent/main.ts')) {
    const agent = await esbuild.build({
      ...common,
      banner: { js: common.banner!.js + cjsPaths },
      external: [...common.external!, '*.node'],
      entryPoints: { 'agent/agent': 'agent/main.ts' },
      splitting: true,
      chunkNames: 'agent/chunks/[name]-[hash]',
      outdir: 'dist',
    });
    // chunks of earlier builds go (their names carry their content's hash)
    const current = new Set(Object.keys(agent.metafile!.outputs).map((f) => basename(f)));
    for (const f of existsSync('dist/agent/chunks') ? readdirSync('dist/agent/chunks') : [])
      if (!current.has(f) && !current.has(f.replace(/\.map$/, ''))) rmSync(join('dist/agent/chunks', f));
  }
  // the hostmgr CLI: one file with the OpenAPI document inside, runnable wherever Node runs (`bin` in package.json)
  await esbuild.build({
    ...common,
    banner: { js: `#!/usr/bin/env node\n${common.banner!.js}` },
    sourcemap: false,
    entryPoints: { 'cli/hostmgr': 'cli/main.ts' },
    outdir: 'dist',
  });
  chmodSync('dist/cli/hostmgr.js', 0o755);
  mkdirSync('dist', { recursive: true });
  writeFileSync('dist/package.json', '{"type":"module"}\n');
  // E25's neighbour GET /api/openapi.json reads its document from beside its bundle (functions/meta/openapi.ts)
  mkdirSync('dist/functions/meta', { recursive: true });
  writeFileSync('dist/functions/meta/openapi.json', JSON.stringify(JSON.parse(readFileSync('.generated/openapi.json', 'utf8'))));
  // the API reference page (GET /api/docs) reads its files, Swagger UI's among them, from beside its bundle too
  writeFileSync('dist/functions/meta/docs.json', JSON.stringify(docsPage()));
  // the web console: dist/console/ (S3 when deployed) and its files beside functions/meta/console for npm start
  const ui = await buildConsole();
  console.log(`web console: main.js ${(ui.jsBytes / 1024).toFixed(1)} KB, ${(ui.jsGzipBytes / 1024).toFixed(1)} KB gzip`);
  const sizes = Object.entries(fn.metafile!.outputs).filter(([f]) => f.endsWith('.js'));
  const biggest = sizes.sort((a, b) => b[1].bytes - a[1].bytes)[0];
  console.log(`built ${modules.length} functions in ${Date.now() - started} ms; largest ${biggest?.[0]} ${(biggest?.[1].bytes / 1024).toFixed(1)} KB`);
} else {
  console.log(`compiled ${schemas.size} endpoint specs in ${Date.now() - started} ms`);
}
