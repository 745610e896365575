// The bare baseline: node:http answering a JSON POST — read the body, JSON.parse it, answer a
// fixed-shape JSON object. No framework, no validation, no store: the ceiling for this machine.
import { createServer } from 'node:http';
import { baselineAnswer } from './baseline-response.ts';

const MAX_BODY = 16_384;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  request.on('end', () => {
    let status = 200;
    let answer: unknown;
    try {
      if (size > MAX_BODY) throw new Error('too large');
      answer = baselineAnswer(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      status = 400;
      answer = { type: 'error' };
    }
    const payload = JSON.stringify(answer);
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(payload),
    });
    response.end(payload);
  });
});

server.keepAliveTimeout = 60_000;
// The gateway's listen backlog (src/server.ts), so a burst of connects is treated alike.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`listening http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// Idle keep-alive sockets would hold close() open; the load generator has already stopped.
process.on('SIGTERM', () => server.closeAllConnections());
