import { createHmac } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the webhook secret (the forges' scheme). */
export const signBody = (secret: string, rawBody: string) => `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
