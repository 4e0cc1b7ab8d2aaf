/**
 * The local queue (fauxqs, started by scripts/stack/queue.ts for this test stack as for npm start) listens on
 * loopback only: checked on the listening socket itself (the kernel's table of listening TCP sockets),
 * whatever option the emulator's API uses to choose the address.
 */
import { readFileSync } from 'node:fs';
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { stackQueue } from '../helpers/agent.ts';

/** Local addresses of the listening TCP sockets on `port` (IPv4 and IPv6), from /proc/net/tcp{,6}. */
function listeningAddresses(port: number): string[] {
  const out: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [hexAddr, hexPort] = local.split(':');
      if (state !== '0A' || parseInt(hexPort, 16) !== port) continue; // 0A = LISTEN
      out.push(hexAddr);
    }
  }
  return out;
}

// 127.0.0.1 (little-endian in /proc), ::1, and ::ffff:127.0.0.1
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000', '0000000000000000FFFF00000100007F']);

test('the local queue listens on loopback only, and answers there', async () => {
  const endpoint = stackQueue().queueEndpoint;
  const port = Number(new URL(endpoint).port);
  const addrs = listeningAddresses(port);
  expect(addrs.length).toBeGreaterThan(0);
  expect(addrs.filter((a) => !LOOPBACK.has(a))).toEqual([]);
  const sqs = new SQSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  try {
    const made = await sqs.send(new CreateQueueCommand({ QueueName: `loopback-check-${process.pid}.fifo`, Attributes: { FifoQueue: 'true' } }));
    expect(made.QueueUrl).toContain('loopback-check');
    await sqs.send(new DeleteQueueCommand({ QueueUrl: made.QueueUrl }));
  } finally {
    sqs.destroy();
  }
});
