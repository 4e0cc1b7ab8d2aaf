import { setting } from '#shared/config/read';
import { createToken, revokeToken, TokenRevokedError } from '#shared/auth/tokens';
import { listApiTokens, type TokenView } from '#domain/tokens/manage';
import type { Role } from '#shared/auth/roles';
import { ApiError, Client } from '#cli/client';
import { apiBase } from '#cli/config';
import { keptAdminToken, readRunningStack } from '#cli/local-stack';
import { localDir, openCliStore, UsageError } from './store.ts';

export interface TokenSpec {
  name: string;
  role: Role;
  expiresAt: Date | null;
  nodeId: string | null;
  secret?: string;
}

/** Where npm run token does its work: a store opened here, or the API of a control plane (the running stack's). */
export interface TokenBackend {
  where: string;
  create(spec: TokenSpec): Promise<{ id: number; secret: string }>;
  list(): Promise<TokenView[]>;
  /** revokes the active tokens with this id or name; how many */
  revoke(idOrName: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The API when one is named (--url, HOSTMGR_URL) or the local stack is running (its stack.json); else the store
 * (DATABASE_URL, or the embedded data dir, opened under its lock). An explicit DATABASE_URL wins over a running
 * stack: it names a server, which any number of clients may share.
 */
export async function openTokenBackend(flags: { url?: string; token?: string }): Promise<TokenBackend> {
  const env = process.env;
  const url = flags.url || env.HOSTMGR_URL;
  if (url) {
    const token = flags.token || env.HOSTMGR_TOKEN;
    if (!token) throw new UsageError('an admin token is needed to manage tokens over the API: --token or HOSTMGR_TOKEN');
    return apiBackend(apiBase(url), token, `the API at ${apiBase(url)}`);
  }
  if (!setting('DATABASE_URL')) {
    const running = readRunningStack(localDir());
    if (running) {
      const token = flags.token || env.HOSTMGR_TOKEN || env.HM_ADMIN_TOKEN || keptAdminToken(running);
      if (!token)
        throw new UsageError(
          `the local stack (pid ${running.pid}) runs with HM_ADMIN_TOKEN: give it as --token, HOSTMGR_TOKEN or HM_ADMIN_TOKEN so npm run token can use its API`,
        );
      return apiBackend(running.apiUrl, token, `the running stack's API (${running.apiUrl})`);
    }
  }
  return storeBackend();
}

async function storeBackend(): Promise<TokenBackend> {
  const store = await openCliStore();
  return {
    where: store.where,
    async create(spec) {
      try {
        const { id, token } = await createToken(store.db, spec);
        return { id, secret: token };
      } catch (err) {
        throw err instanceof TokenRevokedError ? new Error(`--secret: ${err.message}`) : err;
      }
    },
    list: () => listApiTokens(store.db),
    revoke: (idOrName) => revokeToken(store.db, idOrName),
    close: () => store.close(),
  };
}

function apiBackend(base: string, token: string, where: string): TokenBackend {
  const client = new Client(base, token);
  const list = async () => (await client.call<TokenView[]>('GET', '/tokens')).envelope.data;
  const revokeId = async (id: number) => {
    try {
      await client.call('POST', `/tokens/${id}/revoke`);
      return 1;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 409)) return 0;
      throw err;
    }
  };
  return {
    where,
    async create(spec) {
      // the API makes every secret itself: a known one is installed only straight into a store
      if (spec.secret !== undefined)
        throw new UsageError(
          '--secret installs a known secret into a store directly; over the API every secret is random (use DATABASE_URL, or stop the stack)',
        );
      const body = { name: spec.name, role: spec.role, expiresAt: spec.expiresAt?.toISOString() ?? null, ...(spec.nodeId ? { nodeId: spec.nodeId } : {}) };
      const { data } = (await client.call<{ id: number; secret: string }>('POST', '/tokens', { body })).envelope;
      return { id: data.id, secret: data.secret };
    },
    list,
    async revoke(idOrName) {
      if (/^\d+$/.test(idOrName)) return revokeId(Number(idOrName));
      let n = 0;
      for (const t of await list()) if (t.name === idOrName && t.state !== 'revoked') n += await revokeId(t.id);
      return n;
    },
    close: async () => undefined,
  };
}
