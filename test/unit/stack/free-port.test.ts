import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimPort, freePort } from '../../../scripts/stack/ports.ts';

/**
 * freePort's picks are claimed across processes: two stacks starting at once must never be handed the same port
 * (the second serverless-offline would fail to bind while its readiness probe reached the first one's API), and a
 * pick never lies in the ephemeral range, where an outgoing connection could take it before the server listens.
 */
const claims = join(tmpdir(), 'hostmgr-port-claims');
const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('picks below the ephemeral range, claimed with this process id', async () => {
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(port).toBeLessThan(ephemeralLow);
    expect(port).toBeGreaterThanOrEqual(1024);
    expect(readFileSync(join(claims, String(port)), 'utf8')).toBe(String(process.pid));
  }
});

test('another process never gets a port this one holds', async () => {
  const mine = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  const script = `import { freePort } from ${JSON.stringify(join(process.cwd(), 'scripts/stack/ports.ts'))};
    const ports = []; for (let i = 0; i < 200; i++) ports.push(await freePort()); console.log(JSON.stringify(ports));`;
  const theirs: number[] = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  expect(theirs).toHaveLength(200);
  expect(theirs.filter((p) => mine.includes(p))).toEqual([]);
});

test('a claim whose process has ended is cleared when met, and the port can be claimed again', () => {
  const dead = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim());
  const port = 1024 + Math.floor(Math.random() * 1000);
  const file = join(claims, String(port));
  rmSync(file, { force: true });
  writeFileSync(file, String(dead));
  expect(claimPort(port)).toBe(false);
  expect(existsSync(file)).toBe(false);
  expect(claimPort(port)).toBe(true);
  expect(readFileSync(file, 'utf8')).toBe(String(process.pid));
  // held by a live process (this one): not cleared
  expect(claimPort(port)).toBe(false);
  expect(existsSync(file)).toBe(true);
  rmSync(file);
});
