/**
 * The real programs the test suite runs against besides Node (it never mocks them). One entry each: what it
 * is, the binary that must exist, and the package that provides it per package manager. (The SMTP server and
 * the HTTP receivers of the notification tests are npm packages and node:http: nothing to install.)
 */
export interface Peer {
  what: string;
  /** absolute path the tests run; HM_PEER_<ENV>_PATH overrides it (to exercise provisioning) */
  binary: string;
  env: string;
  packages: Partial<Record<PackageManager, string>>;
}

export type PackageManager = 'apt-get' | 'dnf' | 'apk' | 'pacman' | 'brew';

export const PEERS: Peer[] = [
  {
    what: 'OpenSSH server (the SSH executor and E20 migration tests)',
    binary: '/usr/sbin/sshd',
    env: 'SSHD',
    packages: { 'apt-get': 'openssh-server', dnf: 'openssh-server', apk: 'openssh-server', pacman: 'openssh', brew: 'openssh' },
  },
  {
    what: 'OpenSSL command line (test CAs and certificates: E8 over HTTPS, pebble, imported certificates)',
    binary: '/usr/bin/openssl',
    env: 'OPENSSL',
    packages: { 'apt-get': 'openssl', dnf: 'openssl', apk: 'openssl', pacman: 'openssl', brew: 'openssl' },
  },
  // ACME: Debian's pebble package ships both the test ACME server and its DNS/management peer
  {
    what: 'pebble, an ACME test server (certificate issuance tests)',
    binary: '/usr/bin/pebble',
    env: 'PEBBLE',
    packages: { 'apt-get': 'pebble', brew: 'pebble' },
  },
  {
    what: 'pebble-challtestsrv, the DNS server pebble resolves challenge domains with',
    binary: '/usr/bin/pebble-challtestsrv',
    env: 'PEBBLE_CHALLTESTSRV',
    packages: { 'apt-get': 'pebble', brew: 'pebble' },
  },
  // the connection-budget test runs its own server (test/helpers/private-postgres.ts) with a low max_connections;
  // Debian's package brings the server binaries under /usr/lib/postgresql/<major>/bin with postgresql-common
  {
    what: 'PostgreSQL server (the store connection-budget test)',
    binary: '/usr/bin/pg_ctlcluster',
    env: 'POSTGRESQL',
    packages: { 'apt-get': 'postgresql' },
  },
  // playwright-core drives the system's browser (it downloads none)
  {
    what: 'Chromium (the browser test of the API reference page)',
    binary: '/usr/bin/chromium',
    env: 'CHROMIUM',
    packages: { 'apt-get': 'chromium', dnf: 'chromium', apk: 'chromium', pacman: 'chromium' },
  },
];

/** The binary to look for: the entry's, or its HM_PEER_<ENV>_PATH override. */
export const binaryOf = (p: Peer, env: NodeJS.ProcessEnv): string => env[`HM_PEER_${p.env}_PATH`] || p.binary;
