import { createHash } from 'node:crypto';

/** SQS FIFO MessageGroupId: 1–128 characters of [A-Za-z0-9] and ASCII punctuation. */
const SQS_GROUP_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The message group of a resource: the resource key itself when SQS accepts it (readable in the console),
 * else a hash of it, so that no resource name can make a send fail. Routing only: the agent serialises by
 * it, but what it runs comes from the store.
 */
export const messageGroupId = (resource: string): string =>
  SQS_GROUP_ID.test(resource) ? resource : `h:${createHash('sha256').update(resource).digest('hex')}`;
