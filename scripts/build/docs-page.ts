import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The files of the API reference page (GET /api/docs, functions/meta/docs.ts), by name: the page's own
 * (functions/meta/docs-page/) and Swagger UI's prebuilt browser bundle and styles from npm (swagger-ui-dist),
 * so the page loads nothing from a CDN. Their source-map comments are dropped: the maps are not served.
 */
export function docsPage(): Record<string, { type: string; body: string }> {
  const swagger = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const text = (file: string) => readFileSync(file, 'utf8').replace(/\n\/[*/]# sourceMappingURL=\S+( \*\/)?\s*$/, '\n');
  const own = (name: string) => text(join('functions/meta/docs-page', name));
  return {
    'index.html': { type: 'text/html; charset=utf-8', body: own('index.html') },
    'init.js': { type: 'text/javascript; charset=utf-8', body: own('init.js') },
    'page.css': { type: 'text/css; charset=utf-8', body: own('page.css') },
    'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: text(join(swagger, 'swagger-ui-bundle.js')) },
    'swagger-ui.css': { type: 'text/css; charset=utf-8', body: text(join(swagger, 'swagger-ui.css')) },
  };
}
