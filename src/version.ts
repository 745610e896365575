// The gateway's name and version, read once from package.json so a release bump cannot forget
// them (notification User-Agent, /metrics build info).
import { readFileSync } from 'node:fs';

let cached: { name: string; version: string } | undefined;

export function gatewayPackage(): { name: string; version: string } {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    name?: string;
    version?: string;
  };
  cached = { name: pkg.name ?? 'thaiqr-gateway', version: pkg.version ?? '0.0.0' };
  return cached;
}
