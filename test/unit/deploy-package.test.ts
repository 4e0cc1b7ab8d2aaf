import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { load } from 'js-yaml';
import { FUNCTIONS_YML, readRoutes } from '#scripts/build/routes';
import { lambdaLogicalId } from '#scripts/build/functions-yml';
import { prodRefusedSettings } from '#scripts/build/edge';
import { SECURITY_HEADERS } from '#http/security-headers';
import { EDGE_SECRET_HEADER } from '#http/client-address';
import { staticFiles } from '#http/static-files';
import { nodeDeadLetterQueueName } from '#shared/queue/config';
import { TASK_KINDS } from '#shared/agent-api/task-kinds';

/**
 * What README promises `serverless deploy` creates, checked on the artifacts `serverless package` builds
 * (no AWS account needed): one small zip per function holding only its own bundle, a nodejs24.x Lambda
 * each, an HTTP API route per endpoint plus the catch-all, the sweeper's schedule, least-privilege roles, the
 * database URL from SSM, the VPC parameters, alarms and log retention.
 */
const run = promisify(execFile);
// what `serverless` needs to resolve the template without an AWS account
const slsEnv = { SLS_TELEMETRY_DISABLED: '1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'eu-west-1' };
/** The address allow-lists, none set: what a test stack's shell may hold is set per case below. */
const withoutAllowLists = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^HM_.*_CIDRS$|^HM_PROD_ALLOW_SETTINGS$/.test(k)));
let dir: string;
let template: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };

// the functions section the build generated from the schemas and triggers (test/unit/routes.test.ts checks it)
const declared = () =>
  Object.entries(load(readFileSync(FUNCTIONS_YML, 'utf8')) as Record<string, { handler: string }>).map(([name, fn]) => ({
    name,
    bundle: fn.handler.replace(/\.handler$/, '.js'),
  }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hm-package-'));
  await run(process.execPath, ['node_modules/serverless/bin/serverless.js', 'package', '--stage', 'ci', '--package', dir], {
    // a deployer's shell may well hold a DATABASE_URL: it must not reach the template
    env: {
      ...process.env,
      DATABASE_URL: 'postgres://u:secret@db.example/x',
      ...slsEnv,
    },
    timeout: 300_000,
  });
  template = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
}, 330_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resources = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type);

/** The modules the build writes beside a bundle for it to import on demand (`<op>.result.<kind>.js`, `<op>.ipaddr.js` and maps). */
const besideBundle = (bundle: string) =>
  readdirSync(dirname(bundle))
    .filter((n) => n.startsWith(`${basename(bundle, '.js')}.result.`) || n.startsWith(`${basename(bundle, '.js')}.ipaddr.`))
    .map((n) => `${dirname(bundle)}/${n}`);

test('one zip per function, holding only its bundle, its source map, its data file or the modules it loads if it has them, and dist/package.json', async () => {
  const fns = declared();
  expect(fns.length).toBeGreaterThan(30);
  for (const fn of fns) {
    const zip = await JSZip.loadAsync(readFileSync(join(dir, `${fn.name}.zip`)));
    const files = Object.values(zip.files)
      .filter((f) => !f.dir)
      .map((f) => f.name)
      .sort();
    const data = fn.bundle.replace(/\.js$/, '.json');
    expect(files).toEqual([fn.bundle, `${fn.bundle}.map`, ...(existsSync(data) ? [data] : []), ...besideBundle(fn.bundle), 'dist/package.json'].sort());
  }
  // the finish route loads each task kind's result validator from beside its bundle (scripts/build/task-results-beside.ts)
  const finish = await JSZip.loadAsync(readFileSync(join(dir, 'agent-task-finish.zip')));
  for (const kind of TASK_KINDS) expect(finish.file(`dist/functions/agent/task-finish.result.${kind}.js`)).not.toBeNull();
  // and every function that may refuse a credential ipaddr.js for the failed-auth key (scripts/build/ip-library-beside.ts)
  const nodesList = await JSZip.loadAsync(readFileSync(join(dir, 'nodes-list.zip')));
  expect(nodesList.file('dist/functions/nodes/list.ipaddr.js')).not.toBeNull();
  // GET /api/openapi.json reads its document from beside its bundle
  const openapi = await JSZip.loadAsync(readFileSync(join(dir, 'meta-openapi.zip')));
  expect(JSON.parse(await openapi.file('dist/functions/meta/openapi.json')!.async('string')).openapi).toBe('3.1.0');
  // and the API reference page its files, Swagger UI's among them
  const docs = await JSZip.loadAsync(readFileSync(join(dir, 'meta-docs.zip')));
  expect(Object.keys(JSON.parse(await docs.file('dist/functions/meta/docs.json')!.async('string')))).toEqual(
    expect.arrayContaining(['index.html', 'swagger-ui-bundle.js']),
  );
});

test('a nodejs24.x Lambda per function and an HTTP API route per endpoint, plus the catch-all', () => {
  const lambdas = resources('AWS::Lambda::Function');
  expect(lambdas).toHaveLength(declared().length);
  for (const l of lambdas) expect(l.Properties.Runtime).toBe('nodejs24.x');
  // the suite itself runs on the Node the functions are deployed to (npm ci installs it)
  expect(process.versions.node.split('.')[0]).toBe('24');
  const routeKeys = resources('AWS::ApiGatewayV2::Route')
    .map((r) => r.Properties.RouteKey)
    .sort();
  const expected = readRoutes()
    .map((r) => (r.method === '*' ? '$default' : `${r.method} ${r.path}`))
    .sort();
  expect(routeKeys).toEqual(expected);
  expect(routeKeys).toContain('$default');
});

test('the sweeper is scheduled', () => {
  expect(resources('AWS::Events::Rule').length).toBeGreaterThanOrEqual(1);
});

/** Each function (by its serverless name) with its role's logical id and the actions that role allows. */
function functionRoles() {
  const actionsOf = (roleId: string) => {
    const role = template.Resources[roleId];
    const statements = (role.Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
    return { statements, actions: new Set<string>(statements.flatMap((st: any) => [st.Action].flat())), managed: role.Properties.ManagedPolicyArns ?? [] };
  };
  const byLogicalId = new Map(declared().map((fn) => [lambdaLogicalId(fn.name), fn]));
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => {
      const roleId = r.Properties.Role?.['Fn::GetAtt']?.[0] as string;
      return { fn: byLogicalId.get(id)!, roleId, ...actionsOf(roleId) };
    });
}

test('least privilege: a role per kind of function; only the dispatching functions may send, only registration may create queues, none may delete', () => {
  const fns = functionRoles();
  expect(fns.every((f) => f.fn && f.roleId)).toBe(true);
  // no default role shared by every function
  expect(Object.keys(template.Resources).filter((k) => k === 'IamRoleLambdaExecution')).toEqual([]);
  for (const f of fns) {
    // the bundle sends task messages exactly when it holds the SQS SendMessage command
    const sends = readFileSync(f.fn.bundle, 'utf8').includes('SendMessageCommand');
    expect({ fn: f.fn.name, send: f.actions.has('sqs:SendMessage') }).toEqual({ fn: f.fn.name, send: sends });
    expect({ fn: f.fn.name, create: f.actions.has('sqs:CreateQueue') }).toEqual({ fn: f.fn.name, create: f.fn.name === 'agent-register' });
    for (const a of f.actions) {
      expect(a).not.toMatch(/^sqs:(Delete|Purge|\*)|\*$/);
      expect(a).toMatch(/^(sqs|ssm|cloudwatch):/);
    }
    for (const st of f.statements) expect(JSON.stringify(st.Resource)).not.toBe('"*"');
    expect(f.managed).toEqual(['arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole']);
  }
  expect(fns.filter((f) => f.actions.has('sqs:SendMessage')).length).toBeGreaterThan(5);
  // no function makes alarms: the dead-letter queues share one alarm in the template
  expect(fns.filter((f) => [...f.actions].some((a) => a.startsWith('cloudwatch:'))).map((f) => f.fn.name)).toEqual([]);
});

test('the database URL is never a plain environment value: functions name an SSM parameter they may read', () => {
  for (const fn of resources('AWS::Lambda::Function')) {
    const vars = fn.Properties.Environment.Variables as Record<string, unknown>;
    // only the local stack's serverless-offline fills it (HM_LOCAL_DATABASE_URL); deployed it is empty
    expect(vars.DATABASE_URL).toBe('');
    expect(vars.HM_DATABASE_URL_PARAMETER).toBe('/hostmgr/ci/database-url');
    expect(JSON.stringify(vars)).not.toMatch(/postgres(ql)?:\/\//);
  }
  for (const f of functionRoles()) {
    const read = f.statements.find((st: any) => [st.Action].flat().includes('ssm:GetParameter'));
    expect(JSON.stringify(read?.Resource)).toContain(':parameter/hostmgr/ci/database-url');
  }
});

test('the functions run in the VPC the deploy names (subnets and security groups are parameters)', () => {
  const params = (template as any).Parameters;
  expect(params.HmSubnetIds.Type).toBe('List<AWS::EC2::Subnet::Id>');
  expect(params.HmSecurityGroupIds.Type).toBe('List<AWS::EC2::SecurityGroup::Id>');
  for (const fn of resources('AWS::Lambda::Function')) {
    expect(JSON.stringify(fn.Properties.VpcConfig.SubnetIds)).toContain('{"Ref":"HmSubnetIds"}');
    expect(JSON.stringify(fn.Properties.VpcConfig.SecurityGroupIds)).toContain('{"Ref":"HmSecurityGroupIds"}');
  }
});

test('alarms: every function errors alarm notifies the topic; one alarm watches every node dead-letter queue; logs expire', () => {
  const alarms = resources('AWS::CloudWatch::Alarm');
  const watched = alarms
    .filter((a) => a.Properties.MetricName === 'Errors')
    .map((a) => a.Properties.Dimensions[0].Value.Ref)
    .sort();
  const lambdas = Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id]) => id)
    .sort();
  expect(watched).toEqual(lambdas);
  for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: 'HmAlarmTopic' }]);
  expect(template.Resources.HmAlarmTopic.Type).toBe('AWS::SNS::Topic');
  // node queues come and go: one account-level alarm queries every dead-letter queue of the stage (not one
  // alarm per node, $0.10 a month each), so it takes in nodes as they register
  const dlq = alarms.filter((a) => a.Properties.MetricName !== 'Errors');
  expect(dlq).toHaveLength(1);
  const [query] = dlq[0].Properties.Metrics;
  expect(query.Expression).toBe(
    `SELECT MAX(ApproximateNumberOfMessagesVisible) FROM SCHEMA("AWS/SQS", QueueName) WHERE QueueName LIKE '${nodeDeadLetterQueueName('hostmgr-ci', '%')}'`,
  );
  expect(query.ReturnData).toBe(true);
  expect(dlq[0].Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
  expect(dlq[0].Properties.OKActions).toEqual([{ Ref: 'HmAlarmTopic' }]);
  for (const fn of resources('AWS::Lambda::Function')) expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('HM_DLQ_ALARMS');
  const groups = resources('AWS::Logs::LogGroup');
  expect(groups).toHaveLength(lambdas.length);
  for (const g of groups) expect(g.Properties.RetentionInDays).toBeGreaterThan(0);
});

test('the HTTP API stage throttles every route, and the functions get the failed-authentication limits', () => {
  const [stage] = resources('AWS::ApiGatewayV2::Stage');
  expect(stage.Properties.DefaultRouteSettings).toEqual({ DetailedMetricsEnabled: false, ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
  const [fn] = resources('AWS::Lambda::Function');
  expect(fn.Properties.Environment.Variables).toMatchObject({ HM_AUTH_FAIL_LIMIT: '10', HM_AUTH_FAIL_WINDOW_S: '60', HM_AUTH_FAIL_EXEMPT_CIDRS: '' });
});

test('the console: a private bucket read only by its CloudFront distribution, which serves index.html and routes /api/* uncached to the HTTP API', () => {
  const bucket = template.Resources.HmConsoleBucket;
  expect(bucket.Type).toBe('AWS::S3::Bucket');
  expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
    BlockPublicAcls: true,
    BlockPublicPolicy: true,
    IgnorePublicAcls: true,
    RestrictPublicBuckets: true,
  });
  expect(bucket.Properties.AccessControl).toBeUndefined();
  expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
  const policy = template.Resources.HmConsoleBucketPolicy;
  expect(policy.Properties.Bucket).toEqual({ Ref: 'HmConsoleBucket' });
  for (const st of policy.Properties.PolicyDocument.Statement) {
    // only CloudFront, only for this distribution, only reads
    expect(st.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(st.Action).toBe('s3:GetObject');
    expect(JSON.stringify(st.Condition.StringEquals['AWS:SourceArn'])).toContain('HmConsoleDistribution');
  }
  const [oac] = resources('AWS::CloudFront::OriginAccessControl');
  expect(oac.Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' });

  const [dist] = resources('AWS::CloudFront::Distribution');
  const cfg = dist.Properties.DistributionConfig;
  expect(cfg.DefaultRootObject).toBe('index.html');
  const origin = (id: string) => cfg.Origins.find((o: { Id: string }) => o.Id === id);
  expect(cfg.DefaultCacheBehavior.TargetOriginId).toBe('console');
  expect(origin('console').OriginAccessControlId).toEqual({ 'Fn::GetAtt': ['HmConsoleOriginAccessControl', 'Id'] });
  expect(JSON.stringify(origin('console').DomainName)).toContain('HmConsoleBucket');
  expect(cfg.DefaultCacheBehavior.ViewerProtocolPolicy).not.toBe('allow-all');

  const api = cfg.CacheBehaviors.filter((b: { PathPattern: string }) => b.PathPattern === '/api/*');
  expect(api).toHaveLength(1);
  expect(api[0].TargetOriginId).toBe('api');
  // the HTTP API of this stack (serverless names it HttpApi), over HTTPS
  expect(JSON.stringify(origin('api').DomainName)).toContain('{"Ref":"HttpApi"}');
  expect(template.Resources.HttpApi?.Type).toBe('AWS::ApiGatewayV2::Api');
  expect(origin('api').CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  expect([...api[0].AllowedMethods].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
  // CloudFront's managed policies: CachingDisabled, and AllViewerExceptHostHeader (Authorization, query and body reach the API)
  expect(api[0].CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
  expect(api[0].OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
  expect(api[0].ForwardedValues).toBeUndefined();
});

/** The headers a response-headers policy's SecurityHeadersConfig makes CloudFront send (lower-case names). */
function headersOf(config: Record<string, any>): Record<string, string> {
  const hsts = config.StrictTransportSecurity;
  return {
    'content-security-policy': config.ContentSecurityPolicy.ContentSecurityPolicy,
    'x-frame-options': config.FrameOptions.FrameOption,
    ...(config.ContentTypeOptions ? { 'x-content-type-options': 'nosniff' } : {}),
    'referrer-policy': config.ReferrerPolicy.ReferrerPolicy,
    'strict-transport-security': `max-age=${hsts.AccessControlMaxAgeSec}${hsts.IncludeSubdomains ? '; includeSubDomains' : ''}${hsts.Preload ? '; preload' : ''}`,
  };
}

test('the console and the API behind CloudFront get the security headers the local path sends', async () => {
  const policy = template.Resources.HmConsoleSecurityHeaders;
  expect(policy.Type).toBe('AWS::CloudFront::ResponseHeadersPolicy');
  const config = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
  // every header overrides what an origin sent
  for (const h of Object.values(config) as { Override: boolean }[]) expect(h.Override).toBe(true);
  // what a locally served page answers with (the console and the API reference: shared/http/static-files.ts)
  const pack = join(dir, 'pack.json');
  (await import('node:fs')).writeFileSync(pack, JSON.stringify({ 'index.html': { type: 'text/html', body: '<p>' } }));
  const local = (await staticFiles(new URL(`file://${pack}`), 'the page', 'GET /')({} as any)) as { headers: Record<string, string> };
  const { 'content-type': _type, 'cache-control': _cache, ...localSecurity } = local.headers;
  expect(localSecurity).toEqual(SECURITY_HEADERS);
  expect(headersOf(config)).toEqual(localSecurity);
  expect(Object.keys(localSecurity).sort()).toEqual(
    ['content-security-policy', 'referrer-policy', 'strict-transport-security', 'x-content-type-options', 'x-frame-options'].sort(),
  );
  expect(localSecurity['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(localSecurity['x-frame-options']).toBe('DENY');

  const cfg = resources('AWS::CloudFront::Distribution')[0].Properties.DistributionConfig;
  for (const behavior of [cfg.DefaultCacheBehavior, ...cfg.CacheBehaviors]) {
    expect(behavior.ResponseHeadersPolicyId).toEqual({ Ref: 'HmConsoleSecurityHeaders' });
  }
});

test('the distribution proves itself to the API with the generated edge secret, which the functions compare', () => {
  const secret = template.Resources.HmEdgeSecret;
  expect(secret.Type).toBe('AWS::SecretsManager::Secret');
  expect(secret.Properties.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
  expect(secret.Properties.SecretString).toBeUndefined();
  // the value is resolved by CloudFormation at deploy: the template holds only a reference to the secret
  const reference = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: 'HmEdgeSecret' }, ':SecretString}}']] };
  const cfg = resources('AWS::CloudFront::Distribution')[0].Properties.DistributionConfig;
  const api = cfg.Origins.find((o: { Id: string }) => o.Id === 'api');
  expect(api.OriginCustomHeaders).toHaveLength(1);
  expect(api.OriginCustomHeaders[0].HeaderName.toLowerCase()).toBe(EDGE_SECRET_HEADER);
  expect(api.OriginCustomHeaders[0].HeaderValue).toEqual(reference);
  // the console's S3 origin gets no secret
  expect(cfg.Origins.find((o: { Id: string }) => o.Id === 'console').OriginCustomHeaders).toBeUndefined();
  for (const fn of resources('AWS::Lambda::Function')) expect(fn.Properties.Environment.Variables.HM_EDGE_SECRET).toEqual(reference);
});

describe('a production stage refuses the address allow-lists unless the deploy names them', () => {
  test('the refused settings are every address allow-list the functions read, the test-only ones among them', () => {
    expect(prodRefusedSettings()).toEqual(
      expect.arrayContaining(['HM_AUTH_FAIL_EXEMPT_CIDRS', 'HM_PROBE_ALLOW_CIDRS', 'HM_ACME_ALLOW_CIDRS', 'HM_NOTIFY_ALLOW_CIDRS']),
    );
    expect(JSON.parse(readFileSync('.generated/prod-refused.json', 'utf8'))).toEqual(prodRefusedSettings());
  });

  const sls = (args: string[], env: Record<string, string>) =>
    run(process.execPath, ['node_modules/serverless/bin/serverless.js', ...args], {
      env: { ...withoutAllowLists(), ...slsEnv, ...env },
      timeout: 120_000,
    }).then(
      (out) => ({ ok: true, out: out.stdout, err: out.stderr }),
      // serverless prints its error to stdout or stderr depending on the command
      (e: { stdout: string; stderr: string }) => ({ ok: false, out: e.stdout, err: `${e.stdout}\n${e.stderr}` }),
    );

  test('`serverless package --stage prod` with an allow-list set in the shell builds no template, naming it and the way out', async () => {
    const out = join(dir, 'prod');
    const res = await sls(['package', '--stage', 'prod', '--package', out], { HM_AUTH_FAIL_EXEMPT_CIDRS: '0.0.0.0/0', HM_PROBE_ALLOW_CIDRS: '127.0.0.1' });
    expect(res.ok).toBe(false);
    expect(res.err).toContain('HM_AUTH_FAIL_EXEMPT_CIDRS, HM_PROBE_ALLOW_CIDRS are set in the environment');
    expect(res.err).toContain('HM_PROD_ALLOW_SETTINGS');
    expect(existsSync(join(out, 'cloudformation-template-update-stack.json'))).toBe(false);
    // `production` too, and naming one of two is not enough
    const partly = await sls(['print', '--stage', 'production', '--format', 'json'], {
      HM_AUTH_FAIL_EXEMPT_CIDRS: '0.0.0.0/0',
      HM_NOTIFY_ALLOW_CIDRS: '10.1.0.0/16',
      HM_PROD_ALLOW_SETTINGS: 'HM_NOTIFY_ALLOW_CIDRS',
    });
    expect(partly.ok).toBe(false);
    expect(partly.err).toContain('HM_AUTH_FAIL_EXEMPT_CIDRS is set in the environment');
    // a name that is no allow-list is refused rather than ignored
    const typo = await sls(['print', '--stage', 'prod', '--format', 'json'], { HM_PROD_ALLOW_SETTINGS: 'HM_AUTH_FAIL_EXEMPT_CIDR' });
    expect(typo.ok).toBe(false);
    expect(typo.err).toContain('HM_PROD_ALLOW_SETTINGS names HM_AUTH_FAIL_EXEMPT_CIDR: it may name only');
  }, 240_000);

  test('named in HM_PROD_ALLOW_SETTINGS, the value goes into the prod functions; other stages take it as before', async () => {
    const named = await sls(['print', '--stage', 'prod', '--format', 'json'], {
      HM_NOTIFY_ALLOW_CIDRS: '10.1.0.0/16',
      HM_PROD_ALLOW_SETTINGS: 'HM_NOTIFY_ALLOW_CIDRS',
    });
    expect(named.ok).toBe(true);
    expect(JSON.parse(named.out).provider.environment).toMatchObject({ HM_NOTIFY_ALLOW_CIDRS: '10.1.0.0/16', HM_AUTH_FAIL_EXEMPT_CIDRS: '', HM_STAGE: 'prod' });
    const test = await sls(['print', '--stage', 'ci', '--format', 'json'], { HM_AUTH_FAIL_EXEMPT_CIDRS: '0.0.0.0/0' });
    expect(test.ok).toBe(true);
    expect(JSON.parse(test.out).provider.environment.HM_AUTH_FAIL_EXEMPT_CIDRS).toBe('0.0.0.0/0');
  }, 240_000);
});
