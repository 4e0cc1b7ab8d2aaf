/**
 * Token roles: viewer (reads), operator (+ guest, storage, network, notification, backup and note changes),
 * admin (everything). viewer < operator < admin form a ladder; `agent` stands apart and may call
 * only /api/agent/* (and is bound to one node).
 */
export const ROLES = ['viewer', 'operator', 'admin', 'agent'] as const;
export type Role = (typeof ROLES)[number];

const LADDER: Record<Role, number> = { viewer: 1, operator: 2, admin: 3, agent: 0 };

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether a principal holding `held` may call an endpoint that requires `required`. */
export function roleAllows(held: Role, required: Role): boolean {
  if (required === 'agent' || held === 'agent') return held === required;
  return LADDER[held] >= LADDER[required];
}
