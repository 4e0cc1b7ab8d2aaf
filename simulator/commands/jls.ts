import { getopt, splitLibxo } from '../format.ts';
import { registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { runningJails, type SimJail } from './jail-model.ts';

/**
 * jls(8) of FreeBSD 14: the table (`jls`), `jls --libxo json` (jid, ipv4, hostname, path) and
 * `jls -v --libxo json` (adds name, state, cpusetid and address lists), byte for byte as the samples in
 * test/fixtures/freebsd (jls.txt, jls-libxo-json.txt, jls-v-libxo-json-bastille.txt) show them.
 */
const str = JSON.stringify;

const plainJson = (j: SimJail) => `{"jid":${j.jid},"ipv4":${str(j.ip4 ?? '-')},"hostname":${str(j.hostname ?? j.name)},"path":${str(j.path ?? '')}}`;

const verboseJson = (j: SimJail) =>
  `{"jid":${j.jid},"hostname":${str(j.hostname ?? j.name)},"path":${str(j.path ?? '')},"name":${str(j.name)},"state":"ACTIVE","cpusetid":${j.cpusetId ?? j.jid}, ` +
  `"ipv4_addrs": [${j.ip4 ? str(j.ip4) : ''}], "ipv6_addrs": [${j.ip6 ? str(j.ip6) : ''}]}`;

function jls(ctx: CommandContext) {
  const { args, libxo } = splitLibxo(ctx.args);
  const o = getopt(args, 'dhNnqsvj:');
  let jails = runningJails(ctx.state);
  const only = o.values.get('j');
  if (only !== undefined) jails = jails.filter((j) => j.name === only || String(j.jid) === only);
  if (libxo !== null && libxo.split(',').includes('json')) {
    const items = jails.map(o.flags.has('v') ? verboseJson : plainJson).join(', ');
    return { stdout: `{"__version": "2", "jail-information": {"jail": [${items}]}}\n` };
  }
  const rows = jails.map(
    (j) => `${String(j.jid).padStart(6)}  ${(j.ip4 ?? '-').padEnd(15).slice(0, 15)} ${(j.hostname ?? j.name).padEnd(29).slice(0, 29)} ${j.path ?? ''}\n`,
  );
  return { stdout: `   JID  IP Address      Hostname                      Path\n${rows.join('')}` };
}

registerCommand('jls', withUsage(jls, '\tjls [-dhNnqsv] [-j jail] [param ...]'));
