import type { VmOptions } from './inventory.ts';

// A VM's options before an operator sets any: what the agent reports for a domain without a registration, and what the store assumes.
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
