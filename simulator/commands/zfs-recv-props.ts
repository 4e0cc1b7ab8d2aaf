import type { SimDataset } from '#shared/seed/host/schema';

/**
 * `zfs receive -o property=value` / `-x property` of OpenZFS 2.2, as libzfs applies them to each dataset of a
 * stream (libzfs_sendrecv.c zfs_setup_cmdline_props):
 * - `-x p`: the received value is not used. An inheritable property is inherited; a non-inheritable one (canmount)
 *   is dropped from what is received, so the dataset keeps what it has, or the default when it is new. (libzfs
 *   skips a value set locally on the destination; the simulator does not tell local from received values and
 *   treats every value of a receive target as received.)
 * - `-o p=v`: set on the stream's top dataset as `zfs set` would; on the descendants the property is inherited
 *   instead (zfs-receive(8)), i.e. treated as `-x p` there.
 * - Raw streams (`zfs send -w`) cannot set or exclude encryption properties (keylocation excepted).
 * Each property may be named once over all `-o` and `-x` (zfs_main.c parseprop/parsepropname).
 */
const ENCRYPTION_PROPS = new Set(['encryption', 'keyformat', 'pbkdf2salt', 'pbkdf2iters']);
/** zfs_prop.c: registered without PROP_INHERIT (the ones a receive carries) */
const NON_INHERITABLE = new Set(['canmount', 'volsize', 'refquota', 'refreservation', 'quota', 'reservation']);

export interface RecvProps {
  set: Map<string, string>;
  exclude: Set<string>;
}

/** -o/-x in argv order; an error in zfs's words (exit 1) for a malformed or repeated one. */
export function parseRecvProps(args: string[]): RecvProps | { error: string } {
  const set = new Map<string, string>();
  const exclude = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const m = /^-([ox])(.*)$/.exec(args[i]);
    if (!m) continue;
    const arg = m[2] || args[++i] || '';
    if (m[1] === 'o' && !arg.includes('=')) return { error: "missing '=' for property=value argument" };
    if (m[1] === 'x' && arg.includes('=')) return { error: "invalid character '=' in property argument" };
    const name = m[1] === 'o' ? arg.slice(0, arg.indexOf('=')) : arg;
    if (set.has(name) || exclude.has(name)) return { error: `property '${name}' specified multiple times` };
    if (m[1] === 'o') set.set(name, arg.slice(name.length + 1));
    else exclude.add(name);
  }
  return { set, exclude };
}

/** The raw-stream refusal (its description; the caller prefixes the receive's errbuf), or null. */
export function rawStreamRefusal(p: RecvProps, raw: boolean): string | null {
  if (!raw) return null;
  const bad = [...p.set.keys(), ...p.exclude].find((n) => ENCRYPTION_PROPS.has(n));
  return bad ? `encryption property '${bad}' cannot be set or excluded for raw streams.` : null;
}

/**
 * Applies a received dataset's properties (`mountpoint` and the rest, as sent) to the destination `d`, with the
 * command line's -o/-x: the top dataset takes -o values, descendants inherit them, -x values are not received.
 */
export function applyReceivedProps(d: SimDataset, sent: { mountpoint?: string; properties?: Record<string, string> }, p: RecvProps, toplevel: boolean): void {
  const props: Record<string, string> = { ...(sent.properties ?? {}) };
  let mountpoint = sent.mountpoint;
  const notReceived = new Set([...p.exclude, ...(toplevel ? [] : p.set.keys())]);
  for (const name of notReceived) {
    if (name === 'mountpoint') {
      mountpoint = undefined;
      delete d.mountpoint;
    } else if (NON_INHERITABLE.has(name) && d.properties?.[name] !== undefined) props[name] = d.properties[name];
    else delete props[name];
  }
  if (toplevel) {
    for (const [name, value] of p.set) {
      if (name === 'mountpoint') mountpoint = value;
      else props[name] = value;
    }
  }
  if (mountpoint !== undefined && d.type === 'filesystem') d.mountpoint = mountpoint;
  d.properties = props;
}
