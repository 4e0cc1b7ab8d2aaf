import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { errorResponse } from './envelope.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

/** One file of a page the build packed into a JSON file beside the function's bundle (name → type and body). */
interface PackedFile {
  type: string;
  body: string;
}

/**
 * A handler serving the files of one packed page (`{file}` path parameter, `index.html` without one): read once
 * per container, answered with the security headers (./security-headers.ts); an unknown name is the 404 envelope saying `where`.
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
      headers: { 'content-type': file.type, ...SECURITY_HEADERS, 'cache-control': 'no-cache' },
      body: file.body,
    };
  };
}
