import { decide, type Machine } from '#scripts/provision/decide';
import { binaryOf, PEERS, type Peer } from '#scripts/provision/peers';

/** npm test's provisioning decision: install only as root on Debian, else stop with the install command. */
const SSHD: Peer = PEERS.find((p) => p.binary === '/usr/sbin/sshd')!;
const SMTP: Peer = { what: 'SMTP server', binary: '/usr/sbin/exim4', env: 'SMTP', packages: { 'apt-get': 'exim4-daemon-light', dnf: 'exim' } };
const machine = (m: Partial<Machine>, present: string[] = []): Machine => ({
  root: true,
  debian: true,
  managers: ['apt-get'],
  exists: (p) => present.includes(p),
  env: {},
  ...m,
});

test('nothing to do when every peer binary exists', () => {
  expect(decide([SSHD, SMTP], machine({}, ['/usr/sbin/sshd', '/usr/sbin/exim4']))).toEqual({ action: 'none' });
});

test('root on Debian installs exactly the missing packages with apt-get', () => {
  const d = decide([SSHD, SMTP], machine({}, ['/usr/sbin/exim4']));
  expect(d).toMatchObject({ action: 'install', packages: ['openssh-server'] });
  expect(decide([SSHD, SMTP], machine({})).action === 'install' && decide([SSHD, SMTP], machine({}))).toMatchObject({
    packages: ['openssh-server', 'exim4-daemon-light'],
  });
});

test('not root on Debian: stops with the one sudo apt-get command', () => {
  const d = decide([SSHD], machine({ root: false }));
  expect(d).toEqual({ action: 'stop', missing: [SSHD], command: 'sudo apt-get update && sudo apt-get install -y openssh-server' });
});

test('not Debian: stops with the command of the package manager found, or says what to install', () => {
  expect(decide([SSHD, SMTP], machine({ debian: false, root: false, managers: ['dnf'] }))).toMatchObject({
    action: 'stop',
    command: 'sudo dnf install -y openssh-server exim',
  });
  expect(decide([SSHD], machine({ debian: false, root: true, managers: ['apk'] }))).toMatchObject({ action: 'stop', command: 'apk add openssh-server' });
  const none = decide([SSHD], machine({ debian: false, managers: [] }));
  expect(none).toMatchObject({ action: 'stop' });
  expect(none.action === 'stop' && none.command).toMatch(/install OpenSSH server .*\(\/usr\/sbin\/sshd\) with your system's package manager/);
});

test('HM_PEER_<NAME>_PATH overrides the binary looked for (how the install path is exercised)', () => {
  const env = { HM_PEER_SSHD_PATH: '/nonexistent/sshd' };
  expect(binaryOf(SSHD, env)).toBe('/nonexistent/sshd');
  expect(decide([SSHD], machine({ env }, ['/usr/sbin/sshd']))).toMatchObject({ action: 'install', packages: ['openssh-server'] });
  expect(decide([SSHD], machine({ env: {} }, ['/usr/sbin/sshd']))).toEqual({ action: 'none' });
});

test('pebble and pebble-challtestsrv are peers, both from Debian’s one pebble package (installed once)', () => {
  const acme = PEERS.filter((p) => p.binary.startsWith('/usr/bin/pebble'));
  expect(acme.map((p) => p.binary).sort()).toEqual(['/usr/bin/pebble', '/usr/bin/pebble-challtestsrv']);
  expect(decide(acme, machine({}))).toMatchObject({ action: 'install', packages: ['pebble'] });
  expect(decide([SSHD, ...acme], machine({ root: false }, ['/usr/sbin/sshd']))).toMatchObject({
    action: 'stop',
    command: 'sudo apt-get update && sudo apt-get install -y pebble',
  });
  expect(decide(acme, machine({}, ['/usr/bin/pebble', '/usr/bin/pebble-challtestsrv']))).toEqual({ action: 'none' });
});

test('Chromium is a peer from Debian’s chromium package, for the API reference page’s browser test', () => {
  const chromium = PEERS.find((p) => p.env === 'CHROMIUM')!;
  expect(chromium.binary).toBe('/usr/bin/chromium');
  expect(decide([SSHD, chromium], machine({}, ['/usr/sbin/sshd']))).toMatchObject({ action: 'install', packages: ['chromium'] });
  expect(decide([chromium], machine({ root: false }))).toMatchObject({ action: 'stop', command: 'sudo apt-get update && sudo apt-get install -y chromium' });
});
