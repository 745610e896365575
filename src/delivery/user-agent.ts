// The User-Agent on every notification: the gateway's name and version (docs/notifications.md "The request").
import { gatewayPackage } from '../version.ts';

export function gatewayUserAgent(): string {
  const { name, version } = gatewayPackage();
  return `${name}/${version}`;
}
