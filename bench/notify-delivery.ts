/**
 * Notification delivery: N notifications raised (raiseNotification, each in its own transaction, one every
 * BENCH_NOTIFY_GAP_MS) on PGlite, matched by one rule to the generic webhook channel (signed), delivered by the
 * same in-process loop `npm start` runs (scripts/stack/notify-delivery.ts, at its default 500 ms poll) to a
 * local HTTP receiver. Measures raised (commit) → received, p50/p95 over BENCH_NOTIFY_N (default 200);
 * target p95 ≤ 1 s (the poll interval bounds it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inTransaction } from '#store/tx';
import { raiseNotification } from '#domain/notifications/raise';
import { updateChannels } from '#domain/notifications/channels';
import { createRule } from '#domain/notifications/rule-edit';
import { startDeliveryLoop } from '#scripts/stack/notify-delivery';
import { fmtMs, percentile } from './lib/stats.ts';
import { withStore } from './lib/stores.ts';
import { runAlone, type Bench } from './lib/report.ts';

const TARGET_P95_MS = 1000;
const POLL_MS = 500;

export const notifyDelivery: Bench = {
  name: 'notify',
  async run() {
    const section = 'notification delivery (webhook)';
    const n = Number(process.env.BENCH_NOTIFY_N ?? 200);
    const gapMs = Number(process.env.BENCH_NOTIFY_GAP_MS ?? 20);
    const raisedAt = new Map<string, number>();
    const latencies: number[] = [];
    let bad = '';
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const { title } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { title: string };
        const t0 = raisedAt.get(title);
        if (t0 === undefined || !req.headers['x-hostmgr-signature-256']) bad ||= `unexpected delivery ${title}`;
        else latencies.push(at - t0);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench`;
    // the receiver is on loopback, which the outbound-address policy refuses unless allow-listed
    const savedAllow = process.env.HM_NOTIFY_ALLOW_CIDRS;
    process.env.HM_NOTIFY_ALLOW_CIDRS = '127.0.0.1/32';
    try {
      return await withStore('pglite', async (store) => {
        await updateChannels(store.db, { webhook: { url, secret: 'bench-secret' } });
        await createRule(store.db, { templateKey: 'task_failed', targetKey: '*', webhookEnabled: true });
        const stop = startDeliveryLoop(store.db, POLL_MS, () => {});
        try {
          for (let i = 0; i < n; i++) {
            const title = `bench notification ${i}`;
            await inTransaction(store.db, (trx) =>
              raiseNotification(trx, { kind: 'task_failed', title, body: 'bench', severity: 'error', scope: 'global', nodeId: null }),
            );
            raisedAt.set(title, performance.now());
            await new Promise((r) => setTimeout(r, gapMs));
          }
          const until = Date.now() + 30_000;
          while (latencies.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        } finally {
          await stop();
        }
        const p50 = percentile(latencies, 50);
        const p95 = percentile(latencies, 95);
        const missing = n - latencies.length;
        return [
          {
            section,
            what: `raised → received (PGlite, ${POLL_MS} ms poll)`,
            value: `p50 ${fmtMs(p50)} / p95 ${fmtMs(p95)}`,
            target: `p95 ≤ ${TARGET_P95_MS} ms`,
            ok: !bad && missing === 0 && p95 <= TARGET_P95_MS,
            note: bad || (missing ? `${missing} of ${n} not delivered within 30 s` : `${n} notifications, one every ${gapMs} ms, signed webhook to 127.0.0.1`),
          },
        ];
      });
    } finally {
      if (savedAllow === undefined) delete process.env.HM_NOTIFY_ALLOW_CIDRS;
      else process.env.HM_NOTIFY_ALLOW_CIDRS = savedAllow;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  },
};

await runAlone(import.meta, notifyDelivery);
