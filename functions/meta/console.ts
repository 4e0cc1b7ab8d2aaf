import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { errorResponse } from '#http/envelope';

/** One file of the console, as the build wrote it into console.json (scripts/build/console.ts). */
interface ConsoleFile {
  type: string;
  body: string;
}

/** The built console (dist/console/), packed beside this bundle by the build like the API reference page's files. */
let files: Promise<Record<string, ConsoleFile>> | undefined;
const load = () => (files ??= readFile(new URL('./console.json', import.meta.url), 'utf8').then(JSON.parse));

/** The console loads nothing from elsewhere and talks only to this origin; uPlot and Preact set inline styles. */
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

/** GET / (the page) and GET /console/{file}; no token: see console.trigger.ts. */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyResultV2> => {
  const name = event.pathParameters?.file ?? 'index.html';
  const all = await load();
  const file = Object.hasOwn(all, name) ? all[name] : undefined;
  if (!file) return errorResponse(404, 'route_not_found', `no file ${name} in the web console; open /`);
  return {
    statusCode: 200,
    headers: { 'content-type': file.type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' },
    body: file.body,
  };
};
