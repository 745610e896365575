// GET /docs — the API reference for people: Swagger UI rendering /openapi.json. Its assets come
// from the swagger-ui-dist package and are served here (no CDN), under a strict CSP: scripts and
// styles only from this origin, nothing inline, so the page runs with no 'unsafe-*' source.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import { escapeHtml } from '../hosted-page/html.ts';
import { OPENAPI_PATH } from './openapi.ts';

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const DIST_VERSION = (JSON.parse(readFileSync(join(DIST, 'package.json'), 'utf8')) as { version: string }).version;

// Our initialiser as a file, not an inline script: the CSP allows no inline code.
const INIT_SCRIPT =
  `window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({ url: root.getAttribute('data-url'), dom_id: '#swagger-ui', validatorUrl: null, ` +
  `deepLinking: true, defaultModelsExpandDepth: 0 });
});
`;

const ASSETS: Record<string, { type: string; load: () => Buffer }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', load: () => readFileSync(join(DIST, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': {
    type: 'text/javascript; charset=utf-8',
    load: () => readFileSync(join(DIST, 'swagger-ui-bundle.js')),
  },
  'docs-init.js': { type: 'text/javascript; charset=utf-8', load: () => Buffer.from(INIT_SCRIPT) },
  'favicon-32x32.png': { type: 'image/png', load: () => readFileSync(join(DIST, 'favicon-32x32.png')) },
};

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', DOCS_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

export function registerDocsPage(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl'>): void {
  // Absolute paths under PUBLIC_BASE_URL, as the hosted page does, so a path prefix works.
  const base = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, '');
  const asset = (name: string) => `${base}/docs/assets/${name}?v=${DIST_VERSION}`;
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference — Thai QR payment gateway</title>
<link rel="icon" href="${escapeHtml(asset('favicon-32x32.png'))}">
<link rel="stylesheet" href="${escapeHtml(asset('swagger-ui.css'))}">
</head>
<body>
<div id="swagger-ui" data-url="${escapeHtml(`${base}${OPENAPI_PATH}`)}"></div>
<script src="${escapeHtml(asset('swagger-ui-bundle.js'))}"></script>
<script src="${escapeHtml(asset('docs-init.js'))}"></script>
</body>
</html>
`;
  const loaded = new Map<string, Buffer>();

  app.get('/docs', async (_request, reply) =>
    securityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page),
  );
  app.get('/docs/assets/:name', async (request, reply) => {
    const name = (request.params as { name: string }).name;
    const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!spec) return securityHeaders(reply).code(404).type('text/plain; charset=utf-8').send('Not found');
    let body = loaded.get(name);
    if (!body) loaded.set(name, (body = spec.load()));
    // The URL carries the renderer's version, so a cached copy never outlives an upgrade.
    return securityHeaders(reply).header('cache-control', 'public, max-age=86400').type(spec.type).send(body);
  });
}
