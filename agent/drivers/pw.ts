import { runChecked, type Executor } from '../executors/executor.ts';
import type { HostGroupInventory, HostUserInventory } from '#shared/agent-api/inventory';

/**
 * pw(8) of FreeBSD: users and groups in their colon formats — `pw usershow` prints master.passwd lines
 * (`name:*:uid:gid:class:change:expire:gecos:home:shell`), `pw groupshow` group(5) lines
 * (`name:*:gid:member,member`) — and the group changes E1 and E2 make.
 */

const lines = (stdout: string) => stdout.split('\n').filter((l) => l.trim() !== '');

function integer(field: string, line: string): number {
  if (!/^\d+$/.test(field)) throw new Error(`pw: unexpected line: ${line}`);
  return Number(field);
}

/** `pw usershow -a`: every user with uid and primary gid. */
export function parseUsershow(stdout: string): HostUserInventory[] {
  return lines(stdout).map((line) => {
    const f = line.split(':');
    if (f.length !== 10) throw new Error(`pw: unexpected line: ${line}`);
    return { name: f[0], uid: integer(f[2], line), gid: integer(f[3], line) };
  });
}

/** `pw groupshow -a` / `pw groupshow <g>`: groups with their supplementary members. */
export function parseGroupshow(stdout: string): HostGroupInventory[] {
  return lines(stdout).map((line) => {
    const f = line.split(':');
    if (f.length !== 4) throw new Error(`pw: unexpected line: ${line}`);
    return { name: f[0], gid: integer(f[2], line), members: f[3] ? f[3].split(',') : [] };
  });
}

export const listUsers = async (exec: Executor) => parseUsershow(await runChecked(exec, ['pw', 'usershow', '-a']));
export const listGroups = async (exec: Executor) => parseGroupshow(await runChecked(exec, ['pw', 'groupshow', '-a']));

/** One group; throws CommandError (`pw: unknown group `g'`) when the host has none of that name. */
export async function showGroup(exec: Executor, group: string): Promise<HostGroupInventory> {
  const [g] = parseGroupshow(await runChecked(exec, ['pw', 'groupshow', '-n', group]));
  if (!g) throw new Error(`pw groupshow ${group}: no output`);
  return g;
}

/** `pw groupmod <g> -m <user>`: adds a supplementary member (pw: "user `u' does not exist" when unknown). */
export const addMember = (exec: Executor, group: string, user: string) => runChecked(exec, ['pw', 'groupmod', '-n', group, '-m', user]);
/** `pw groupmod <g> -d <user>`: removes a supplementary member. */
export const removeMember = (exec: Executor, group: string, user: string) => runChecked(exec, ['pw', 'groupmod', '-n', group, '-d', user]);
/** `pw groupdel <g>`. */
export const deleteGroup = (exec: Executor, group: string) => runChecked(exec, ['pw', 'groupdel', '-n', group]);
