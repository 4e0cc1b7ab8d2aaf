import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { waitFor } from './ports.ts';
import { LEASH } from './leash.ts';

export interface Offline {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs `serverless offline` (the real API Gateway emulation) over the built bundles. It runs the functions in
 * worker threads, so it is one process: it stays in our process group (a Ctrl-C reaches it too) and is leashed
 * to this process (it ends when this process dies, however).
 */
export async function startOffline(opts: { httpPort: number; lambdaPort: number; env: NodeJS.ProcessEnv; logFile?: string }): Promise<Offline> {
  const child = spawn(
    process.execPath,
    [...LEASH, 'node_modules/serverless/bin/serverless.js', 'offline', 'start', '--httpPort', String(opts.httpPort), '--lambdaPort', String(opts.lambdaPort)],
    {
      env: { ...process.env, ...opts.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (opts.logFile) {
    const log = createWriteStream(opts.logFile, { flags: 'a' });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  } else {
    child.stdout!.pipe(process.stdout);
    child.stderr!.pipe(process.stderr);
  }
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const url = `http://127.0.0.1:${opts.httpPort}`;
  // ready when this child says it listens on our port: a probe alone could be answered by another server that
  // holds the port (then this child fails to bind, and the stack would have served someone else's API)
  let said = '';
  let listening = false;
  const watch = (chunk: Buffer) => {
    said = (said + chunk.toString()).slice(-4096);
    if (said.includes(`Server ready: ${url}`)) {
      listening = true;
      child.stdout!.off('data', watch);
      child.stderr!.off('data', watch);
    }
  };
  // serverless logs its notices to stderr; either stream will do
  child.stdout!.on('data', watch);
  child.stderr!.on('data', watch);
  await waitFor(
    'serverless offline',
    async () => {
      if (exited !== null) throw new Error(`serverless offline exited with ${exited}${opts.logFile ? `; see ${opts.logFile}` : ''}`);
      if (!listening) return false;
      const res = await fetch(`${url}/api/notifications/count`);
      return res.status > 0;
    },
    90_000,
  );
  return {
    url,
    child,
    stop: async () => {
      if (exited !== null) return;
      if (!child.kill('SIGTERM')) return;
      await new Promise((r) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          r(null);
        }, 3000);
        child.once('exit', () => {
          clearTimeout(t);
          r(null);
        });
      });
    },
  };
}
