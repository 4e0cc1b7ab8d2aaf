import { parseArgs, type ParseArgsConfig } from 'node:util';

export type ExecutorKind = 'local' | 'ssh' | 'simulator';

export interface AgentConfig {
  apiUrl: string;
  token: string;
  nodeId?: string;
  nodeName?: string;
  nodeIp?: string;
  queueUrl?: string;
  queueEndpoint?: string;
  region?: string;
  executor: ExecutorKind;
  /** `hostKeys`: pinned `SHA256:…` fingerprints; `insecureAcceptAnyHostKey`: the explicit opt-out */
  ssh: { host?: string; port: number; user: string; keyFile?: string; hostKeys: string[]; insecureAcceptAnyHostKey: boolean };
  /** how this host's jobs reach other nodes' hosts over SSH (E20 migration streams) */
  peerSsh: { port: number; user: string; keyFile?: string; prefix: string[] };
  simulatorState?: string;
  /** HM_AGENT_PATH: the PATH host programs are found through (default: inherited + /usr/local/sbin:/usr/local/bin) */
  programPath?: string;
  concurrency: number;
  heartbeatIntervalS: number;
  /** E14 sampling interval (10 s by default) */
  telemetryIntervalS: number;
  /** seconds between telemetry posts while nobody reads the node's telemetry */
  telemetryBatchIntervalS: number;
  inventoryIntervalS: number;
  inventorySweepIntervalS: number;
  visibilityTimeoutS: number;
  pollWaitS: number;
  drainTimeoutS: number;
  stateDir: string;
}

export const HELP = `hostmgr-agent — runs the control plane's tasks on this host and reports its inventory and telemetry

Usage: npm run agent -- [options]      (installed: node /usr/local/libexec/hostmgr/agent.js [options])
       npm run agent -- doctor [--ssh USER@HOST[:PORT] --identity KEY --host-key SHA256:…]
                                      read-only preflight of a host, one line per check (doctor --help)

Every option can also be set by the environment variable shown.

Control plane
  --api-url URL              HM_API_URL             the API, e.g. https://hostmgr.example.org/api (required)
  --token TOKEN              HM_AGENT_TOKEN         this node's agent token (npm run token -- create --role agent --node <id>)
  --token-file FILE          HM_AGENT_TOKEN_FILE    read the token from a file instead (keeps it out of ps)
  --node-id UUID             HM_NODE_ID             the host's UUID (default: sysctl -n kern.hostuuid on the host)
  --node-name NAME           HM_NODE_NAME           display name (default: the host's hostname)
  --node-ip IP               HM_NODE_IP             address other nodes reach it on (default: the SSH host's address, or the first IPv4)

Queue
  --queue-url URL            HM_QUEUE_URL           this node's SQS FIFO queue (default: from registration)
  --queue-endpoint URL       HM_QUEUE_ENDPOINT      SQS endpoint override (the local emulator); AWS credentials and
                                                    AWS_REGION come from the usual AWS environment
  --visibility-timeout S     HM_VISIBILITY_TIMEOUT  seconds a received message stays hidden; extended while it runs (60)
  --poll-wait S              HM_POLL_WAIT           long-poll wait, 1–20 (20)

Host
  --executor KIND            HM_EXECUTOR            local | ssh | simulator (local); simulator only in the simulator
                                                    build (dist/simulator/agent.js, for npm start and the tests)
  --ssh-host HOST            HM_SSH_HOST            for --executor ssh
  --ssh-port PORT            HM_SSH_PORT            (22)
  --ssh-user USER            HM_SSH_USER            (root)
  --ssh-key FILE             HM_SSH_KEY             private key file
  --ssh-host-key SHA256:…    HM_SSH_HOST_KEY        the host's key fingerprint(s) (ssh-keygen -l), comma-separated;
                                                    required with --executor ssh unless
  --insecure-accept-any-host-key                    (HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY=1) accepts any host key
  --simulator-state FILE     HM_SIMULATOR_STATE     for --executor simulator: the simulated host's JSON state
  --path DIRS                HM_AGENT_PATH          PATH the local executor runs host programs with (default: the
                                                    inherited PATH plus /usr/local/sbin:/usr/local/bin, where pkg
                                                    installs virsh; an rc.d service inherits /sbin:/bin:/usr/sbin:/usr/bin)

Other nodes (jail migration sends ZFS streams to the target host over SSH, at the node's address; only to a
host presenting a key its node reported at registration, as the control plane hands it out with the task)
  --peer-ssh-port PORT       HM_PEER_SSH_PORT       (22)
  --peer-ssh-user USER       HM_PEER_SSH_USER       (root)
  --peer-ssh-key FILE        HM_PEER_SSH_KEY        private key file
  --peer-ssh-prefix WORDS    HM_PEER_SSH_PREFIX     words put before every remote command (e.g. doas), split at spaces

Behaviour
  --concurrency N            HM_CONCURRENCY         tasks run at once, 1–64 (4); tasks of one resource run one at a time
  --heartbeat-interval S     HM_HEARTBEAT_INTERVAL  heard from at least this often (60); offline after three missed.
                                                    A telemetry post counts; a bare heartbeat goes when none did,
                                                    and every telemetry interval while tasks run
  --inventory-interval S     HM_INVENTORY_INTERVAL  seconds between inventory checks (60): datasets, and the pools,
                                                    jails and VMs whose probe (zpool status, jls, virsh list) changed
  --inventory-sweep-interval S                      (HM_INVENTORY_SWEEP_INTERVAL) seconds between full inventory
                                                    sweeps (600; also after every task): what no probe watches
                                                    (users, groups, routes, tunables, …) changes within this
  --telemetry-interval S     HM_TELEMETRY_INTERVAL  seconds between ZFS pool/ARC samples for E14 (10)
  --telemetry-batch-interval S                      (HM_TELEMETRY_BATCH_INTERVAL) seconds between telemetry posts
                                                    while nobody reads this node (60); each sample is posted as
                                                    taken while an E14 client or the console reads it
  --drain-timeout S          HM_DRAIN_TIMEOUT       on SIGTERM, wait this long for running tasks (600)
  --state-dir DIR            HM_STATE_DIR           undelivered results are kept here (/var/db/hostmgr-agent)
  --help                                            this text

Signals: SIGTERM/SIGINT stop taking work, hand back unstarted messages, let running tasks finish (drain), exit 0.
A second signal stops at once; running tasks are then marked interrupted at the next start.`;

export class ConfigError extends Error {}

/** Every value option (all strings on the command line) and the environment variable used when the flag is absent. */
const ENV = {
  'api-url': 'HM_API_URL',
  token: 'HM_AGENT_TOKEN',
  'token-file': 'HM_AGENT_TOKEN_FILE',
  'node-id': 'HM_NODE_ID',
  'node-name': 'HM_NODE_NAME',
  'node-ip': 'HM_NODE_IP',
  'queue-url': 'HM_QUEUE_URL',
  'queue-endpoint': 'HM_QUEUE_ENDPOINT',
  'visibility-timeout': 'HM_VISIBILITY_TIMEOUT',
  'poll-wait': 'HM_POLL_WAIT',
  executor: 'HM_EXECUTOR',
  'ssh-host': 'HM_SSH_HOST',
  'ssh-port': 'HM_SSH_PORT',
  'ssh-user': 'HM_SSH_USER',
  'ssh-key': 'HM_SSH_KEY',
  'ssh-host-key': 'HM_SSH_HOST_KEY',
  'simulator-state': 'HM_SIMULATOR_STATE',
  path: 'HM_AGENT_PATH',
  'peer-ssh-port': 'HM_PEER_SSH_PORT',
  'peer-ssh-user': 'HM_PEER_SSH_USER',
  'peer-ssh-key': 'HM_PEER_SSH_KEY',
  'peer-ssh-prefix': 'HM_PEER_SSH_PREFIX',
  concurrency: 'HM_CONCURRENCY',
  'heartbeat-interval': 'HM_HEARTBEAT_INTERVAL',
  'telemetry-interval': 'HM_TELEMETRY_INTERVAL',
  'telemetry-batch-interval': 'HM_TELEMETRY_BATCH_INTERVAL',
  'inventory-interval': 'HM_INVENTORY_INTERVAL',
  'inventory-sweep-interval': 'HM_INVENTORY_SWEEP_INTERVAL',
  'drain-timeout': 'HM_DRAIN_TIMEOUT',
  'state-dir': 'HM_STATE_DIR',
} as const;
type Flag = keyof typeof ENV;

const OPTIONS: ParseArgsConfig['options'] = {
  ...Object.fromEntries(Object.keys(ENV).map((flag) => [flag, { type: 'string' as const }])),
  help: { type: 'boolean' },
  'insecure-accept-any-host-key': { type: 'boolean' },
};

/** `--flag (ENV_NAME)`, how errors name an option */
const named = (flag: Flag) => `--${flag} (${ENV[flag]})`;

/** Parses flags over environment; throws ConfigError naming the option. `null` means: print help. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv, readFile: (f: string) => string): AgentConfig | null {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}; see --help`);
  }
  if (values.help) return null;
  const opt = (flag: Flag): string | undefined => {
    const v = (values[flag] as string | undefined) ?? env[ENV[flag]];
    return v === undefined || v === '' ? undefined : v;
  };
  const int = (flag: Flag, def: number, min: number, max: number): number => {
    const raw = opt(flag);
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${named(flag)}: must be an integer ${min}–${max}, got "${raw}"`);
    return n;
  };

  const apiUrl = opt('api-url');
  if (!apiUrl) throw new ConfigError(`${named('api-url')} is required`);
  if (!/^https?:\/\//.test(apiUrl)) throw new ConfigError(`${named('api-url')}: must be an http(s) URL, got "${apiUrl}"`);
  const tokenFile = opt('token-file');
  const token = opt('token') ?? (tokenFile ? readFile(tokenFile).trim() : undefined);
  if (!token) throw new ConfigError(`${named('token')} or ${named('token-file')} is required`);
  const executor = (opt('executor') ?? 'local') as ExecutorKind;
  if (!['local', 'ssh', 'simulator'].includes(executor)) throw new ConfigError(`${named('executor')}: must be local, ssh or simulator, got "${executor}"`);
  const hostKeys = (opt('ssh-host-key') ?? '').split(/[\s,]+/).filter(Boolean);
  for (const k of hostKeys) {
    if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(k))
      throw new ConfigError(`${named('ssh-host-key')}: must be SHA256:<43 base64 characters> as ssh-keygen -l prints it, got "${k}"`);
  }
  const insecureAcceptAnyHostKey = values['insecure-accept-any-host-key'] === true || /^(1|true|yes)$/i.test(env.HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY ?? '');
  const ssh = {
    host: opt('ssh-host'),
    port: int('ssh-port', 22, 1, 65535),
    user: opt('ssh-user') ?? 'root',
    keyFile: opt('ssh-key'),
    hostKeys,
    insecureAcceptAnyHostKey,
  };
  if (executor === 'ssh' && !ssh.host) throw new ConfigError(`${named('ssh-host')} is required with --executor ssh`);
  // an unpinned SSH executor lets whoever answers at the address drive the agent's host work
  if (executor === 'ssh' && !hostKeys.length && !insecureAcceptAnyHostKey) {
    throw new ConfigError(`${named('ssh-host-key')} is required with --executor ssh (or --insecure-accept-any-host-key)`);
  }
  const simulatorState = opt('simulator-state');
  if (executor === 'simulator' && !simulatorState) throw new ConfigError(`${named('simulator-state')} is required with --executor simulator`);
  const path = opt('path');
  if (path !== undefined && !path.split(':').every((d) => d.startsWith('/'))) {
    throw new ConfigError(`${named('path')}: must be absolute directories separated by ":", got "${path}"`);
  }
  const nodeId = opt('node-id');
  if (nodeId && !/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/.test(nodeId)) {
    throw new ConfigError(`${named('node-id')}: must be a UUID, got "${nodeId}"`);
  }
  return {
    apiUrl: apiUrl.replace(/\/+$/, ''),
    token,
    nodeId: nodeId?.toLowerCase(),
    nodeName: opt('node-name'),
    nodeIp: opt('node-ip'),
    queueUrl: opt('queue-url'),
    queueEndpoint: opt('queue-endpoint'),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined,
    executor,
    ssh,
    peerSsh: {
      port: int('peer-ssh-port', 22, 1, 65535),
      user: opt('peer-ssh-user') ?? 'root',
      keyFile: opt('peer-ssh-key'),
      prefix: (opt('peer-ssh-prefix') ?? '').split(/\s+/).filter(Boolean),
    },
    simulatorState,
    programPath: opt('path'),
    concurrency: int('concurrency', 4, 1, 64),
    heartbeatIntervalS: int('heartbeat-interval', 60, 1, 3600),
    telemetryIntervalS: int('telemetry-interval', 10, 1, 3600),
    telemetryBatchIntervalS: int('telemetry-batch-interval', 60, 1, 3600),
    inventoryIntervalS: int('inventory-interval', 60, 1, 86400),
    inventorySweepIntervalS: int('inventory-sweep-interval', 600, 1, 86400),
    visibilityTimeoutS: int('visibility-timeout', 60, 3, 43200),
    pollWaitS: int('poll-wait', 20, 1, 20),
    drainTimeoutS: int('drain-timeout', 600, 0, 86400),
    stateDir: opt('state-dir') ?? '/var/db/hostmgr-agent',
  };
}
