/**
 * The PATH the agent runs host programs with. A service started by rc(8) or service(8) inherits
 * PATH=/sbin:/bin:/usr/sbin:/usr/bin (libexec/rc/rc; usr.sbin/service/service.sh runs the script under
 * `env -i … PATH=/sbin:/bin:/usr/sbin:/usr/bin`), which lacks /usr/local/{sbin,bin}, where packages install
 * their programs (virsh is /usr/local/bin/virsh). Programs are called by bare name, so the agent adds those
 * two directories to whatever it inherited; HM_AGENT_PATH replaces the whole value.
 */
export const PACKAGE_DIRS = ['/usr/local/sbin', '/usr/local/bin'] as const;

/** What rc(8) and service(8) give a service (and what is used when nothing at all is inherited). */
export const SERVICE_PATH = '/sbin:/bin:/usr/sbin:/usr/bin';

export function programPath(explicit: string | undefined, inherited: string | undefined): string {
  if (explicit) return explicit;
  const dirs = (inherited || SERVICE_PATH).split(':').filter(Boolean);
  for (const d of PACKAGE_DIRS) if (!dirs.includes(d)) dirs.push(d);
  return dirs.join(':');
}
