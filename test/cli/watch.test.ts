// @tier fast
import { PassThrough } from 'node:stream';
import { ApiError, UnreachableError, type Client } from '../../cli/client.ts';
import { watchTask } from '../../cli/watch.ts';

const task = (status: string, progress: number) => ({ id: 7, kind: 'pool.replace-device', status, phase: '', progress, error: '' });
const busy = () => new ApiError(503, { status: 'error', message: 'cluster_consensus_unavailable', error: 'the store did not answer in time', data: null });

/** A client whose GETs answer (or throw) the given steps in order. */
function scripted(steps: (object | Error)[]): { client: Client; calls: () => number } {
  let n = 0;
  const client = {
    call: async () => {
      const step = steps[Math.min(n++, steps.length - 1)];
      if (step instanceof Error) throw step;
      return { status: 200, envelope: { status: 'success', message: 'ok', error: '', data: step }, taskId: null };
    },
  } as unknown as Client;
  return { client, calls: () => n };
}

const watch = (client: Client) => {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (c) => (text += c));
  return watchTask(client, 7, { stdout, pollMs: 1, detach: new Promise(() => undefined) }).then((code) => ({ code, text }));
};

test('a busy store or a lost connection while following a task is asked again, and the task’s end still decides the exit code', async () => {
  const s = scripted([
    task('running', 10),
    busy(),
    new UnreachableError('cannot reach http://x: ECONNRESET'),
    task('running', 60),
    busy(),
    task('success', 100),
  ]);
  const { code, text } = await watch(s.client);
  expect(code).toBe(0);
  expect(s.calls()).toBe(6);
  expect(text).toContain('task 7 (pool.replace-device) ended: success');
});

test('an answer that will not change (404) ends the watch with its error at once', async () => {
  const gone = new ApiError(404, { status: 'error', message: 'task_not_found', error: 'task 7 does not exist', data: null });
  const s = scripted([task('running', 10), gone]);
  await expect(watch(s.client)).rejects.toBe(gone);
  expect(s.calls()).toBe(2);
});

test('a store that stays busy ends the watch after twelve misses in a row', async () => {
  const s = scripted([busy()]);
  await expect(watch(s.client)).rejects.toBeInstanceOf(ApiError);
  expect(s.calls()).toBe(13);
}, 120_000);
