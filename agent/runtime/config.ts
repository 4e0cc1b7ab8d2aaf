import { parseArgs, type ParseArgsConfig } from 'node:util';
import { allowedText, SettingError, setting } from '#shared/config/read';
import { SETTINGS, type SettingName, type Settings } from '#shared/config/settings';
import type { SettingSpec, ValueOf } from '#shared/config/spec';

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

type AgentSetting = { [K in SettingName]: Settings[K] extends { flag: string } ? K : never }[SettingName];

/** The agent's options: the settings table's entries with a command-line flag (shared/config/settings.ts). */
const AGENT_OPTIONS = (Object.keys(SETTINGS) as SettingName[]).filter((n): n is AgentSetting => 'flag' in SETTINGS[n]);
const flagOf = (name: AgentSetting): string => SETTINGS[name].flag;

const OPTIONS: ParseArgsConfig['options'] = {
  ...Object.fromEntries(AGENT_OPTIONS.map((name) => [flagOf(name), { type: SETTINGS[name].type === 'flag' ? ('boolean' as const) : ('string' as const) }])),
  help: { type: 'boolean' },
};

/** `--flag (ENV_NAME)`, how errors name an option */
const named = (name: AgentSetting) => `--${flagOf(name)} (${name})`;

/** Parses flags over environment; throws ConfigError naming the option. `null` means: print help. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv, readFile: (f: string) => string): AgentConfig | null {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}; see --help`);
  }
  if (values.help) return null;
  /** The flag's value, else the variable's, parsed by the table (its default when both are unset or blank). */
  const opt = <K extends AgentSetting>(name: K): ValueOf<Settings[K]> => {
    const given = values[flagOf(name)];
    const raw = given === undefined ? env[name] : String(given);
    try {
      return setting(name, { [name]: raw });
    } catch (err) {
      if (!(err instanceof SettingError)) throw err;
      const spec: SettingSpec = SETTINGS[name];
      throw new ConfigError(`${named(name)}: must be ${allowedText(spec)}${spec.secret ? '' : `, got "${raw?.trim()}"`}`);
    }
  };

  const apiUrl = opt('HM_API_URL');
  if (!apiUrl) throw new ConfigError(`${named('HM_API_URL')} is required`);
  const tokenFile = opt('HM_AGENT_TOKEN_FILE');
  const token = opt('HM_AGENT_TOKEN') ?? (tokenFile ? readFile(tokenFile).trim() : undefined);
  if (!token) throw new ConfigError(`${named('HM_AGENT_TOKEN')} or ${named('HM_AGENT_TOKEN_FILE')} is required`);
  const executor: ExecutorKind = opt('HM_EXECUTOR');
  const hostKeys = (opt('HM_SSH_HOST_KEY') ?? '').split(/[\s,]+/).filter(Boolean);
  for (const k of hostKeys) {
    if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(k))
      throw new ConfigError(`${named('HM_SSH_HOST_KEY')}: must be SHA256:<43 base64 characters> as ssh-keygen -l prints it, got "${k}"`);
  }
  const insecureAcceptAnyHostKey = opt('HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY');
  const ssh = {
    host: opt('HM_SSH_HOST'),
    port: opt('HM_SSH_PORT'),
    user: opt('HM_SSH_USER'),
    keyFile: opt('HM_SSH_KEY'),
    hostKeys,
    insecureAcceptAnyHostKey,
  };
  if (executor === 'ssh' && !ssh.host) throw new ConfigError(`${named('HM_SSH_HOST')} is required with --executor ssh`);
  // an unpinned SSH executor lets whoever answers at the address drive the agent's host work
  if (executor === 'ssh' && !hostKeys.length && !insecureAcceptAnyHostKey) {
    throw new ConfigError(`${named('HM_SSH_HOST_KEY')} is required with --executor ssh (or --insecure-accept-any-host-key)`);
  }
  const simulatorState = opt('HM_SIMULATOR_STATE');
  if (executor === 'simulator' && !simulatorState) throw new ConfigError(`${named('HM_SIMULATOR_STATE')} is required with --executor simulator`);
  const nodeId = opt('HM_NODE_ID');
  if (nodeId && !/^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/.test(nodeId)) {
    throw new ConfigError(`${named('HM_NODE_ID')}: must be a UUID, got "${nodeId}"`);
  }
  return {
    apiUrl: apiUrl.replace(/\/+$/, ''),
    token,
    nodeId: nodeId?.toLowerCase(),
    nodeName: opt('HM_NODE_NAME'),
    nodeIp: opt('HM_NODE_IP'),
    queueUrl: opt('HM_QUEUE_URL'),
    queueEndpoint: opt('HM_QUEUE_ENDPOINT'),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined,
    executor,
    ssh,
    peerSsh: {
      port: opt('HM_PEER_SSH_PORT'),
      user: opt('HM_PEER_SSH_USER'),
      keyFile: opt('HM_PEER_SSH_KEY'),
      prefix: (opt('HM_PEER_SSH_PREFIX') ?? '').split(/\s+/).filter(Boolean),
    },
    simulatorState,
    programPath: opt('HM_AGENT_PATH'),
    concurrency: opt('HM_CONCURRENCY'),
    heartbeatIntervalS: opt('HM_HEARTBEAT_INTERVAL'),
    telemetryIntervalS: opt('HM_TELEMETRY_INTERVAL'),
    telemetryBatchIntervalS: opt('HM_TELEMETRY_BATCH_INTERVAL'),
    inventoryIntervalS: opt('HM_INVENTORY_INTERVAL'),
    inventorySweepIntervalS: opt('HM_INVENTORY_SWEEP_INTERVAL'),
    visibilityTimeoutS: opt('HM_VISIBILITY_TIMEOUT'),
    pollWaitS: opt('HM_POLL_WAIT'),
    drainTimeoutS: opt('HM_DRAIN_TIMEOUT'),
    stateDir: opt('HM_STATE_DIR'),
  };
}
