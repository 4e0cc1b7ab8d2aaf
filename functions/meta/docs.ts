import { staticFiles } from '#http/static-files';

/**
 * GET /api/docs (the page) and GET /api/docs/{file} (its scripts and styles); no token: see docs.trigger.ts.
 * The page's files (Swagger UI from npm, ≈ 1.6 MB) are packed beside the bundle as docs.json by the build
 * (scripts/build/docs-page.ts), like the OpenAPI document beside meta/openapi.
 */
export const handler = staticFiles(new URL('./docs.json', import.meta.url), 'the API reference page', 'see GET /api/docs');
