import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the store that a test can freeze: while frozen, bytes in both directions are held
 * (the connections stay open, nothing answers) — a hung store, as a network partition or a stopped server
 * looks to a client. `thaw` delivers what was held.
 */
export interface TcpProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  let frozen = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const pass = (to: Socket) => (chunk: Buffer) => (frozen ? held.push(() => to.write(chunk)) : to.write(chunk));
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', pass(upstream));
    upstream.on('data', pass(client));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false;
      for (const f of held.splice(0)) f();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
