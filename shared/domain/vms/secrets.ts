import type { CloudInitOptions, VncOptions } from './types.ts';

/**
 * Write-only VM secrets.
 *  - cloud-init user data and meta-data (passwords, SSH keys): operators may read them back on GET /api/vm/{rid};
 *    everyone else sees `null` and whether they are set (`dataSet`, `metadataSet`). networkConfig is not secret.
 *  - the VNC password: never returned to anyone, only `passwordSet`.
 * The node inventory the API returns shows the same redacted form to every role.
 */
interface CloudInitView {
  data: string | null;
  dataSet: boolean;
  metadata: string | null;
  metadataSet: boolean;
  networkConfig: string;
}

function cloudInitView(ci: Partial<CloudInitOptions> | undefined, mayRead: boolean): CloudInitView {
  const data = ci?.data ?? '';
  const metadata = ci?.metadata ?? '';
  return {
    data: mayRead ? data : null,
    dataSet: data !== '',
    metadata: mayRead ? metadata : null,
    metadataSet: metadata !== '',
    networkConfig: ci?.networkConfig ?? '',
  };
}

type VncView = Omit<VncOptions, never> & { passwordSet: boolean };

function vncView(v: VncOptions & { password?: unknown; passwd?: unknown }): VncView {
  const { password: _p, passwd: _q, ...rest } = v;
  void _p;
  void _q;
  return { ...rest, passwordSet: Boolean(v.auth) };
}

/** VM options as the API shows them to a reader who may (operators) or may not read the cloud-init secrets. */
export function vmOptionsView<O extends { cloudInit?: CloudInitOptions; vnc?: VncOptions }>(options: O, mayReadCloudInit: boolean) {
  return {
    ...options,
    ...(options.cloudInit ? { cloudInit: cloudInitView(options.cloudInit, mayReadCloudInit) } : {}),
    ...(options.vnc ? { vnc: vncView(options.vnc) } : {}),
  };
}

/** A node inventory as the API returns it: every VM's secrets redacted (for every role). */
export function redactInventory<I>(inventory: I): I {
  const inv = inventory as { vms?: unknown };
  if (!inv || typeof inv !== 'object' || !Array.isArray(inv.vms)) return inventory;
  const vms = inv.vms.map((v) => {
    const options = (v as { options?: { cloudInit?: CloudInitOptions; vnc?: VncOptions } })?.options;
    return options && typeof options === 'object' ? { ...(v as object), options: vmOptionsView(options, false) } : v;
  });
  return { ...(inventory as object), vms } as I;
}

/** True when a reported inventory carries a VNC password (it must not be stored; agents should never send it). */
export const reportsVncPassword = (inventory: { vms?: unknown }): boolean =>
  Array.isArray(inventory.vms) &&
  inventory.vms.some((v) => {
    const vnc = (v as { options?: { vnc?: Record<string, unknown> } })?.options?.vnc;
    return Boolean(vnc && ('password' in vnc || 'passwd' in vnc));
  });

/** The inventory without VNC passwords (what is stored). */
export function withoutVncPasswords<I extends { vms?: unknown }>(inventory: I): I {
  if (!reportsVncPassword(inventory)) return inventory;
  const vms = (inventory.vms as Array<{ options?: { vnc?: Record<string, unknown> } }>).map((v) => {
    const vnc = v?.options?.vnc;
    if (!vnc) return v;
    const { password: _p, passwd: _q, ...rest } = vnc;
    void _p;
    void _q;
    return { ...v, options: { ...v.options, vnc: rest } };
  });
  return { ...inventory, vms };
}
