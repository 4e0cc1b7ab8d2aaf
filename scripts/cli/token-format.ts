import { isWellFormedToken } from '#shared/auth/tokens';

/** How a token looks, and how to get one: the text of every refusal of a malformed secret. */
export const TOKEN_FORMAT_HELP =
  'a token is "hm_" followed by 43 base64url characters (A–Z, a–z, 0–9, "-", "_"), 46 in all; generate one with: npm run token -- generate';

/**
 * Why `value` (named `what` in the message) is not a well-formed token, or null when it is. The message
 * describes the value (length, prefix) but never repeats it: a mistyped secret is still a secret.
 */
export function tokenFormatProblem(what: string, value: string): string | null {
  if (isWellFormedToken(value)) return null;
  const trimmed = value.trim();
  const detail =
    trimmed !== value && isWellFormedToken(trimmed)
      ? 'it has surrounding whitespace'
      : !value.startsWith('hm_')
        ? `it does not start with "hm_" (${value.length} characters)`
        : value.length !== 46
          ? `it has ${value.length} characters`
          : 'it contains characters outside base64url';
  return `${what} is not a well-formed token: ${detail}; ${TOKEN_FORMAT_HELP}`;
}
