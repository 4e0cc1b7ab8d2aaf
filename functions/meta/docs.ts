import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { errorResponse } from '#http/envelope';

/** One file of the page, as the build wrote it into docs.json (scripts/build/docs-page.ts). */
interface PageFile {
  type: string;
  body: string;
}

/**
 * The page's files (Swagger UI from npm, ≈ 1.6 MB) ship beside the bundle in dist/functions/meta/docs.json,
 * not inside it, like the OpenAPI document beside meta/openapi: bundled JavaScript would blow the 300 KB
 * budget and be compiled at every cold start.
 */
let files: Promise<Record<string, PageFile>> | undefined;
const load = () => (files ??= readFile(new URL('./docs.json', import.meta.url), 'utf8').then(JSON.parse));

/**
 * Every file comes from this origin, and the browser is told to fetch nothing from anywhere else: scripts and
 * styles only from here, requests ("try it", the document) only to here. Swagger UI sets inline styles.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /api/docs (the page) and GET /api/docs/{file} (its scripts and styles); no token: see docs.trigger.ts. */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> => {
  const name = event.pathParameters?.file ?? 'index.html';
  const file = Object.hasOwn(await load(), name) ? (await load())[name] : undefined;
  if (!file) return errorResponse(404, 'route_not_found', `no file ${name} in the API reference page; see GET /api/docs`);
  return {
    statusCode: 200,
    headers: { 'content-type': file.type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' },
    body: file.body,
  };
};
