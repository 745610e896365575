// The URLs among the settings: PUBLIC_BASE_URL (what customers' browsers are sent to) and DATABASE_URL.
import type { GatewayMode } from '../config.ts';

/** http://HOST:PORT, the public base URL when none is set. */
export function defaultPublicBaseUrl(host: string, port: number): string {
  // Listening on every interface says nothing about the address browsers use; localhost at least works on this machine.
  const baseHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${baseHost.includes(':') ? `[${baseHost}]` : baseHost}:${port}`;
}

/** What is wrong with PUBLIC_BASE_URL, if anything: it must be absolute http(s), and https in live mode. */
export function publicBaseUrlProblem(url: string, mode: GatewayMode): string | undefined {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'http:' && protocol !== 'https:') return `PUBLIC_BASE_URL="${url}" must be an absolute http(s) URL`;
  if (mode === 'live' && protocol !== 'https:') return `PUBLIC_BASE_URL="${url}" must be https in live mode`;
  return undefined;
}

/** The two stores the gateway runs on: a SQLite file or a PostgreSQL server (docs/deployment.md). */
export function isDatabaseUrl(url: string): boolean {
  return /^sqlite:.+/.test(url) || /^postgres(ql)?:\/\//.test(url);
}

/** Never print a database password, even in a configuration error. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
