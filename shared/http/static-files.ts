import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { errorResponse } from './envelope.ts';

/** One file of a page the build packed into a JSON file beside the function's bundle (name → type and body). */
interface PackedFile {
  type: string;
  body: string;
}

/**
 * Every file comes from this origin, and the browser is told to fetch nothing from anywhere else: scripts and
 * styles only from here, requests only to here. Swagger UI, uPlot and Preact set inline styles.
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

/**
 * A handler serving the files of one packed page (`{file}` path parameter, `index.html` without one): read once
 * per container, answered with the same-origin policy above; an unknown name is the 404 envelope saying `where`.
 * The pack ships beside the bundle, not inside it: bundled, it would be compiled at every cold start.
 */
export function staticFiles(pack: URL, what: string, where: string) {
  let files: Promise<Record<string, PackedFile>> | undefined;
  const load = () => (files ??= readFile(pack, 'utf8').then(JSON.parse));
  return async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> => {
    const name = event.pathParameters?.file ?? 'index.html';
    const all = await load();
    const file = Object.hasOwn(all, name) ? all[name] : undefined;
    if (!file) return errorResponse(404, 'route_not_found', `no file ${name} in ${what}; ${where}`);
    return {
      statusCode: 200,
      headers: { 'content-type': file.type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' },
      body: file.body,
    };
  };
}
