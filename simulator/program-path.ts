import type { SimHost } from '#shared/seed/host/schema';
import { PROGRAM_DIRS } from './profiles.ts';

/**
 * How a shell or execvp(3) finds a program: a name with a slash is taken as a path; a bare name is looked up
 * in each directory of PATH, in order (lib/libc/gen/exec.c execvPe; bin/sh/exec.c find_command). A program
 * lives in the one directory PROGRAM_DIRS names (base system or a pkg), unless the host does not have it at
 * all (`absentPrograms`, e.g. virsh on a host without the libvirt package). A command the simulator answers
 * without a PROGRAM_DIRS entry is found wherever it is looked for (test/unit/simulator/program-path.test.ts
 * lists those, so an entry is added with the command).
 */
export function locateProgram(state: Pick<SimHost, 'absentPrograms'>, argv0: string, path: string): string | null {
  const slash = argv0.lastIndexOf('/');
  const name = argv0.slice(slash + 1);
  if (state.absentPrograms?.includes(name)) return null;
  const home = PROGRAM_DIRS[name];
  if (slash >= 0) return home === undefined || home === (argv0.slice(0, slash) || '/') ? argv0 : null;
  if (home === undefined) return argv0;
  // an empty PATH element is the current directory (POSIX); the simulator keeps no programs there
  return path.split(':').includes(home) ? `${home}/${name}` : null;
}
