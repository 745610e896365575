// The bare baseline for page scenarios: node:http answering every GET with the same HTML bytes
// (BASELINE_HTML_FILE, e.g. a console page captured in the same run). No framework, no session,
// no store: the ceiling for serving a page of that size on this machine.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const page = readFileSync(process.env.BASELINE_HTML_FILE ?? '/dev/null');

const server = createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': page.length,
    'cache-control': 'no-store',
  });
  response.end(page);
});
server.keepAliveTimeout = 60_000;
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`listening http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
