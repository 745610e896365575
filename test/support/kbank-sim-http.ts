// Real HTTP(S) to the KBank simulator (src/dev/kbank-sim/server.ts) for its tests: a small client
// over node:http / node:https (so a TLS test can pass a CA and a client certificate, and a timeout
// test can see an answer that never comes), the token and QR calls with the credentials the
// simulator generated, and a throwaway CA with server and client certificates made by openssl.
import http from 'node:http';
import https from 'node:https';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KbankSim } from '../../src/dev/kbank-sim/server.ts';

export type HttpAnswer = { status: number; text: string; json: any; headers: http.IncomingHttpHeaders };
export type TlsMaterial = { ca: string; cert?: string; key?: string };
export type RequestOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  tls?: TlsMaterial;
  /** Give up (reject with "no answer") after this many ms; default 10 s. */
  timeoutMs?: number;
};

export class NoAnswer extends Error {}

export function request(url: string, options: RequestOptions = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const body = options.body ?? '';
  const headers = { ...options.headers, ...(body !== '' && { 'content-length': String(Buffer.byteLength(body)) }) };
  const common = { method: options.method ?? 'POST', headers, agent: false as const };
  return new Promise((resolve, reject) => {
    const req =
      target.protocol === 'https:'
        ? https.request(target, { ...common, ...options.tls })
        : http.request(target, common);
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new NoAnswer(`no answer from ${url}`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = undefined;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, text, json, headers: res.headers });
      });
    });
    req.end(body);
  });
}

/** The token call's headers for a consumer: Basic auth and a form body. */
export function basicAuth(consumerId: string, consumerSecret: string): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${consumerId}:${consumerSecret}`).toString('base64')}`,
    'content-type': 'application/x-www-form-urlencoded',
  };
}

/** Calls the simulator as a connector would, with the credentials it was started with. */
export class SimClient {
  readonly sim: KbankSim;
  readonly tls: TlsMaterial | undefined;
  accessToken = '';
  #uid = 0;

  constructor(sim: KbankSim, tls?: TlsMaterial) {
    this.sim = sim;
    this.tls = tls;
  }

  async token(headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const { consumerId, consumerSecret } = this.sim.credentials;
    const answer = await request(`${this.sim.url}/v2/oauth/token`, {
      headers: { ...basicAuth(consumerId, consumerSecret), ...headers },
      body: 'grant_type=client_credentials',
      ...(this.tls && { tls: this.tls }),
    });
    if (answer.status === 200) this.accessToken = answer.json.access_token;
    return answer;
  }

  /** POSTs a JSON body (an object, or raw text as is) with the bearer token. */
  call(path: string, body: unknown, headers: Record<string, string> = {}, timeoutMs?: number): Promise<HttpAnswer> {
    return request(`${this.sim.url}${path}`, {
      headers: { authorization: `Bearer ${this.accessToken}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(this.tls && { tls: this.tls }),
      ...(timeoutMs !== undefined && { timeoutMs }),
    });
  }

  /** A fresh 15-character partnerTxnUid: the prefix, then digits. */
  uid(prefix = 'T'): string {
    return `${prefix}${String(++this.#uid).padStart(15 - prefix.length, '0')}`;
  }

  /** The fields every QR call carries, for this simulator's partner and merchant. */
  common(partnerTxnUid = this.uid()): Record<string, unknown> {
    const { partnerId, partnerSecret, merchantId } = this.sim.credentials;
    return { partnerTxnUid, partnerId, partnerSecret, requestDt: '2026-01-05T10:00:00+07:00', merchantId };
  }

  /** A create body as text, so txnAmount can be written as the number token it must be (`100.50`). */
  createBody(partnerTxnUid: string, amountToken = '100.00', extra: Record<string, unknown> = {}): string {
    const fields = JSON.stringify({
      ...this.common(partnerTxnUid),
      qrType: '3',
      txnCurrencyCode: 'THB',
      reference1: 'REF1',
      reference2: null,
      ...extra,
    });
    return `${fields.slice(0, -1)},"txnAmount":${amountToken}}`;
  }

  create(partnerTxnUid: string, amountToken = '100.00', extra: Record<string, unknown> = {}): Promise<HttpAnswer> {
    return this.call('/v1/qrpayment/request', this.createBody(partnerTxnUid, amountToken, extra));
  }

  inquire(origPartnerTxnUid: string): Promise<HttpAnswer> {
    return this.call('/v1/qrpayment/v4/inquiry', { ...this.common(this.uid('I')), origPartnerTxnUid });
  }

  cancel(origPartnerTxnUid: string): Promise<HttpAnswer> {
    return this.call('/v1/qrpayment/cancel', { ...this.common(this.uid('C')), origPartnerTxnUid });
  }

  void(origPartnerTxnUid: string): Promise<HttpAnswer> {
    return this.call('/v1/qrpayment/void', { ...this.common(this.uid('V')), origPartnerTxnUid });
  }
}

export type Certificates = { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };

/** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate; null when openssl is missing. */
export function makeCertificates(): Certificates | null {
  if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'kbank-sim-tls-'));
  const run = (...args: string[]) => {
    const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  try {
    const key = (name: string) =>
      run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name);
    key('ca.key');
    run('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=kbank-sim test CA', '-days', '2', '-out', 'ca.crt');
    for (const [name, subject, extension] of [
      ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
      ['client', '/CN=partner-client/O=Test Partner', 'extendedKeyUsage=clientAuth'],
    ] as const) {
      key(`${name}.key`);
      writeFileSync(join(dir, `${name}.ext`), `${extension}\n`);
      run('req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
      run(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.crt`,
      );
    }
    const read = (name: string) => readFileSync(join(dir, name), 'utf8');
    return {
      ca: read('ca.crt'),
      serverCert: read('server.crt'),
      serverKey: read('server.key'),
      clientCert: read('client.crt'),
      clientKey: read('client.key'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
