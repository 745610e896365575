// The User-Agent on every notification: the gateway's name and version (contract §5), read once
// from package.json so a release bump cannot forget it.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function gatewayUserAgent(): string {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
  cached = `${pkg.name ?? 'thaiqr-gateway'}/${pkg.version ?? '0.0.0'}`;
  return cached;
}
