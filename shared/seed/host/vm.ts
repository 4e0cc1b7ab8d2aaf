/**
 * The seed's description of a simulated host's VMs (`host.vms`), and their runtime state in the state file.
 * The seed says what an operator would: name, state, CPUs, memory, NICs, zvols and the options; at first
 * use the simulator makes each into a libvirt bhyve domain definition (`xml`) and the agent's registration
 * files (/var/db/hostmgr/vms/<rid>/…). From then on `xml` is the truth `virsh` answers from.
 */
const mac = { type: 'string', pattern: '^([0-9a-f]{2}:){5}[0-9a-f]{2}$' } as const;

export const simVmSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rid', 'name', 'state'],
  properties: {
    /** the guest id; also the libvirt domain name, as the original system names domains */
    rid: { type: 'integer', minimum: 1, maximum: 9999 },
    /** display name (the domain's <title>) */
    name: { type: 'string', minLength: 1, maxLength: 128 },
    /** libvirt's state; `orphaned`: libvirt does not define it, only the agent's registration files are left */
    state: { enum: ['running', 'shut off', 'paused', 'orphaned'] },
    uuid: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' },
    vcpus: { type: 'integer', minimum: 1, maximum: 256 },
    memoryBytes: { type: 'integer', minimum: 1048576 },
    /** one bridged virtio NIC per MAC, on bridge0 */
    macs: { type: 'array', items: mac },
    /** zvols backing the disks (`/dev/zvol/<name>`), in order; list them in `datasets` too */
    zvols: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_.:/%-]+$' } },
    guestAgent: { type: 'boolean' },
    vnc: {
      type: 'object',
      additionalProperties: false,
      required: ['port'],
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        bind: { type: 'string' },
        resolution: { type: 'string', pattern: '^[0-9]+x[0-9]+$' },
        password: { type: 'string' },
        wait: { type: 'boolean' },
      },
    },
    cloudInit: {
      type: 'object',
      additionalProperties: false,
      required: ['data', 'metadata'],
      properties: { data: { type: 'string' }, metadata: { type: 'string' }, networkConfig: { type: 'string' } },
    },
    shutdownWaitTime: { type: 'integer', minimum: 1, maximum: 3600 },
    /**
     * what the guest does with an ACPI power-button press (`virsh shutdown`/`reboot`): `honours` (default) powers
     * off after `acpiShutdownSeconds`; `ignores` keeps running (a guest without ACPI support, a hung one), so
     * only `virsh destroy` stops it
     */
    acpi: { enum: ['honours', 'ignores'] },
    /** how long a guest that honours the button takes to power off (default 2 s) */
    acpiShutdownSeconds: { type: 'number', minimum: 0, maximum: 3600 },
    /** libvirt starts the domain when libvirtd starts at boot (`virsh autostart`) */
    autostart: { type: 'boolean' },
    /** runtime: the persistent domain definition libvirt holds (absent in seeds: made from the fields above) */
    xml: { type: 'string' },
    /** runtime: the domain id while it runs: the bhyve process's PID */
    id: { type: 'integer', minimum: 1 },
    /** runtime: when the guest, having taken the power button, powers off (simulated Unix ms) */
    powerOffAtMs: { type: 'integer' },
    /** runtime: `virsh reboot` asked for a restart when the bhyve process exits (bhyve_monitor.c) */
    rebootOnPowerOff: { type: 'boolean' },
    /** runtime: undefined while running (a transient domain); libvirt forgets it when it stops */
    transient: { type: 'boolean' },
    /** runtime: the registration files were written (so a purged registration is not re-created) */
    materialized: { type: 'boolean' },
  },
} as const;
