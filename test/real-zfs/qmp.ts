/**
 * A minimal QMP client (QEMU's JSON monitor protocol, docs/interop/qmp-spec.rst in qemu): one command at a time
 * over a unix socket, each answered by a `return` or an `error`; asynchronous `event` lines are skipped.
 */
import { connect, type Socket } from 'node:net';

export interface Qmp {
  execute(command: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

export async function qmpConnect(path: string, deadlineMs = 30_000): Promise<Qmp> {
  const until = Date.now() + deadlineMs;
  let sock: Socket | undefined;
  while (!sock) {
    try {
      sock = await new Promise<Socket>((resolve, reject) => {
        const s = connect(path, () => resolve(s));
        s.once('error', reject);
      });
    } catch (e) {
      if (Date.now() > until) throw new Error(`QMP socket ${path}: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const s = sock;
  let buf = '';
  const waiting: ((msg: Record<string, unknown>) => void)[] = [];
  s.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      const msg = JSON.parse(line) as Record<string, unknown>;
      if ('event' in msg) continue;
      waiting.shift()?.(msg);
    }
  });
  const next = () => new Promise<Record<string, unknown>>((r) => waiting.push(r));
  await next(); // the greeting
  const execute = async (command: string, args?: Record<string, unknown>) => {
    const answer = next();
    s.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
    const msg = await answer;
    if ('error' in msg) throw new Error(`QMP ${command}: ${JSON.stringify(msg.error)}`);
    return msg.return;
  };
  await execute('qmp_capabilities');
  return { execute, close: () => s.destroy() };
}
