// Strict textual IP check (dotted-quad IPv4 or IPv6), without Node's net module so the
// domain stays free of I/O modules. ipaddr.js alone would also accept "0x7f.1" forms.
import ipaddr from 'ipaddr.js';

export function isIpAddress(value: string): boolean {
  if (value.length > 45) return false;
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return true;
  return value.includes(':') && ipaddr.IPv6.isValid(value);
}
