import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { testDb, uid } from '../helpers/api.ts';
import { clientAddress, EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '#http/client-address';
import { audit } from '#http/middlewares/audit';
import { failedCredential } from '#http/middlewares/failed-auth-limit';
import { closeDb } from '#store/db';
import { countedSource } from '#shared/auth/failed-auth';

/**
 * The client's address behind the console's CloudFront distribution: CloudFront-Viewer-Address is honoured only
 * beside the edge secret the distribution adds (X-Hm-Edge-Secret = HM_EDGE_SECRET), never on its own.
 * The failed-auth case counts rows in the store:
 * @tier stack
 */
const SECRET = `edge-${uid()}-${'s'.repeat(32)}`;
const CLOUDFRONT = '130.176.1.2'; // the address API Gateway sees for a request CloudFront forwards

const event = (headers: Record<string, string>, sourceIp = CLOUDFRONT) =>
  ({ headers, requestContext: { http: { sourceIp, method: 'GET' }, requestId: 'r' }, rawPath: '/api/hosts' }) as unknown as APIGatewayProxyEventV2;
const viaEdge = (viewer: string, secret = SECRET) => event({ [EDGE_SECRET_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: viewer });

describe('clientAddress', () => {
  const env = { HM_EDGE_SECRET: SECRET };

  test('through the distribution (the edge secret matches): the viewer address, IPv4 or IPv6, without the port', () => {
    expect(clientAddress(viaEdge('198.51.100.7:50123'), env)).toBe('198.51.100.7');
    expect(clientAddress(viaEdge('2001:db8::7:443'), env)).toBe('2001:db8::7');
    expect(clientAddress(viaEdge('2001:db8::7'), env)).toBe('2001:db8::7');
  });

  test('without the proof the header is ignored: the address the gateway saw', () => {
    // sent straight to the API's endpoint, no secret
    expect(clientAddress(event({ [VIEWER_ADDRESS_HEADER]: '198.51.100.7:1' }, '203.0.113.9'), env)).toBe('203.0.113.9');
    // a guessed secret, an empty one, one of another length
    expect(clientAddress(viaEdge('198.51.100.7:1', `${SECRET.slice(0, -1)}x`), env)).toBe(CLOUDFRONT);
    expect(clientAddress(viaEdge('198.51.100.7:1', ''), env)).toBe(CLOUDFRONT);
    expect(clientAddress(viaEdge('198.51.100.7:1', `${SECRET}x`), env)).toBe(CLOUDFRONT);
    // no secret configured (npm start), or the template's reference left unresolved (serverless-offline)
    expect(clientAddress(viaEdge('198.51.100.7:1', ''), {})).toBe(CLOUDFRONT);
    const unresolved = '{{resolve:secretsmanager:[object Object]:SecretString}}';
    expect(clientAddress(viaEdge('198.51.100.7:1', unresolved), { HM_EDGE_SECRET: unresolved })).toBe(CLOUDFRONT);
  });

  test('with the proof but no usable viewer address: the gateway address', () => {
    expect(clientAddress(event({ [EDGE_SECRET_HEADER]: SECRET }), env)).toBe(CLOUDFRONT);
    expect(clientAddress(viaEdge('not-an-address:80'), env)).toBe(CLOUDFRONT);
    expect(clientAddress(viaEdge('198.51.100.7, 10.0.0.1'), env)).toBe(CLOUDFRONT);
  });
});

describe('the audit row and the failed-auth limit key on the client', () => {
  const saved = { url: process.env.DATABASE_URL, secret: process.env.HM_EDGE_SECRET };
  beforeAll(() => {
    process.env.DATABASE_URL = process.env.HM_TEST_DATABASE_URL;
    process.env.HM_EDGE_SECRET = SECRET;
  });
  afterAll(async () => {
    await closeDb();
    for (const [k, v] of [
      ['DATABASE_URL', saved.url],
      ['HM_EDGE_SECRET', saved.secret],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  const auditSource = async (e: APIGatewayProxyEventV2) => {
    const request = { event: e, context: {} } as any;
    await audit().before!(request);
    return request.context.audit.entry.sourceIp as string;
  };

  test("the audit entry's source address", async () => {
    expect(await auditSource(viaEdge('198.51.100.8:1234'))).toBe('198.51.100.8');
    expect(await auditSource(event({ [VIEWER_ADDRESS_HEADER]: '198.51.100.8:1234' }))).toBe(CLOUDFRONT);
  });

  test('a failed credential is counted against the viewer with the proof, against the sender without it', async () => {
    const viewer = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}::35`;
    const direct = `192.0.2.${1 + Math.floor(Math.random() * 250)}`;
    // an IPv6 client is counted by its /64
    const counted = async (source: string) =>
      testDb()
        .selectFrom('auth_failures')
        .select(['source', 'failures'])
        .where('source', '=', await countedSource(source))
        .executeTakeFirst();
    await testDb()
      .deleteFrom('auth_failures')
      .where('source', 'in', [await countedSource(viewer), direct])
      .execute();

    expect((await failedCredential(viaEdge(`${viewer}:443`), 'bad token')).statusCode).toBe(401);
    expect(await counted(viewer)).toMatchObject({ failures: 1 });
    // the same header sent straight to the API (no proof) is the sender's failure, not the named viewer's
    expect((await failedCredential(event({ [VIEWER_ADDRESS_HEADER]: `${viewer}:443` }, direct), 'bad token')).statusCode).toBe(401);
    expect(await counted(viewer)).toMatchObject({ failures: 1 });
    expect(await counted(direct)).toMatchObject({ failures: 1 });
  });
});
