// The HTTP plumbing the bank simulators share: a bounded body reader, a JSON answer that is never
// written twice, and listening on a host and port (0: ephemeral) to learn the base URL.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_BODY_BYTES = 1024 * 1024;

/** The request body as text; undefined when it is over 1 MiB (the request is then destroyed). */
export function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Answers `body` (JSON text unless `contentType` says otherwise); nothing when the socket is gone. */
export function send(
  res: http.ServerResponse,
  status: number,
  body: string,
  contentType = 'application/json; charset=utf-8',
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Listens and resolves to the base URL without a trailing slash, e.g. http://127.0.0.1:41234. */
export async function listen(server: http.Server, host: string, port: number, scheme = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return `${scheme}://${address.includes(':') ? `[${address}]` : address}:${bound}`;
}
