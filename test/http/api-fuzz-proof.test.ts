import type { Context } from 'aws-lambda';
import fc from 'fast-check';
import spec from '#spec/cluster/notes-create';
import { endpoint, pipelineStages, withStages, type EndpointFn } from '#http/endpoint';
import { created } from '#http/envelope';
import { createNote } from '#domain/cluster/notes';
import { closeDb } from '#store/db';
import type { Input } from '#functions/cluster/notes-create.schema';
import { call, tokenFor } from '../helpers/api.ts';
import { describeRequest, operationsOf, requestsFor, type Operation } from '../helpers/fuzz/requests.ts';
import { envelopeProblems } from '../helpers/fuzz/invariants.ts';
import { toEvent } from '../helpers/fuzz/in-process.ts';
import { failureReport, fuzzSeed, seedFor } from '../helpers/fuzz/seed.ts';

/**
 * The fuzzer is worth something only if it catches what the pipeline guards against: the same generator, run
 * in-process against E-notes-create (POST /cluster/notes, which stores its strings) built once with the full
 * pipeline and once without the storable-text checks (NUL, lone surrogates), passes the first and finds a 500
 * in the second, reporting its seed and request.
 */
const SEED = fuzzSeed();
const ROUTE = 'POST /api/cluster/notes';

// the handler of functions/cluster/notes-create.ts: schema, role, one call, result
const createNoteFn: EndpointFn<Input> = async ({ body }, { db }) => created('cluster_note_created', await createNote(db, body));

type Handler = (event: unknown, context: Context) => Promise<unknown>;

describe('the fuzzer finds the 500s the storable-text check prevents', () => {
  let op: Operation;
  let token: string;
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    const doc = await call('GET', '/openapi.json', { token: await tokenFor('viewer') });
    op = operationsOf(doc.body.data).find((o) => `${o.method} ${o.path}` === ROUTE)!;
    token = await tokenFor('operator');
    process.env.DATABASE_URL = process.env.HM_TEST_DATABASE_URL;
  });
  afterAll(async () => {
    await closeDb();
    process.env.DATABASE_URL = saved;
  });

  const fuzz = (handler: Handler) => {
    const seed = seedFor(SEED, ROUTE);
    return fc
      .check(
        fc.asyncProperty(requestsFor(op, {}), async (req) => {
          const res = (await handler(toEvent(op, req, token), { awsRequestId: 'fuzz-proof' } as Context)) as { statusCode: number; body: string };
          const problems = envelopeProblems({ status: res.statusCode, text: res.body });
          if (problems.length)
            throw new Error(`${problems.join('; ')}\n  request: ${describeRequest(req)}\n  response: ${res.statusCode} ${res.body.slice(0, 300)}`);
        }),
        { seed, numRuns: 200, endOnFailure: true },
      )
      .then((result) => (result.failed ? failureReport(ROUTE, SEED, seed, result) : null));
  };

  test('with the whole pipeline: 200 requests, no 5xx', async () => {
    expect(op).toBeDefined();
    expect(await fuzz(endpoint(spec, createNoteFn) as Handler)).toBeNull();
  }, 60_000);

  test('without the storable-text stages: a 500, reported with its seed and request', async () => {
    const stages = pipelineStages(spec);
    const without = stages.filter((s) => s.name !== 'storable-request' && s.name !== 'storable-body');
    expect(stages.length - without.length).toBe(2);
    const report = await fuzz(withStages(spec, createNoteFn, without) as Handler);
    expect(report).toMatch(/answered 500/);
    expect(report).toContain(`HM_FUZZ_SEED=${SEED}`);
    expect(report).toMatch(/request: POST \/api\/cluster\/notes/);
  }, 60_000);
});
