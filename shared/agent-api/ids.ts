/** The JSON schema of a row id: a positive PostgreSQL `integer` (serial), so never above 2^31 − 1. */
export const id32 = { type: 'integer', minimum: 1, maximum: 2147483647 } as const;
