/**
 * E13's input rules. A zvol is a relative ZFS path (`pool/vol`, no leading `/`, no `@` snapshot) of
 * `[A-Za-z0-9_.:%/-]`, at most 1024 characters, with no empty, `.` or `..` component.
 */
export const zvolSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  pattern: '^(?!.*(^|/)\\.{1,2}(/|$))[A-Za-z0-9_.:%-]+(/[A-Za-z0-9_.:%-]+)+$',
} as const;

/** ctld takes LUN numbers 0–1023 per target (MAX_LUNS is 1024). */
export const lunNumberSchema = { type: 'integer', minimum: 0, maximum: 1023 } as const;
