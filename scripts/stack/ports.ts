import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Claims of ports handed out and not yet listened on, shared by every process of ours on this machine. */
const CLAIMS = join(tmpdir(), 'hostmgr-port-claims');

/** Linux's ephemeral range starts here (outgoing connections' local ports); ports below it are ours to pick. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Claims `port` for this process; a claim whose process is gone is cleared (and the port left for a later pick). */
export function claimPort(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const owner = Number(readFileSync(file, 'utf8').trim() || 0);
  if (owner && !alive(owner)) {
    try {
      unlinkSync(file);
    } catch {
      /* another process cleared it first */
    }
  }
  return false;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port that is free on 127.0.0.1 right now and that no other process of ours was handed. The caller (or its
 * child) listens on it later, so two bare "ask the kernel for port 0" picks could hand two concurrent stacks the
 * same port — the second server then fails to bind while its readiness probe reaches the first one's — or hand out
 * a port an outgoing connection takes meanwhile. So the pick is below the ephemeral range, where outgoing
 * connections never take a port, and claimed in a file (with this process's pid) that every other pick honours
 * until this process ends.
 */
export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  const high = ephemeralLow() - 1;
  const low = Math.max(1024, high - 20_000);
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = randomInt(low, high + 1);
    if (claimPort(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port claimed in ${low}–${high} after 500 tries (claims in ${CLAIMS})`);
}

export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 150): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      if (await probe()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
