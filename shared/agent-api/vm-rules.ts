/**
 * Bounds of the VM option rules (E6 wait time, E19 VNC resolution and port), written once: the endpoint
 * schemas use them and the checks JSON Schema cannot express (cloud-init-rules.ts, vnc-rules.ts) report
 * against them.
 */
export const WAIT_TIME = { min: 1, max: 3600 } as const;
export const VNC_WIDTH = { min: 640, max: 3840 } as const;
export const VNC_HEIGHT = { min: 480, max: 2160 } as const;
/** libvirt's bhyve driver refuses other ports at start (bhyve_command.c: "vnc port must be in range [5900,65535]") */
export const VNC_PORT = { min: 5900, max: 65535 } as const;
