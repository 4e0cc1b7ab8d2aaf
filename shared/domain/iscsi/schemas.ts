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

/**
 * The auth-groups every ctld has without a configuration block (conf_new_from_file in usr.sbin/ctld/ctld.c):
 * `default` (deny unless redefined), `no-authentication`, `no-access`. hostmgr writes no auth-group blocks, so a
 * target or portal group may name only these; ctld refuses any other name (`unknown auth-group`).
 */
export const BUILTIN_AUTH_GROUPS = ['default', 'no-authentication', 'no-access'] as const;
export const authGroupSchema = { type: 'string', enum: BUILTIN_AUTH_GROUPS } as const;
