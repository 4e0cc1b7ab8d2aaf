import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { apiUrl, call, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode, startTestAgent, testHost, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { describeRequest, operationsOf, requestsFor, type FuzzRequest, type Operation } from '../helpers/fuzz/requests.ts';
import { countChanges, DECLARED_5XX, envelopeProblems, FINAL_TASK_STATUSES, rowCounter } from '../helpers/fuzz/invariants.ts';
import { failureReport, fuzzSeed, fuzzRuns, seedFor } from '../helpers/fuzz/seed.ts';
import type { Known } from '../helpers/fuzz/values.ts';
import { responseChecker } from '../helpers/response-schemas.ts';

const parsedJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Property-based fuzzing of every route the OpenAPI document lists (so routes added later are fuzzed too):
 * per route a seeded, reproducible batch of valid, boundary and hostile requests. Each must answer the
 * envelope, never a 5xx, `data` null on errors (unless declared) and the shape its route declares; a refused
 * mutation writes nothing (row counts unchanged); an accepted one's task reaches a final state — run by a real agent against the simulated host.
 * A failure names the seed and the request: replay with `HM_FUZZ_SEED=<seed> npx jest test/http/api-fuzz.test.ts -t '<route>'`.
 */
const SEED = fuzzSeed();
const RUNS = fuzzRuns(40);

/**
 * When the fuzzing began: tokens older than this are the suite's and this file's own (the suite's admin token is id
 * 1, a bound the fuzzer tries); set once the file's tokens exist.
 */
let fuzzStart = new Date(0);

async function send(req: FuzzRequest, token: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (req.contentType) headers['content-type'] = req.contentType;
  const res = await fetch(`${apiUrl()}${req.url.replace(/^\/api/, '')}`, { method: req.method, headers, body: req.body });
  const answer = { status: res.status, text: await res.text() };
  // a fuzzed revoke may hit one of the suite's own tokens, which every later request (and file) needs: it is put
  // back at once (revocation is final through the API; only the store can undo it)
  if (/^\/api\/tokens\/[^/?]+\/revoke/.test(req.url))
    await testDb().updateTable('api_tokens').set({ revoked_at: null }).where('created_at', '<', fuzzStart).where('revoked_at', 'is not', null).execute();
  return answer;
}

const maxTaskId = async () =>
  Number(
    (
      await testDb()
        .selectFrom('tasks')
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirst()
    )?.m ?? 0,
  );

describe('API fuzzer: every route of the OpenAPI document', () => {
  let ops: Operation[] = [];
  let agent: TestAgent;
  const tokens: Record<string, string> = {};
  const known: Known = {};
  let firstTaskId = 0;
  let counts: () => Promise<Record<string, number>>;
  let accepted = 0;

  beforeAll(async () => {
    const doc = await call('GET', '/openapi.json', { token: await tokenFor('viewer') });
    ops = operationsOf(doc.body.data);
    for (const role of ['viewer', 'operator', 'admin'] as const) tokens[role] = await tokenFor(role);
    // agent routes get a node of their own, so what they send does not disturb the agent running the tasks
    const agentRouteNode = await insertNode(randomUUID());
    tokens.agent = await tokenFor('agent', agentRouteNode);
    agent = await startTestAgent({
      host: testHost({
        sysctls: [
          { name: 'kern.hostname', type: 'string', value: 'fuzz.example.org', writable: true },
          { name: 'kern.maxfiles', type: 'integer', value: '32768', writable: true },
          { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false },
        ],
      }),
    });
    await agent.ready();
    await waitUntil(
      'the fuzz agent to report its tunables',
      async () => (await testDb().selectFrom('tunables').select('name').where('node_id', '=', agent.nodeId).execute()).length > 0,
    );
    known.nodeId = [agent.nodeId];
    known.name = ['kern.hostname', 'kern.maxfiles', 'kern.ostype'];
    counts = await rowCounter(testDb(), () => [agentRouteNode, agent.nodeId]);
    firstTaskId = await maxTaskId();
    fuzzStart = new Date();
  }, 60_000);

  /**
   * Tasks queued on the fuzz agent's node since the fuzzing began that have not ended yet. (The store is shared
   * with the suite's other files: a fuzzed id may name another file's resource, whose node runs no agent; such a
   * task stays queued in its node's queue, checked below.)
   */
  const openTasks = async () =>
    testDb()
      .selectFrom('tasks')
      .select(['id', 'kind', 'status'])
      .where('id', '>', firstTaskId)
      .where('node_id', '=', agent.nodeId)
      .where('status', 'not in', FINAL_TASK_STATUSES as never)
      .execute();

  test('the walk sees every route, with bodies, query and path parameters', () => {
    expect(ops.length).toBeGreaterThanOrEqual(40);
    expect(ops.filter((o) => o.body).length).toBeGreaterThanOrEqual(10);
    expect(ops.filter((o) => o.params.some((p) => p.in === 'query')).length).toBeGreaterThanOrEqual(5);
  });

  test('every route: no 5xx, the envelope, data null on errors, nothing written on a 4xx', async () => {
    const failures: string[] = [];
    for (const op of ops) {
      const route = `${op.method} ${op.path}`;
      const mutates = op.method !== 'GET';
      const seed = seedFor(SEED, route);
      // reads write nothing, whatever they answer: counted around the route's whole batch
      const beforeReads = mutates ? undefined : await counts();
      const result = await fc.check(
        fc.asyncProperty(requestsFor(op, known), async (req) => {
          // a task still running may write (notifications, inventory): let it end before counting
          if (mutates) await waitUntil('open tasks to end', async () => (await openTasks()).length === 0, 20_000, 50);
          const before = mutates ? await counts() : undefined;
          const res = await send(req, tokens[op.role]);
          const problems = envelopeProblems(res, /^E16\./.test(op.summary), DECLARED_5XX[op.summary.split('.')[0]]);
          // and the shape its route declares (`data`, `errorData`), like every answer the suite receives
          const mismatch = responseChecker().problem(req.method, req.url, res.status, parsedJson(res.text));
          if (mismatch) problems.push(mismatch);
          if (before && res.status >= 400) {
            const changed = countChanges(before, await counts());
            if (changed.length) problems.push(`a ${res.status} wrote rows (${changed.join(', ')})`);
          }
          if (mutates && res.status < 300) accepted++;
          if (problems.length)
            throw new Error(`${problems.join('; ')}\n  request: ${describeRequest(req)}\n  response: ${res.status} ${res.text.slice(0, 400)}`);
        }),
        { seed, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) failures.push(failureReport(route, SEED, seed, result));
      const readWrites = beforeReads ? countChanges(beforeReads, await counts()) : [];
      if (readWrites.length) failures.push(`${route} (HM_FUZZ_SEED=${SEED}, route seed ${seed}): its reads wrote rows (${readWrites.join(', ')})`);
    }
    expect(failures).toEqual([]);
  }, 240_000);

  test('every accepted mutation queued a task that reached a final state (run by the agent on the simulated host)', async () => {
    expect(accepted).toBeGreaterThan(0);
    await waitUntil('every fuzzed task to end', async () => (await openTasks()).length === 0, 30_000);
    const all = await testDb().selectFrom('tasks').select(['id', 'status', 'node_id', 'dispatch_count']).where('id', '>', firstTaskId).execute();
    const tasks = all.filter((t) => t.node_id === agent.nodeId);
    expect(tasks.filter((t) => !FINAL_TASK_STATUSES.includes(t.status))).toEqual([]);
    // on a node without an agent, a task ends only once an agent takes it: it must at least be in that node's queue
    expect(all.filter((t) => t.node_id !== agent.nodeId && !FINAL_TASK_STATUSES.includes(t.status) && t.dispatch_count < 1)).toEqual([]);
    // accepted work really ran: the agent applied at least one of them on its simulated host
    expect(tasks.filter((t) => t.status === 'success' && t.node_id === agent.nodeId).length).toBeGreaterThan(0);
  }, 60_000);
});
