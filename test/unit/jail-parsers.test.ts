import { parseJlsJson } from '#agent/drivers/jls';
import { parseSendDryRun } from '#agent/drivers/zfs/replication';
import { parseAmount, parseRctlUsage } from '#agent/drivers/rctl';
import {
  MANAGED_BEGIN,
  MANAGED_END,
  parseHeader,
  parseJailConf,
  paramValue,
  paramValues,
  renderJailConf,
  withManagedSection,
  withoutManagedSection,
} from '#agent/drivers/jail-conf';
import { fixture } from '../helpers/fixtures.ts';

describe('jls --libxo json (verbatim fixtures)', () => {
  test('plain jls --libxo=json: jid, ipv4, hostname, path; no name', () => {
    expect(parseJlsJson(fixture('jls-libxo-json.txt'))).toEqual([
      { jid: 1, name: null, hostname: 'classic', path: '/usr/local/jails/containers/classic', state: null, cpusetId: null, ipv4: ['192.168.250.70'], ipv6: [] },
    ]);
  });

  test('jls -v --libxo=json: names, states, cpuset ids and address lists', () => {
    const jails = parseJlsJson(fixture('jls-v-libxo-json-bastille.txt'));
    expect(jails.map((j) => [j.jid, j.name, j.state, j.cpusetId])).toEqual([
      [2, 'git7', 'ACTIVE', 5],
      [105, 'sto2', 'ACTIVE', 7],
      [116, 'git6', 'ACTIVE', 3],
    ]);
    expect(jails[1]).toMatchObject({ path: '/usr/local/bastille/jails/sto2/root', ipv4: ['172.16.20.112'], ipv6: ['2001:470:e8af:20::532'] });
    expect(jails[0].ipv6).toEqual([]);
  });

  test('no jails', () => {
    expect(parseJlsJson('{"__version": "2", "jail-information": {"jail": []}}')).toEqual([]);
  });
});

describe('rctl usage (verbatim fixture)', () => {
  test('humanized resource=value lines', () => {
    expect(parseRctlUsage(fixture('rctl-hu-process-grep-memoryuse.txt'))).toEqual({ memoryuse: 78 * 2 ** 20, vmemoryuse: 569 * 2 ** 20 });
  });
  test('raw bytes and bad amounts', () => {
    expect(parseRctlUsage('cputime=12\nmemoryuse=1048576\n')).toEqual({ cputime: 12, memoryuse: 1048576 });
    expect(parseAmount('1G')).toBe(2 ** 30);
    expect(() => parseAmount('lots')).toThrow(/not an rctl amount/);
  });
});

describe('jail.conf reader (verbatim fixtures)', () => {
  test('classic handbook jail: exec.start/exec.stop and path with ${name}', () => {
    const conf = parseJailConf(fixture('jail-conf-classic-handbook.txt'));
    expect(conf.jails.map((j) => j.name)).toEqual(['classic']);
    expect(paramValues(conf, 'classic', 'exec.start')).toEqual(['/bin/sh /etc/rc']);
    expect(paramValues(conf, 'classic', 'exec.stop')).toEqual(['/bin/sh /etc/rc.shutdown']);
    expect(paramValue(conf, 'classic', 'path')).toBe('/usr/local/jails/containers/${name}');
    expect(paramValue(conf, 'classic', 'ip4.addr')).toBe('192.168.1.151');
    expect(conf.jails[0].params.find((p) => p.key === 'exec.clean')).toEqual({ key: 'exec.clean', op: null, values: [] });
  });

  test('VNET handbook jail: += appends, TAB-separated operators', () => {
    // the handbook's `<.>` marks are AsciiDoc callouts, not jail.conf syntax (SOURCES.md)
    const conf = parseJailConf(fixture('jail-conf-vnet-handbook.txt').replace(/ <\.>/g, ''));
    expect(paramValues(conf, 'vnet', 'exec.prestart')).toEqual([
      '/sbin/ifconfig ${epair} create up',
      '/sbin/ifconfig ${epair}a up descr jail:${name}',
      '/sbin/ifconfig ${bridge} addm ${epair}a up',
    ]);
    expect(paramValues(conf, 'vnet', 'exec.start')).toEqual(['/sbin/ifconfig ${epair}b ${ip} up', '/sbin/route add default ${gateway}', '/bin/sh /etc/rc']);
    expect(paramValues(conf, 'vnet', 'exec.stop')).toEqual(['/bin/sh /etc/rc.shutdown']);
    expect(paramValues(conf, 'vnet', 'exec.poststop')).toHaveLength(2);
    expect(paramValue(conf, 'vnet', '$epair')).toBe('epair${id}');
  });

  test('jail.conf.d file with variables, created hooks and mount lists', () => {
    const conf = parseJailConf(fixture('jail-conf-vnet-alpine-skhal.txt'));
    expect(paramValues(conf, 'alpine', 'exec.created')).toEqual([
      '/bin/sh /usr/local/etc/rc.jail created ${name} ${bridgeips}',
      '/sbin/route -j ${name} add default ${gateway}',
    ]);
    expect(paramValues(conf, 'alpine', 'depend')).toEqual(['dns', 'ldap']);
    expect(paramValues(conf, 'alpine', 'mount')).toHaveLength(5);
    expect(paramValue(conf, 'alpine', 'path')).toBe('/usr/jail/${name}');
  });

  test('a fragment of global parameters with exec.poststart += / exec.prestop +=', () => {
    const conf = parseJailConf(fixture('jail-conf-poststart-prestop-sylve.txt'));
    expect(conf.jails).toEqual([]);
    expect(paramValues(conf, null, 'exec.poststart')).toEqual(['zfs jailed=on tank/sylve', 'zfs jail ${name} tank/sylve']);
    expect(paramValues(conf, null, 'exec.prestop')).toEqual(['zfs unjail ${name} tank/sylve', 'zfs jailed=off tank/sylve']);
    expect(paramValue(conf, null, 'devfs_ruleset')).toBe('6');
    expect(paramValue(conf, null, 'zfs.dataset')).toBe('tank/sylve');
  });

  test('syntax errors are reported, not guessed around', () => {
    expect(() => parseJailConf('web {\n path = "/x";\n')).toThrow(/not closed/);
    expect(() => parseJailConf('web { path = ; }')).toThrow(/expected a value/);
    expect(() => parseJailConf('web { path = "/x" }')).toThrow(/expected ';' after path/);
    // jailparse.y `param: … | name value`: a parameter without an operator is jail(8)'s, not an error
    expect(paramValue(parseJailConf('web { path "/x"; }'), 'web', 'path')).toBe('/x');
  });
});

describe('managed section of a jail conf', () => {
  const base = renderJailConf({ ctid: 101, name: 'web', hostname: 'web.example.org', path: '/zroot/jails/web', dataset: 'zroot/jails/web' });

  test('a rendered conf reads back with its header', () => {
    const conf = parseJailConf(base);
    expect(parseHeader(base)).toEqual({ ctid: '101', dataset: 'zroot/jails/web' });
    expect(paramValue(conf, 'web', 'host.hostname')).toBe('web.example.org');
    expect(paramValues(conf, 'web', 'exec.start')).toEqual(['/bin/sh /etc/rc']);
  });

  test('inserted before the closing brace, replaced (not duplicated), and removed', () => {
    const once = withManagedSection(base, 'web', ['exec.prestart += "/a.sh";']);
    const twice = withManagedSection(once, 'web', ['exec.prestart += "/b.sh";', 'exec.start += "/c.sh";']);
    expect(twice.match(new RegExp(MANAGED_BEGIN.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))).toHaveLength(1);
    const conf = parseJailConf(twice);
    expect(paramValues(conf, 'web', 'exec.prestart')).toEqual(['/b.sh']);
    expect(paramValues(conf, 'web', 'exec.start')).toEqual(['/bin/sh /etc/rc', '/c.sh']);
    expect(twice.trimEnd().endsWith(`\t${MANAGED_END}\n}`)).toBe(true);
    expect(withoutManagedSection(twice)).toBe(base);
    expect(withManagedSection(twice, 'web', [])).toBe(base);
  });

  test('operator-written lines outside the section are kept (handbook VNET jail)', () => {
    const text = fixture('jail-conf-vnet-handbook.txt').replace(/ <\.>/g, '');
    const edited = withManagedSection(text, 'vnet', ['exec.poststart += "/x.sh";']);
    expect(paramValues(parseJailConf(edited), 'vnet', 'exec.prestart')).toHaveLength(3);
    expect(paramValues(parseJailConf(edited), 'vnet', 'exec.poststart')).toEqual(['/x.sh']);
    expect(withoutManagedSection(edited)).toBe(text);
  });
});

describe('zfs send -nP dry runs (verbatim fixtures)', () => {
  test('full and incremental estimates', () => {
    expect(parseSendDryRun(fixture('zfs-send-nvP-full.txt'))).toEqual({ kind: 'full', from: null, snapshot: 'zroot/test/a@3', bytes: 10518512 });
    expect(parseSendDryRun(fixture('zfs-send-nvP-incremental.txt'))).toEqual({ kind: 'incremental', from: '1', snapshot: 'zroot/test/a@2', bytes: 10511856 });
    expect(() => parseSendDryRun('nonsense')).toThrow(/unexpected/);
  });
});
