import type { Trigger } from '#shared/trigger';

/**
 * The web console's files on the API's origin (locally, under `npm start`; deployed, CloudFront serves the same
 * files from S3): `/` is its page, `/console/{file}` its script, styles and chunks. They are public like the API
 * reference page: the console holds no data, every call it makes carries the token the operator signs in with.
 */
export const trigger = {
  summary: 'The web console: its page at / and its files at /console/{file} (the console calls this API with a bearer token)',
  pages: ['/', '/console/{file}'],
} as const satisfies Trigger;
