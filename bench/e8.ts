/**
 * E8 (POST /api/utilities/downloads/detect-filename) against a local HTTP server on 127.0.0.2 (admitted by the
 * test-only allow-list, HM_PROBE_ALLOW_CIDRS, set here as the test stack sets it): the built function invoked
 * in-process on PGlite (auth and pipeline included), each request a full probe — address check, a fresh
 * connection to the pinned address, HEAD, Content-Disposition parsed. Half the requests take one redirect first.
 * p50/p95 over BENCH_E8_N requests (default 400); target p50 ≤ 20 ms.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiEvent, lambdaContext } from './lib/events.ts';
import { loadHandler, messageOf, withQuietLog } from './lib/invoke.ts';
import { builtFunctions } from './lib/routes.ts';
import { fmtMs, percentile } from './lib/stats.ts';
import { withStore } from './lib/stores.ts';
import { runAlone, type Bench } from './lib/report.ts';

const ROUTE = '/api/utilities/downloads/detect-filename';
const TARGET_MS = 20;
const HOST = '127.0.0.2';

async function localSource(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: '/files/FreeBSD-14.1-RELEASE-amd64-disc1.iso' });
    else res.writeHead(200, { 'content-disposition': `attachment; filename*=UTF-8''FreeBSD-14.1-RELEASE-amd64-disc1.iso` });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${HOST}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const e8: Bench = {
  name: 'e8',
  async run() {
    const section = 'E8 filename probe (local server)';
    const fn = builtFunctions().find((f) => f.route.path === ROUTE);
    if (!fn) return [{ section, what: 'probe', value: 'not built yet', ok: null, note: `no function serves POST ${ROUTE} with a bundle in dist/` }];
    const n = Number(process.env.BENCH_E8_N ?? 400);
    const source = await localSource();
    const savedAllow = process.env.HM_PROBE_ALLOW_CIDRS;
    try {
      return await withStore('pglite', async (store) => {
        process.env.DATABASE_URL = store.url;
        process.env.HM_DB_POOL_MAX = '2';
        process.env.HM_PROBE_ALLOW_CIDRS = `${HOST}/32`;
        const handler = await loadHandler(fn.bundle, 'e8');
        const byKind = { direct: [] as number[], redirected: [] as number[] };
        let failure = '';
        await withQuietLog(async () => {
          for (let i = -20; i < n; i++) {
            const kind = i % 2 === 0 ? 'direct' : 'redirected';
            const url = `${source.origin}${kind === 'direct' ? '/download?id=1' : '/redirect'}`;
            const ev = apiEvent({ method: 'POST', route: ROUTE, token: store.adminToken, body: JSON.stringify({ url }) });
            const t0 = performance.now();
            const res = await handler(ev, lambdaContext());
            const ms = performance.now() - t0;
            if (res.statusCode !== 200 || messageOf(res) !== 'filename_detected') {
              failure ||= `${kind}: ${res.statusCode} ${String(res.body).slice(0, 200)}`;
              continue;
            }
            if (i >= 0) byKind[kind].push(ms);
          }
        });
        const all = [...byKind.direct, ...byKind.redirected];
        const row = (what: string, xs: number[]) => {
          const p50 = percentile(xs, 50);
          return {
            section,
            what,
            value: `p50 ${fmtMs(p50)} / p95 ${fmtMs(percentile(xs, 95))}`,
            target: `p50 ≤ ${TARGET_MS} ms`,
            ok: !failure && p50 <= TARGET_MS,
          };
        };
        return [
          { ...row('all probes (PGlite auth)', all), note: failure ? `a request failed: ${failure}` : `${all.length} requests, HEAD to ${HOST}` },
          row('  direct (one HEAD)', byKind.direct),
          row('  one redirect (two HEADs)', byKind.redirected),
        ];
      });
    } finally {
      if (savedAllow === undefined) delete process.env.HM_PROBE_ALLOW_CIDRS;
      else process.env.HM_PROBE_ALLOW_CIDRS = savedAllow;
      await source.close();
    }
  },
};

await runAlone(import.meta, e8);
