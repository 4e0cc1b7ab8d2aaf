import type { SimGroup, SimHost, SimUser } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandHandler } from '../registry.ts';

/**
 * pw(8) for users and groups, in FreeBSD 14's formats (test/fixtures/freebsd/pw-*.txt):
 * `pw usershow -a | <name> | -n name | -u uid` prints master.passwd lines with `*` for the password
 * (`root:*:0:0::0:0:Charlie &:/root:/bin/csh`); `pw groupshow -a | <name> | -n name | -g gid` prints group
 * lines (`foo:*:1005:user1,user2`); `pw groupmod <g> [-m users] [-d users] [-M users]` changes the members
 * (an unknown user to add: ``pw: user `x' does not exist``, exit 67; removing a non-member is silently
 * ignored, as pw_group.c does); `pw groupdel <g>`; `pw userdel <u>` (also leaves every member list).
 * An unknown group: ``pw: unknown group `x'`` / ``pw: unknown gid `n'``, exit 65 (EX_DATAERR).
 */
const EX_DATAERR = 65;
const EX_NOUSER = 67;

const usersOf = (s: SimHost): SimUser[] => (s.users ??= []);
const groupsOf = (s: SimHost): SimGroup[] => (s.groups ??= []);

const userLine = (u: SimUser) => `${u.name}:*:${u.uid}:${u.gid}:${u.class ?? ''}:0:0:${u.gecos ?? ''}:${u.home ?? `/home/${u.name}`}:${u.shell ?? '/bin/sh'}\n`;
const groupLine = (g: SimGroup) => `${g.name}:*:${g.gid}:${g.members.join(',')}\n`;

/** pw takes the name as the first argument after the subcommand (when it is not an option) or with -n. */
function nameAndOptions(args: string[], spec: string) {
  const positional = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  const o = getopt(positional === undefined ? args : args.slice(1), spec);
  return { name: positional ?? o.values.get('n'), o };
}

const list = (v: string | undefined) => (v ?? '').split(/[, \t]+/).filter(Boolean);

function findGroup(ctx: CommandContext, name: string | undefined, gid: string | undefined): SimGroup | { error: ReturnType<typeof fail> } {
  const groups = groupsOf(ctx.state);
  if (name !== undefined) return groups.find((g) => g.name === name) ?? { error: fail(`pw: unknown group \`${name}'`, EX_DATAERR) };
  if (gid !== undefined) return groups.find((g) => String(g.gid) === gid) ?? { error: fail(`pw: unknown gid \`${gid}'`, EX_DATAERR) };
  return { error: fail('pw: group name or id required', 64) };
}

const usershow: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:u:FPa7');
  const users = usersOf(ctx.state);
  if (o.flags.has('a')) return { stdout: users.map(userLine).join('') };
  const uid = o.values.get('u');
  const u = name !== undefined ? users.find((x) => x.name === name) : users.find((x) => String(x.uid) === uid);
  if (!u) return name !== undefined ? fail(`pw: no such user \`${name}'`, EX_NOUSER) : fail(`pw: no such uid \`${uid ?? ''}'`, EX_NOUSER);
  return { stdout: userLine(u) };
};

const groupshow: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:g:FPa');
  if (o.flags.has('a')) return { stdout: groupsOf(ctx.state).map(groupLine).join('') };
  // `-g -1` with a name means "look up by name" (pw_groupshow.sh uses it)
  const gid = o.values.get('g');
  const g = findGroup(ctx, name, name !== undefined || gid === '-1' ? undefined : gid);
  return 'error' in g ? g.error : { stdout: groupLine(g) };
};

const groupmod: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:g:l:M:m:d:h:H:NPY');
  const g = findGroup(ctx, name, o.values.get('g'));
  if ('error' in g) return g.error;
  const users = usersOf(ctx.state);
  const known = (u: string) => users.some((x) => x.name === u);
  let members = [...g.members];
  if (o.values.has('M')) {
    const set = list(o.values.get('M'));
    const missing = set.find((u) => !known(u));
    if (missing) return fail(`pw: user \`${missing}' does not exist`, EX_NOUSER);
    members = [...new Set(set)];
  }
  for (const u of list(o.values.get('m'))) {
    if (!known(u)) return fail(`pw: user \`${u}' does not exist`, EX_NOUSER);
    if (!members.includes(u)) members.push(u);
  }
  const drop = new Set(list(o.values.get('d')));
  g.members = members.filter((u) => !drop.has(u));
  return {};
};

/**
 * `pw groupadd name [-g gid] [-M members] [-o]` (pw_group.c pw_group_add, gr_gidpolicy): an existing name is
 * ``pw: group name `x' already exists``; without -g the gid is the lowest free one from pw.conf's mingid (1000,
 * the default) up; a taken -g gid without -o is ``pw: gid `n' has already been allocated`` (both EX_DATAERR);
 * members must be users (``pw: user `x' does not exist``, EX_NOUSER). The group is appended to /etc/group.
 */
const MIN_GID = 1000;
const MAX_GID = 32000;
const groupadd: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:g:M:oNPY');
  if (name === undefined) return fail('pw: group name required', 64);
  const groups = groupsOf(ctx.state);
  if (groups.some((g) => g.name === name)) return fail(`pw: group name \`${name}' already exists`, EX_DATAERR);
  const wanted = o.values.get('g');
  let gid: number;
  if (wanted !== undefined) {
    gid = Number(wanted);
    if (!/^\d+$/.test(wanted)) return fail(`pw: Bad id '${wanted}': invalid`, 64);
    if (!o.flags.has('o') && groups.some((g) => g.gid === gid)) return fail(`pw: gid \`${gid}' has already been allocated`, EX_DATAERR);
  } else {
    const taken = new Set(groups.map((g) => g.gid));
    gid = MIN_GID;
    while (taken.has(gid) && gid <= MAX_GID) gid++;
    if (gid > MAX_GID) return fail(`pw: unable to find a free gid in range ${MIN_GID}-${MAX_GID}`, 70);
  }
  const members = list(o.values.get('M'));
  const missing = members.find((u) => !usersOf(ctx.state).some((x) => x.name === u));
  if (missing) return fail(`pw: user \`${missing}' does not exist`, EX_NOUSER);
  const g = { name, gid, members: [...new Set(members)] } as SimGroup;
  if (o.flags.has('N')) return { stdout: groupLine(g) };
  groups.push(g);
  return {};
};

const groupdel: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:g:Y');
  const g = findGroup(ctx, name, o.values.get('g'));
  if ('error' in g) return g.error;
  ctx.state.groups = groupsOf(ctx.state).filter((x) => x !== g);
  return {};
};

const userdel: CommandHandler = (ctx) => {
  const { name, o } = nameAndOptions(ctx.args, 'C:qn:u:rY');
  const users = usersOf(ctx.state);
  const u = name !== undefined ? users.find((x) => x.name === name) : users.find((x) => String(x.uid) === o.values.get('u'));
  if (!u) return fail(`pw: no such user \`${name ?? o.values.get('u') ?? ''}'`, EX_NOUSER);
  ctx.state.users = users.filter((x) => x !== u);
  for (const g of groupsOf(ctx.state)) g.members = g.members.filter((m) => m !== u.name);
  return {};
};

const USAGE =
  '\tpw usershow|groupshow [name|-n name|-u uid|-g gid|-a]\n\tpw groupadd name [-g gid] [-M users]\n\tpw groupmod name [-m users] [-d users] [-M users]\n\tpw groupdel name\n\tpw userdel name';
registerSubcommand('pw', 'usershow', withUsage(usershow, USAGE));
registerSubcommand('pw', 'groupshow', withUsage(groupshow, USAGE));
registerSubcommand('pw', 'groupmod', withUsage(groupmod, USAGE));
registerSubcommand('pw', 'groupadd', withUsage(groupadd, USAGE));
registerSubcommand('pw', 'groupdel', withUsage(groupdel, USAGE));
registerSubcommand('pw', 'userdel', withUsage(userdel, USAGE));
