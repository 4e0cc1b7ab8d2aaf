import type { JailHooks } from './hooks.ts';

/** Task kinds of the jail capability and their payloads (merged into shared/jobs/protocol.ts TaskPayloads). */
export interface JailTaskPayloads {
  /** E3 (and re-application at agent start): hook scripts + `exec.<phase> +=` lines in the jail's conf */
  'jail.apply-hooks': { ctid: number; name: string; hooks: JailHooks };
  /**
   * E4 (and re-application at agent start): the post-start limits script (`cpuset -l`, `rctl -a`), and, when
   * `applyNow`, the same limits on the running jail at once
   */
  'jail.apply-limits': { ctid: number; name: string; cpuSet: number[]; memoryBytes: number; applyNow: boolean };
  /** E20: replicate over SSH, stop, final incremental, start on the target (agent/jobs/jail-migrate.ts) */
  'jail.migrate': { ctid: number; name: string; dataset: string; target: { nodeId: string; address: string } };
}
