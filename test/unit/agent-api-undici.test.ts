import { execFileSync } from 'node:child_process';

/**
 * The agent's API client keeps an idle agent light: its calls go through node:http, so Node's bundled undici
 * (what fetch loads on first use, and keeps: ≈ 25 MiB of RSS) is never loaded. Checked in a fresh process,
 * which calls a local server through AgentApi and then lists the internal modules Node loaded.
 */
test('AgentApi answers a call without loading undici', () => {
  const script = `
    import { createRequire } from 'node:module';
    import { AgentApi } from '#agent/runtime/api';
    const { createServer } = createRequire(import.meta.url)('node:http');
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'ok', data: { got: req.method + ' ' + req.url + ' ' + req.headers.authorization } })));
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const api = new AgentApi('http://127.0.0.1:' + server.address().port + '/api', 't0k', () => {});
    const out = await api.call('POST', '/agent/heartbeat', { a: 1 });
    server.close();
    console.log(JSON.stringify({ out, undici: process.moduleLoadList.filter((m) => m.includes('undici')) }));
  `;
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  const { out, undici } = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(out).toEqual({ status: 200, message: 'ok', data: { got: 'POST /api/agent/heartbeat Bearer t0k' } });
  expect(undici).toEqual([]);
});
