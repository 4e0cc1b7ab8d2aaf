/** Node ids are the hosts' UUIDs; anything else simply is not found, but keep the input bounded. */
export const nodeIdSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;
