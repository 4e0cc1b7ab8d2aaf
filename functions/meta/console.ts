import { staticFiles } from '#http/static-files';

/**
 * GET / (the page) and GET /console/{file}; no token: see console.trigger.ts. The built console (dist/console/)
 * is packed beside this bundle as console.json by the build (scripts/build/console.ts).
 */
export const handler = staticFiles(new URL('./console.json', import.meta.url), 'the web console', 'open /');
