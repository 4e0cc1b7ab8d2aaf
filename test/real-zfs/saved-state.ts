/**
 * The guest's saved machine state: the clean image booted once until `zfs version` answers (module loaded), then
 * its RAM and devices written out with QEMU's `migrate` to a file, and the disk blocks that boot wrote kept in a
 * qcow2 layer over the untouched raw image. Every test boot resumes it with `-incoming` on a throwaway
 * (`-snapshot`) layer over that qcow2, so each boot still starts from the same clean state and writes nothing back;
 * what it skips is the kernel's and systemd's start, ≈ 2.5 min of a full core under TCG.
 *
 * It lives beside the image, under the image's cache key, in a directory named by what a resume must match: the
 * accelerator, QEMU's version and the machine's arguments. It is made lazily (by `npm run provision:real-zfs`, or
 * by the first boot that finds none, with progress in the log) in a temporary directory renamed into place when
 * complete, under the image's lock file protocol so two runs never make it twice.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GuestImage, run, withLock } from '../../scripts/provision/openzfs-guest.ts';
import { freePort } from '../../scripts/stack/ports.ts';
import { type Accelerator, BootFailed, bootAndWait, kill, QEMU, qemuArgs, startQemu } from './qemu.ts';
import { qmpConnect } from './qmp.ts';

export interface SavedState {
  dir: string;
  /** the qcow2 layer over the image's rootfs.img holding what the first boot wrote */
  disk: string;
  /** the migration stream: RAM and device state */
  ram: string;
}

/** a bound for writing the state out (a few seconds: only the pages the boot touched are sent in full) */
const SAVE_DEADLINE_MS = 120_000;

/** The state's directory: its name changes with anything a resume must match, so a stale one is never resumed. */
export function stateDir(image: GuestImage, accel: Accelerator): string {
  const qemuVersion = spawnSync(QEMU, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  const template = qemuArgs(image, accel, { file: 'DISK', format: 'qcow2', throwaway: true }, 0, 'CONSOLE');
  const key = createHash('sha256')
    .update(JSON.stringify([qemuVersion, template]))
    .digest('hex')
    .slice(0, 12);
  return join(image.dir, `vmstate-${accel}-${key}`);
}

const stateAt = (dir: string): SavedState | undefined => {
  const s = { dir, disk: join(dir, 'disk.qcow2'), ram: join(dir, 'ram.state') };
  return existsSync(s.disk) && existsSync(s.ram) ? s : undefined;
};

/** The saved state for accel: the one on disk, else made now (one cold boot of the image; progress to log). */
export async function ensureSavedState(image: GuestImage, accel: Accelerator, log: (line: string) => void): Promise<SavedState> {
  const dir = stateDir(image, accel);
  const ready = stateAt(dir);
  if (ready) return ready;
  // a machine whose KVM hangs this image (no kernel line within the deadline) is remembered per host kernel, so
  // each boot does not wait that deadline out again; deleting the file tries again
  const noBoot = `${dir}.no-boot`;
  if (existsSync(noBoot)) {
    const [kernel, ...why] = readFileSync(noBoot, 'utf8').split('\n');
    if (kernel === release()) throw new BootFailed(`it did not boot here before (${noBoot}: ${why.join(' ').trim()})`);
  }
  return withLock(`${dir}.lock`, log, async () => {
    const again = stateAt(dir);
    if (again) return again;
    const prefix = `.building-${dir.split('/').pop()}-`;
    for (const old of readdirSync(image.dir)) if (old.startsWith(prefix)) rmSync(join(image.dir, old), { recursive: true, force: true });
    const tmp = join(image.dir, `${prefix}${process.pid}`);
    mkdirSync(tmp);
    try {
      await save(image, accel, tmp, log);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (e instanceof BootFailed) writeFileSync(noBoot, `${release()}\n${(e as Error).message.split('\n')[0]}\n`);
      throw e;
    }
    renameSync(tmp, dir);
    log(`real-zfs guest: saved state ready: ${dir}`);
    return stateAt(dir) as SavedState;
  });
}

async function save(image: GuestImage, accel: Accelerator, tmp: string, log: (line: string) => void): Promise<void> {
  log(`real-zfs guest: saving a ${accel.toUpperCase()} machine state for ${image.dir} (one cold boot: ≈ 2.5 min under TCG, once per image)…`);
  const disk = join(tmp, 'disk.qcow2');
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', 'raw', '-b', image.rootfs, disk], process.env, log);
  const work = mkdtempSync(join(tmpdir(), 'hm-openzfs-save-'));
  const keyFile = join(work, 'key');
  copyFileSync(image.key, keyFile);
  const sock = join(work, 'qmp.sock');
  const port = await freePort();
  const consoleLog = join(work, 'console.log');
  const child = startQemu(
    qemuArgs(image, accel, { file: disk, format: 'qcow2', throwaway: false }, port, consoleLog, ['-qmp', `unix:${sock},server=on,wait=off`]),
  );
  try {
    await bootAndWait(child, accel, port, keyFile, consoleLog);
    const qmp = await qmpConnect(sock);
    try {
      const ram = join(tmp, 'ram.state');
      // migrated while running (an idle guest converges at once): a state saved paused would resume paused, as
      // QEMU restores the source's run state with the stream
      await qmp.execute('migrate', { uri: `exec:cat > '${ram}'` });
      const until = Date.now() + SAVE_DEADLINE_MS;
      for (;;) {
        const { status, 'error-desc': why } = (await qmp.execute('query-migrate')) as { status?: string; 'error-desc'?: string };
        if (status === 'completed') break;
        if (status === 'failed' || status === 'cancelled') throw new Error(`saving the machine state ${status}: ${why ?? ''}`);
        if (Date.now() > until) throw new Error(`saving the machine state did not finish within ${SAVE_DEADLINE_MS} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await qmp.execute('quit').catch(() => undefined);
    } finally {
      qmp.close();
    }
  } finally {
    await kill(child);
    rmSync(work, { recursive: true, force: true });
  }
}
