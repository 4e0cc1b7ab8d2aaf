import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FinishReport } from '#shared/agent-api/contract';

/** A task's outcome as it is sent: the spool holds the report itself, not a copy of its shape. */
interface SpooledFinish {
  taskId: number;
  body: FinishReport;
}

/**
 * Task outcomes not yet accepted by the control plane, on disk: a result survives the API being down for a
 * while AND the agent being restarted meanwhile. Written before the first send, removed once it landed;
 * replayed at start, before stale tasks are marked interrupted.
 */
export class Spool {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'pending-results');
    mkdirSync(this.dir, { recursive: true });
  }

  private file(taskId: number) {
    return join(this.dir, `task-${taskId}.json`);
  }

  put(entry: SpooledFinish): void {
    const tmp = `${this.file(entry.taskId)}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    renameSync(tmp, this.file(entry.taskId));
  }

  remove(taskId: number): void {
    rmSync(this.file(taskId), { force: true });
  }

  list(): SpooledFinish[] {
    const out: SpooledFinish[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!/^task-\d+\.json$/.test(name)) continue;
      try {
        out.push(JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as SpooledFinish);
      } catch {
        rmSync(join(this.dir, name), { force: true }); // a torn write of a previous crash: nothing to replay
      }
    }
    return out.sort((a, b) => a.taskId - b.taskId);
  }
}
