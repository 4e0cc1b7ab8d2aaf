/**
 * A node id is the host's UUID in lowercase, as `sysctl -n kern.hostuuid` prints it: the id the agent
 * registers with (its --node-id must be a UUID too), so a seeded node and its agent always meet.
 */
export const NODE_ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
