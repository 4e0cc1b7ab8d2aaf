/** The `data` of an answer that carries none (`data: null`). */
export const nullData = { type: 'null' } as const;
