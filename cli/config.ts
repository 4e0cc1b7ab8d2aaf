import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { keptAdminToken, localDirOf, readRunningStack } from './local-stack.ts';

/**
 * Where `hostmgr login` keeps the API URL and token: $XDG_CONFIG_HOME/hostmgr/config.json (default
 * ~/.config), mode 0600 in a 0700 directory since it holds a bearer token. HOSTMGR_URL and HOSTMGR_TOKEN
 * override it, and --url / --token override both.
 */
export interface CliConfig {
  url?: string;
  token?: string;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'hostmgr', 'config.json');
}

export function readConfig(env: NodeJS.ProcessEnv): CliConfig {
  const path = configPath(env);
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as CliConfig;
    return { url: typeof parsed.url === 'string' ? parsed.url : undefined, token: typeof parsed.token === 'string' ? parsed.token : undefined };
  } catch {
    throw new Error(`${path} is not valid JSON: run hostmgr login again`);
  }
}

export function writeConfig(env: NodeJS.ProcessEnv, config: CliConfig): string {
  const path = configPath(env);
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode on write
  return path;
}

/**
 * The API base URL (…/api) and token to use, from flags, then the environment, then the config file (hostmgr
 * login), then the `npm start` running from $HM_LOCAL_DIR (default .local): its API on whatever port it was given,
 * with the admin token it keeps there — as `npm run token` finds it — unless a token is given.
 */
export function resolveTarget(flags: { url?: string; token?: string }, env: NodeJS.ProcessEnv): { url: string; token: string } {
  const file = readConfig(env);
  const given = flags.url ?? env.HOSTMGR_URL ?? file.url;
  if (given) {
    const token = flags.token ?? env.HOSTMGR_TOKEN ?? file.token;
    if (!token) throw new Error('no token: run `hostmgr login URL`, or set HOSTMGR_TOKEN');
    return { url: apiBase(given), token };
  }
  const stack = readRunningStack(localDirOf(env));
  if (!stack)
    throw new Error(
      'no API URL: run `hostmgr login URL`, or set HOSTMGR_URL (e.g. http://localhost:3000/api), or run hostmgr beside a running `npm start` (its $HM_LOCAL_DIR/stack.json)',
    );
  const token = flags.token || env.HOSTMGR_TOKEN || env.HM_ADMIN_TOKEN || keptAdminToken(stack);
  if (!token) throw new Error(`no token for the running stack at ${stack.apiUrl} (it runs with HM_ADMIN_TOKEN): set HOSTMGR_TOKEN or HM_ADMIN_TOKEN`);
  return { url: apiBase(stack.apiUrl), token };
}

/** Accepts the server's origin or its /api base: http://host:3000 and http://host:3000/api are the same. */
export function apiBase(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/api') ? trimmed : `${trimmed}/api`;
}
