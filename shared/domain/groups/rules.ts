import { ValidationError, type FieldError } from '#shared/errors/domain-errors';

/** Groups that are never deleted: the administrators' group and the group this service's files belong to. */
const SERVICE_GROUP = 'hostmgr';
export const PROTECTED_GROUPS: ReadonlySet<string> = new Set(['wheel', SERVICE_GROUP]);

/** `root` is always a member of `wheel`. */
export const ROOT_GROUP = { group: 'wheel', user: 'root' } as const;

/**
 * E1's usernames, trimmed; every blank or repeated one is a 400 naming its position
 * (`body.usernames[2]`). The order of the request is kept.
 */
export function normaliseUsernames(usernames: string[]): string[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const names = usernames.map((raw, i) => {
    const name = raw.trim();
    const field = `body.usernames[${i}]`;
    if (!name) errors.push({ field, problem: 'must not be blank' });
    else if (seen.has(name)) errors.push({ field, problem: `repeats body.usernames[${seen.get(name)}] ("${name}"); usernames must be unique` });
    else seen.set(name, i);
    return name;
  });
  if (errors.length) throw new ValidationError(errors);
  return names;
}
