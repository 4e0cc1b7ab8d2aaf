import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import YAML from 'yaml';
import { FUNCTIONS_YML, readRoutes } from '#scripts/build/routes';

/**
 * What README promises `serverless deploy` creates, checked on the artifacts `serverless package` builds
 * (no AWS account needed): one small zip per function holding only its own bundle, a nodejs24.x Lambda
 * each, an HTTP API route per endpoint plus the catch-all, the sweeper's schedule, and SQS permissions.
 */
const run = promisify(execFile);
let dir: string;
let template: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };

// the functions section the build generated from the schemas and triggers (test/unit/routes.test.ts checks it)
const declared = () =>
  Object.entries(YAML.parse(readFileSync(FUNCTIONS_YML, 'utf8')) as Record<string, { handler: string }>).map(([name, fn]) => ({
    name,
    bundle: fn.handler.replace(/\.handler$/, '.js'),
  }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hm-package-'));
  await run(process.execPath, ['node_modules/serverless/bin/serverless.js', 'package', '--stage', 'ci', '--package', dir], {
    env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'eu-west-1' },
    timeout: 120_000,
  });
  template = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
}, 150_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resources = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type);

test('one zip per function, holding only its bundle, its source map, its data file if it has one, and dist/package.json', async () => {
  const fns = declared();
  expect(fns.length).toBeGreaterThan(30);
  for (const fn of fns) {
    const zip = await JSZip.loadAsync(readFileSync(join(dir, `${fn.name}.zip`)));
    const files = Object.values(zip.files).filter((f) => !f.dir).map((f) => f.name).sort();
    const data = fn.bundle.replace(/\.js$/, '.json');
    expect(files).toEqual([fn.bundle, `${fn.bundle}.map`, ...(existsSync(data) ? [data] : []), 'dist/package.json'].sort());
  }
  // GET /api/openapi.json reads its document from beside its bundle
  const openapi = await JSZip.loadAsync(readFileSync(join(dir, 'meta-openapi.zip')));
  expect(JSON.parse(await openapi.file('dist/functions/meta/openapi.json')!.async('string')).openapi).toBe('3.1.0');
  // and the API reference page its files, Swagger UI's among them
  const docs = await JSZip.loadAsync(readFileSync(join(dir, 'meta-docs.zip')));
  expect(Object.keys(JSON.parse(await docs.file('dist/functions/meta/docs.json')!.async('string')))).toEqual(expect.arrayContaining(['index.html', 'swagger-ui-bundle.js']));
});

test('a nodejs24.x Lambda per function and an HTTP API route per endpoint, plus the catch-all', () => {
  const lambdas = resources('AWS::Lambda::Function');
  expect(lambdas).toHaveLength(declared().length);
  for (const l of lambdas) expect(l.Properties.Runtime).toBe('nodejs24.x');
  // the suite itself runs on the Node the functions are deployed to (npm ci installs it)
  expect(process.versions.node.split('.')[0]).toBe('24');
  const routeKeys = resources('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey).sort();
  const expected = readRoutes().map((r) => (r.method === '*' ? '$default' : `${r.method} ${r.path}`)).sort();
  expect(routeKeys).toEqual(expected);
  expect(routeKeys).toContain('$default');
});

test('the sweeper is scheduled and the functions may use the node queues', () => {
  expect(resources('AWS::Events::Rule').length).toBeGreaterThanOrEqual(1);
  const policy = JSON.stringify(resources('AWS::IAM::Role')[0].Properties.Policies);
  for (const action of ['sqs:CreateQueue', 'sqs:SendMessage']) expect(policy).toContain(action);
});

test('the HTTP API stage throttles every route, and the functions get the failed-authentication limits', () => {
  const [stage] = resources('AWS::ApiGatewayV2::Stage');
  expect(stage.Properties.DefaultRouteSettings).toEqual({ DetailedMetricsEnabled: false, ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
  const [fn] = resources('AWS::Lambda::Function');
  expect(fn.Properties.Environment.Variables).toMatchObject({ HM_AUTH_FAIL_LIMIT: '10', HM_AUTH_FAIL_WINDOW_S: '60', HM_AUTH_FAIL_EXEMPT_CIDRS: '' });
});
