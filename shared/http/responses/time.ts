/** A timestamp as the API writes it: ISO 8601 in UTC (`Date.prototype.toISOString`). */
export const isoTime = { type: 'string', format: 'date-time' } as const;
/** A timestamp that may be absent (`null`). */
export const isoTimeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
