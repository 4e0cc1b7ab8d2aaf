import { SshExecutor } from '../executors/ssh.ts';
import type { Executor } from '../executors/executor.ts';
import type { PeerHost } from '#shared/agent-api/tasks';
import type { AgentConfig } from './config.ts';

/**
 * An SSH executor on another node's host, at the address the node registered, with the `--peer-ssh-*`
 * settings: what a job uses to stream data host to host (E20 `zfs send | ssh target zfs recv`). The host
 * must present one of the keys the control plane holds for that node (reported at its registration); a
 * node with none is never connected to. The caller closes it when done.
 */
export function peerExecutor(cfg: AgentConfig, peer: PeerHost): Executor {
  if (!peer.hostKeys.length) throw new Error(`the control plane holds no SSH host key for node ${peer.nodeId}: refusing to connect to ${peer.address}`);
  return new SshExecutor({
    host: peer.address,
    port: peer.port ?? cfg.peerSsh.port,
    username: peer.user ?? cfg.peerSsh.user,
    privateKeyPath: cfg.peerSsh.keyFile,
    hostKeySha256: peer.hostKeys,
    prefix: cfg.peerSsh.prefix.length ? cfg.peerSsh.prefix : undefined,
  });
}
