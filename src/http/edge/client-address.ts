// The client's address for the failed-login counter, computed the way Fastify computes
// `request.ip` from TRUST_PROXY (fastify/lib/request.js, with the same @fastify/proxy-addr),
// for the requests the JSON fast lane answers without a Fastify request object.
// test/http/edge/json-fast-lane.test.ts checks both paths count failed logins per the same client.
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../../config.ts';

export type ClientAddress = (request: IncomingMessage) => string | undefined;

export function clientAddressOf(trustProxy: TrustProxy): ClientAddress {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trust = trustFunction(trustProxy);
  return (request) => {
    const addresses = proxyAddr.all(request, trust);
    return addresses[addresses.length - 1];
  };
}

function trustFunction(trustProxy: true | string[]): (address: string, hop: number) => boolean {
  return trustProxy === true ? () => true : proxyAddr.compile(trustProxy);
}
