import type { Trigger } from '#shared/trigger';

/**
 * The API reference page is public: a browser's navigation carries no bearer token, and the page holds only
 * the renderer. The document it renders stays viewer-only (GET /api/openapi.json): the page fetches it with
 * the token the reader enters, so nothing about the API is shown without one.
 */
export const trigger = {
  summary: 'The API reference page: the OpenAPI document rendered by Swagger UI, with "try it" against this API',
  pages: ['/api/docs', '/api/docs/{file}'],
} as const satisfies Trigger;
