/**
 * Virtual machines as the agent reports them and the store holds them, with their options (E5, E6, E17,
 * E19). A VM is a libvirt bhyve domain named by its RID (as the original system
 * names them) plus the agent's registration: a runtime directory with `vm.json` (display name, shutdown
 * wait time, cloud-init texts, MACs, datasets). A registration whose domain libvirt no longer defines is
 * an orphaned registration (state `orphaned`), the only thing E10 purges.
 */

/** `virsh domstate` words, plus `orphaned` for a registration without a libvirt domain. */
export const VM_STATES = ['no state', 'running', 'idle', 'blocked', 'paused', 'in shutdown', 'shut off', 'crashed', 'pmsuspended', 'orphaned'] as const;
export type VmState = (typeof VM_STATES)[number];

export interface CloudInitOptions {
  /** user-data; '' when cloud-init is off */
  data: string;
  /** meta-data */
  metadata: string;
  /** network-config; optional even when cloud-init is on */
  networkConfig: string;
}

export interface VncOptions {
  enabled: boolean;
  /** IP literal the VNC server listens on */
  bind: string;
  /** TCP port; null only while VNC is off and no port was ever chosen */
  port: number | null;
  /** `WxH` */
  resolution: string;
  /** bhyve waits for a VNC client before booting the guest */
  wait: boolean;
  /** a password is set (the password itself is never reported or stored outside the domain XML) */
  auth: boolean;
}

export interface VmOptions {
  qemuGuestAgent: boolean;
  /** seconds a graceful shutdown may take before the VM is destroyed */
  shutdownWaitTime: number;
  cloudInit: CloudInitOptions;
  vnc: VncOptions;
}

/** One VM in the agent's inventory (`HostInventory.vms`). */
export interface VmInventory {
  rid: number;
  /** libvirt domain name (the RID) */
  domain: string;
  /** display name: the domain's <title>, else the registration's name, else the domain name */
  name: string;
  state: VmState;
  options: VmOptions;
  /** interface MAC addresses, lower case */
  macs: string[];
  /** ZFS datasets/zvols backing the VM */
  datasets: string[];
}

/** `guests.config` of a VM row. */
export interface VmConfig {
  domain: string;
  options: VmOptions;
  macs: string[];
  datasets: string[];
}

export const DEFAULT_SHUTDOWN_WAIT_TIME = 30;
export const DEFAULT_VNC_BIND = '127.0.0.1';
export const DEFAULT_VNC_RESOLUTION = '1024x768';
/** first port tried when VNC is enabled without one (5900 is VNC display :0) */
export const FIRST_AUTO_VNC_PORT = 5900;

export const defaultVmOptions = (): VmOptions => ({
  qemuGuestAgent: false,
  shutdownWaitTime: DEFAULT_SHUTDOWN_WAIT_TIME,
  cloudInit: { data: '', metadata: '', networkConfig: '' },
  vnc: { enabled: false, bind: DEFAULT_VNC_BIND, port: null, resolution: DEFAULT_VNC_RESOLUTION, wait: false, auth: false },
});
