/**
 * The store floor of a cold start: what any function that takes a bearer token and reads the store does before
 * its own code runs — load node:crypto and hash (the token), load pg, connect, run one statement. No kysely, no
 * Middy, no validators, no handler. bench/cold-init.ts bundles it as the build bundles a function and measures it
 * beside them: the room a function has under the ≤ 2× target is what is left above this line.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

export const handler = async () => {
  createHash('sha256').update('a token').digest('hex');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query('SELECT 1');
  return { statusCode: 200, body: JSON.stringify({ message: 'store floor' }) };
};
