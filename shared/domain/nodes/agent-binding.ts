import { forbidden } from '#shared/errors/domain-errors';
import type { Principal } from '#shared/auth/tokens';

/** The node an agent token speaks for: an `agent` token is bound to one node, and agent endpoints act on it only. */
export function boundNode(principal: Principal): string {
  if (!principal.nodeId) throw forbidden(`agent token "${principal.name}" is not bound to a node`);
  return principal.nodeId;
}

/** 403 unless the token is bound to exactly this node. */
export function requireBoundTo(principal: Principal, nodeId: string): string {
  const bound = boundNode(principal);
  if (bound !== nodeId) throw forbidden(`agent token "${principal.name}" is bound to node ${bound}, not to node ${nodeId}`);
  return bound;
}
