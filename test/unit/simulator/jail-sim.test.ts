import { readJailParams } from '#simulator/commands/jail-conf-reader';
import { paramValue, parseJailConf, quote } from '#agent/drivers/jail-conf';
import { host, simulate } from './sim-helper.ts';

/** `${x}` in jail.conf text (a jail(8) variable, not a template placeholder) */
const V = (name: string) => `$${'{'}${name}}`;

/** The simulator's jail(8) conf reader, file tree links, sh, jexec and rctl, against their FreeBSD sources. */
describe('jail(8)`s conf reader (jaillex.l, jailparse.y, config.c)', () => {
  const read = (text: string, name = 'web') => readJailParams(text, '/etc/jail.conf', name);

  test('blocks, globals in file order, = replaces, += appends, a bare name clears, variables resolve', () => {
    const p = read(
      [
        'exec.clean;',
        'path = "/jails/$name";',
        'web {',
        '  host.hostname = web.example.net;',
        '  exec.start = "/bin/sh /etc/rc";',
        `  exec.start += "echo \\"${V('name')}\\" up\\n";`,
        "  exec.consolelog = '/var/log/$name.log';",
        '  $dir = /srv;',
        `  exec.prestart = "mkdir -p ${V('dir')}/$name", "true";`,
        '}',
        'mount.devfs;',
      ].join('\n'),
    );
    if (typeof p === 'string') throw new Error(p);
    expect(p.get('name')).toEqual(['web']);
    expect(p.get('path')).toEqual(['/jails/web']);
    expect(p.get('host.hostname')).toEqual(['web.example.net']);
    expect(p.get('exec.start')).toEqual(['/bin/sh /etc/rc', 'echo "web" up\n']);
    // no variables inside single quotes
    expect(p.get('exec.consolelog')).toEqual(['/var/log/$name.log']);
    expect(p.get('exec.prestart')).toEqual(['mkdir -p /srv/web', 'true']);
    expect(p.get('exec.clean')).toEqual([]);
    expect(p.get('mount.devfs')).toEqual([]);
    expect(p.has('dir')).toBe(false);
  });

  test('what jail(8) refuses, in its words', () => {
    expect(read('web {\n  path = /j\n}\n')).toBe('jail: /etc/jail.conf line 3: }: syntax error');
    expect(read('web {\n  exec.start = /bin/sh /etc/rc;\n}\n')).toBe('jail: /etc/jail.conf line 2: /: syntax error');
    expect(read('web {\n  path = "/j;\n}\n')).toBe('jail: /etc/jail.conf line 2: unterminated string');
    expect(read('web {\n  path = /j;\n')).toBe('jail: /etc/jail.conf: unexpected EOF');
    expect(read('web { path = "$nope/x"; }')).toBe('jail: web: path: variable "nope" not found');
    expect(read('web { name = other; }')).toBe('jail: web: cannot redefine parameter "name".');
    expect(read('db { path = /j; }')).toBe('jail: "web" not found');
    expect(read('/* open\nweb {}')).toBe('jail: /etc/jail.conf line 1: unterminated comment');
    expect(read('web { path = /j; exec.strat = "x"; }')).toBe('jail: web: unknown parameter: exec.strat');
    expect(read('.include "/etc/jail.conf.d/*.conf";\nweb { path = /j; }')).toBe('jail: web: unknown parameter: .include');
    expect(typeof read('web { path = /j; allow.nomount; nopersist; host.domainname = x; }')).toBe('object');
  });

  test('the agent`s own confs read as the agent meant them', () => {
    const p = read(
      [
        '# hostmgr: ctid=101 dataset=zroot/jails/web',
        'web {',
        `\texec.consolelog = "/var/log/jail_console_${V('name')}.log";`,
        '\tpath = "/zroot/jails/web";',
        '\texec.poststart += "/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh";',
        '}',
      ].join('\n'),
    );
    if (typeof p === 'string') throw new Error(p);
    expect(p.get('exec.consolelog')).toEqual(['/var/log/jail_console_web.log']);
    expect(p.get('exec.poststart')).toEqual(['/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh']);
  });

  test('a literal $ the agent quotes stays literal for jail(8) (else it is a variable reference)', () => {
    const conf = `web {\n\thost.hostname = ${quote('shop$x "a\\b"')};\n\tpath = "/j";\n}\n`;
    const p = read(conf);
    if (typeof p === 'string') throw new Error(p);
    expect(p.get('host.hostname')).toEqual(['shop$x "a\\b"']);
    expect(paramValue(parseJailConf(conf), 'web', 'host.hostname')).toBe('shop$x "a\\b"');
    expect(read('web { host.hostname = "shop$x"; }')).toBe('jail: web: host.hostname: variable "x" not found');
  });
});

describe('symbolic links (namei) and the file commands', () => {
  const secret = { '/etc/master.passwd': { content: 'root:*:0:0::0:0:root:/root:/bin/sh\n', mode: '600' } };

  test('ln -s, readlink, stat -f %HT (lstat unless -L); cat, tee, chmod follow; rm removes the link', async () => {
    const { exec } = simulate(host({ files: secret }));
    const sim = exec.simulator;
    expect((await sim.run(['mkdir', '-p', '/j/etc'])).code).toBe(0);
    expect((await sim.run(['ln', '-s', '/etc/master.passwd', '/j/etc/pw'])).code).toBe(0);
    expect((await sim.run(['ln', '-s', '/x', '/j/etc/pw'])).stderr).toBe('ln: /j/etc/pw: File exists\n');
    expect((await sim.run(['readlink', '/j/etc/pw'])).stdout).toBe('/etc/master.passwd\n');
    expect((await sim.run(['readlink', '/etc/master.passwd'])).code).toBe(1);
    expect((await sim.run(['stat', '-f', '%HT', '/j/etc/pw', '/j/etc', '/etc/master.passwd'])).stdout).toBe('Symbolic Link\nDirectory\nRegular File\n');
    expect((await sim.run(['stat', '-L', '-f', '%HT', '/j/etc/pw'])).stdout).toBe('Regular File\n');
    expect((await sim.run(['stat', '-f', '%HT', '/nope'])).stderr).toBe('stat: /nope: lstat: No such file or directory\n');
    expect((await sim.run(['cat', '/j/etc/pw'])).stdout).toBe(secret['/etc/master.passwd'].content);
    await sim.run(['tee', '/j/etc/pw'], 'overwritten\n');
    await sim.run(['chmod', '644', '/j/etc/pw']);
    expect(await sim.state((s) => s.files!['/etc/master.passwd'])).toEqual({ content: 'overwritten\n', mode: '644' });
    // a directory link in the middle of a path, and a relative one
    await sim.run(['ln', '-s', 'etc', '/j/etc2']);
    expect((await sim.run(['cat', '/j/etc2/pw'])).stdout).toBe('overwritten\n');
    expect((await sim.run(['rm', '/j/etc/pw'])).code).toBe(0);
    expect((await sim.run(['cat', '/etc/master.passwd'])).stdout).toBe('overwritten\n');
    await sim.run(['ln', '-s', '/loop', '/loop']);
    expect((await sim.run(['cat', '/loop'])).code).toBe(1);
  });

  test('jexec: inside the jail a link resolves below the jail`s root (chroot), never to the host`s file', async () => {
    const { exec } = simulate(host({ files: secret, jails: [{ ctid: 1, name: 'web', path: '/j', state: 'running' }] }));
    const sim = exec.simulator;
    await sim.run(['mkdir', '-p', '/j/etc', '/j/tmp']);
    await sim.run(['tee', '/j/etc/master.passwd'], 'jail-own\n');
    await sim.run(['ln', '-s', '/etc/master.passwd', '/j/tmp/pw']);
    await sim.run(['tee', '/j/tmp/check.sh'], 'exit 5\n');
    // from the host the link reaches the host file; from inside the jail, the jail's
    expect((await sim.run(['cat', '/j/tmp/pw'])).stdout).toBe(secret['/etc/master.passwd'].content);
    expect((await sim.run(['jexec', 'web', 'sh', '/tmp/check.sh'])).code).toBe(5);
    expect((await sim.run(['jexec', '-l', 'web', '/bin/sh'], 'sh /tmp/check.sh\n')).code).toBe(5);
    expect((await sim.run(['jexec', 'nope', 'true'])).stderr).toBe('jexec: jail "nope" not found\n');
  });
});

describe('the small sh behind jail(8)', () => {
  test('status of the last command, exit, set -e, && and ||', async () => {
    const { exec } = simulate(host());
    const sh = (script: string) => exec.simulator.run(['sh'], script);
    expect((await sh('false\ntrue\n')).code).toBe(0);
    expect((await sh('true\nfalse\n')).code).toBe(1);
    expect((await sh('set -e\nfalse\nexit 0\n')).code).toBe(1);
    expect((await sh('set -e\nfalse || true\nfalse && true\nexit 7\n')).code).toBe(7);
    expect((await sh('false || echo fallback\n')).stdout).toBe('fallback\n');
    expect((await sh('/usr/local/etc/hostmgr/jails/1/hooks/x.sh\n')).code).toBe(127);
  });
});

describe('rctl semantics (kern_rctl.c)', () => {
  test('rules per jail name, added before the jail exists; a deny rule replaced by amount; -r with no match is ESRCH', async () => {
    const { exec } = simulate(host({ files: { '/boot/loader.conf': { content: 'kern.racct.enable=1\n', mode: '644' } } }));
    const sim = exec.simulator;
    expect((await sim.run(['rctl', '-a', 'jail:later:memoryuse:deny=1m'])).code).toBe(0);
    expect((await sim.run(['rctl', '-a', 'jail:later:memoryuse:deny=2m'])).code).toBe(0);
    expect((await sim.run(['rctl', 'jail:later'])).stdout).toBe('jail:later:memoryuse:deny=2097152\n');
    expect((await sim.run(['rctl', '-a', 'jail:later:bogus:deny=1'])).stderr).toBe("rctl: failed to add rule 'jail:later:bogus:deny=1': Invalid argument\n");
    expect((await sim.run(['rctl', '-r', 'jail:later'])).code).toBe(0);
    expect((await sim.run(['rctl', '-r', 'jail:later'])).stderr).toBe("rctl: failed to remove rule 'jail:later': No such process\n");
  });
});
