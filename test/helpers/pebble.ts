/**
 * A real ACME server for the tests: Debian's pebble, resolving names with pebble-challtestsrv (every name →
 * 127.0.0.1 unless a test says otherwise), validating HTTP-01 challenges at the agent's responder
 * (PEBBLE_PORTS.http01). Its TLS listener gets a certificate from a CA made here with openssl, which the
 * agent and the functions trust through HM_ACME_CA_FILE. `npm test` provisions both binaries (scripts/provision).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Agent, request } from 'node:https';
import { PEBBLE_DIRECTORY_URL, PEBBLE_PORTS, pebbleCaFile } from '#scripts/stack/acme-test-server';
import { binaryOf, PEERS } from '#scripts/provision/peers';
import { waitUntil } from './agent.ts';

const DIR = resolve('.local/pebble');
const bin = (env: string) => binaryOf(PEERS.find((p) => p.env === env)!, process.env);

/** CA + listener certificate for 127.0.0.1/localhost (openssl), in .local/pebble. */
function makeListenerCertificate(): { cert: string; key: string } {
  mkdirSync(DIR, { recursive: true });
  const f = (n: string) => join(DIR, n);
  const ossl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ossl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    pebbleCaFile(),
    '-days',
    '2',
    '-subj',
    '/CN=hostmgr test ACME listener CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  ossl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    f('listener.key'),
    '-out',
    f('listener.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(f('listener.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  ossl(
    'x509',
    '-req',
    '-in',
    f('listener.csr'),
    '-CA',
    pebbleCaFile(),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('listener.pem'),
    '-days',
    '2',
    '-extfile',
    f('listener.ext'),
  );
  return { cert: f('listener.pem'), key: f('listener.key') };
}

export interface Pebble {
  directoryUrl: string;
  caFile: string;
  /** challtestsrv answers `host` with these IPv4 addresses (e.g. a loopback address nothing listens on) */
  setA(host: string, addresses: string[]): Promise<void>;
  /** back to the default answer (127.0.0.1) */
  clearA(host: string): Promise<void>;
  stop(): Promise<void>;
}

const stopProcess = (c: ChildProcess) =>
  new Promise<void>((r) => {
    if (c.exitCode !== null || c.signalCode !== null) return r();
    const t = setTimeout(() => c.kill('SIGKILL'), 3000);
    c.once('exit', () => {
      clearTimeout(t);
      r();
    });
    c.kill('SIGTERM');
  });

export async function startPebble(): Promise<Pebble> {
  for (const b of ['PEBBLE', 'PEBBLE_CHALLTESTSRV'])
    if (!existsSync(bin(b))) throw new Error(`${bin(b)} is missing: npm test provisions it (npm run provision)`);
  const listener = makeListenerCertificate();
  const config = join(DIR, 'pebble-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${PEBBLE_PORTS.acme}`,
        managementListenAddress: `127.0.0.1:${PEBBLE_PORTS.management}`,
        certificate: listener.cert,
        privateKey: listener.key,
        httpPort: PEBBLE_PORTS.http01,
        tlsPort: PEBBLE_PORTS.tlsAlpn,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const log = createWriteStream(join(DIR, 'pebble.log'), { flags: 'a' });
  const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
    const c = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout!.pipe(log, { end: false });
    c.stderr!.pipe(log, { end: false });
    return c;
  };
  const dns = run(bin('PEBBLE_CHALLTESTSRV'), [
    '-dns01',
    `127.0.0.1:${PEBBLE_PORTS.dns}`,
    '-management',
    `127.0.0.1:${PEBBLE_PORTS.dnsManagement}`,
    '-http01',
    '',
    '-https01',
    '',
    '-tlsalpn01',
    '',
    '-defaultIPv4',
    '127.0.0.1',
    '-defaultIPv6',
    '',
  ]);
  // no sleeping between validation attempts; every nonce accepted (no badNonce retries); no reuse of earlier
  // authorizations, so each order is validated for real
  const pebble = run(bin('PEBBLE'), ['-config', config, '-dnsserver', `127.0.0.1:${PEBBLE_PORTS.dns}`], {
    PEBBLE_VA_NOSLEEP: '1',
    PEBBLE_WFE_NONCEREJECT: '0',
    PEBBLE_AUTHZREUSE: '0',
  });
  const ca = readFileSync(pebbleCaFile(), 'utf8');
  const agent = new Agent({ ca });
  const get = (url: string) =>
    new Promise<number>((res, rej) => {
      const req = request(url, { agent }, (r) => {
        r.resume();
        res(r.statusCode ?? 0);
      });
      req.on('error', rej);
      req.end();
    });
  const dnsApi = async (op: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${PEBBLE_PORTS.dnsManagement}/${op}`, { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`challtestsrv ${op}: HTTP ${res.status}`);
  };
  const stop = async () => {
    await Promise.all([stopProcess(pebble), stopProcess(dns)]);
    log.end();
  };
  try {
    await waitUntil(
      `pebble to answer at ${PEBBLE_DIRECTORY_URL} (log ${join(DIR, 'pebble.log')})`,
      async () => (await get(PEBBLE_DIRECTORY_URL).catch(() => 0)) === 200,
      20_000,
    );
    await waitUntil(
      'pebble-challtestsrv to answer',
      async () =>
        (await fetch(`http://127.0.0.1:${PEBBLE_PORTS.dnsManagement}/clear-a`, { method: 'POST', body: '{"host":"probe.test"}' }).catch(() => null))?.ok,
      20_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    directoryUrl: PEBBLE_DIRECTORY_URL,
    caFile: pebbleCaFile(),
    setA: (host, addresses) => dnsApi('add-a', { host, addresses }),
    clearA: (host) => dnsApi('clear-a', { host }),
    stop,
  };
}
