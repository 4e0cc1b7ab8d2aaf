/**
 * Whether a value fits a sysctl's type, as `sysctl -t` names the types (FreeBSD sbin/sysctl/sysctl.c
 * `ctl_typename`), plus `boolean` for collectors that report SYSCTL_BOOL knobs as such. Integers are plain
 * decimal (sysctl itself also takes 0x… and octal, but a settings record should read unambiguously).
 */
const INTEGER_RANGES: Record<string, [bigint, bigint]> = (() => {
  const s = (bits: number): [bigint, bigint] => [-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n];
  const u = (bits: number): [bigint, bigint] => [0n, 2n ** BigInt(bits) - 1n];
  return {
    int8_t: s(8),
    int16_t: s(16),
    int32_t: s(32),
    int64_t: s(64),
    uint8_t: u(8),
    uint16_t: u(16),
    uint32_t: u(32),
    uint64_t: u(64),
    integer: s(32),
    'unsigned integer': u(32),
    // FreeBSD's hosts are LP64: long is 64 bits
    long: s(64),
    'long integer': s(64),
    'unsigned long': u(64),
  };
})();

const BOOLEAN_VALUES: Record<string, string> = { '0': '0', '1': '1', false: '0', true: '1' };

/** Types sysctl cannot set from the command line. */
const UNSETTABLE = new Set(['node', 'opaque']);

type ValueCheck = { ok: true; value: string } | { ok: false; problem: string };

/** Checks `value` against `type`; on success returns the value to persist and hand to sysctl. */
export function checkTunableValue(type: string, value: string): ValueCheck {
  const range = INTEGER_RANGES[type];
  if (range) {
    if (!/^-?[0-9]+$/.test(value)) return { ok: false, problem: `must be a decimal integer (type ${type})` };
    const n = BigInt(value);
    if (n < range[0] || n > range[1]) return { ok: false, problem: `must be between ${range[0]} and ${range[1]} (type ${type})` };
    return { ok: true, value: n.toString() };
  }
  if (type === 'boolean' || type === 'bool') {
    const v = BOOLEAN_VALUES[value.toLowerCase()];
    return v === undefined ? { ok: false, problem: 'must be one of 0, 1, true, false (type boolean)' } : { ok: true, value: v };
  }
  if (type === 'string') {
    // sysctl takes the value as one argv word; a control character cannot be part of a string knob
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    if (/[\u0000-\u001f\u007f]/.test(value)) return { ok: false, problem: 'must not contain control characters (type string)' };
    return { ok: true, value };
  }
  if (UNSETTABLE.has(type)) return { ok: false, problem: `cannot be set: tunables of type ${type} take no value` };
  return { ok: false, problem: `cannot be checked: unknown tunable type ${type}` };
}
