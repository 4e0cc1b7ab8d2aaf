import { SshExecutor } from '../executors/ssh.ts';
import type { Executor } from '../executors/executor.ts';
import type { AgentConfig } from './config.ts';

/**
 * An SSH executor on another node's host, at the address the node registered (`nodes.ip`), with the
 * `--peer-ssh-*` settings: what a job uses to stream data host to host (E20 `zfs send | ssh target zfs recv`).
 * The caller closes it when done.
 */
export function peerExecutor(cfg: AgentConfig, address: string): Executor {
  return new SshExecutor({
    host: address,
    port: cfg.peerSsh.port,
    username: cfg.peerSsh.user,
    privateKeyPath: cfg.peerSsh.keyFile,
    prefix: cfg.peerSsh.prefix.length ? cfg.peerSsh.prefix : undefined,
  });
}
