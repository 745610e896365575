// The bare baseline for page views: node:http answering every GET with a fixed HTML document of
// the hosted page's size (~10 KB), no template, no store. The ceiling for a page view here.
import { createServer } from 'node:http';

const html = `<!doctype html><html><body>${'<p>Thai QR payment page placeholder text.</p>'.repeat(220)}</body></html>`;
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  response.end(html);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
