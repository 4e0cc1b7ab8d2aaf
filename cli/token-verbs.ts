import type { Command } from 'commander';
import { clientFor, flagsOf, perform, type Io } from './context.ts';
import { parseExpiry } from './expiry.ts';
import { json, keyValues, table } from './output.ts';
import type { ApiData } from '#generated/api-types.ts';

const ROLES = ['viewer', 'operator', 'admin', 'agent'];

/** `hostmgr token create|list|revoke`: API tokens (admin), the secret printed once at creation. */
export function addTokenVerbs(program: Command, io: Io): void {
  const token = program.command('token').description('API tokens (admin): create (the secret shown once), list, revoke');
  token
    .command('create <name>')
    .description('create a token; its secret is printed now and never again')
    .requiredOption('--role <role>', `${ROLES.join(' | ')}`)
    .option('--expires <when>', 'a duration from now (90m, 12h, 30d, 8w) or an ISO date/time; default: never')
    .option('--node <node-id>', 'agent tokens: the node the agent speaks for')
    .addHelpText('after', '\nExample:\n  hostmgr token create alice --role operator --expires 30d\n')
    .action(async (name: string, o: { role: string; expires?: string; node?: string }, cmd: Command) => {
      if (!ROLES.includes(o.role)) throw new Error(`--role must be one of ${ROLES.join(', ')} (got "${o.role}")`);
      const body = { name, role: o.role, expiresAt: o.expires ? parseExpiry(o.expires).toISOString() : null, ...(o.node ? { nodeId: o.node } : {}) };
      const { data } = (await clientFor(cmd, io).call<ApiData['POST /api/tokens']>('POST', '/tokens', { body })).envelope;
      if (flagsOf(cmd).json) return void io.stdout.write(json(data));
      const { secret, ...shown } = data;
      io.stdout.write(`${keyValues(shown)}\nsecret — shown only now; store it safely:\n\n  ${secret}\n\n`);
    });
  token
    .command('list')
    .description('every token: name, role, node, expiry, last use, state — never a secret')
    .action(async (_o, cmd: Command) => {
      const { data } = (await clientFor(cmd, io).call<ApiData['GET /api/tokens']>('GET', '/tokens')).envelope;
      io.stdout.write(flagsOf(cmd).json ? json(data) : table(data, ['id', 'name', 'role', 'nodeId', 'createdAt', 'expiresAt', 'lastUsedAt', 'state']));
    });
  token
    .command('revoke <id>')
    .description('revoke a token: requests with it answer 401 from then on (final)')
    .addHelpText('after', '\nExample:\n  hostmgr token revoke 12\n')
    .action(async (id: string, _o, cmd: Command) => {
      if (!/^[1-9]\d{0,9}$/.test(id)) throw new Error(`token id: expected a positive integer, got "${id}"`);
      await perform(cmd, io, 'POST', `/tokens/${id}/revoke`);
    });
}
