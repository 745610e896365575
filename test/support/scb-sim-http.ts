// Real HTTP to the SCB simulator (src/dev/scb-sim/server.ts) for its tests: SCB's calls with the
// standard headers and the credentials the simulator generated, over the plain client of
// kbank-sim-http.ts (so a test sees an answer that never comes, or a dropped connection).
import type { ScbSim } from '../../src/dev/scb-sim/server.ts';
import { request, type HttpAnswer } from './kbank-sim-http.ts';

export { request, NoAnswer, type HttpAnswer } from './kbank-sim-http.ts';

export class ScbClient {
  readonly sim: ScbSim;
  accessToken = '';
  #uid = 0;

  constructor(sim: ScbSim) {
    this.sim = sim;
  }

  /** A fresh requestUId: 32 letters and digits (what v2 demands). */
  requestUId(): string {
    return `REQ${String(++this.#uid).padStart(29, '0')}`;
  }

  /** The standard headers of every call; `omit` leaves some out. */
  headers(omit: string[] = [], withToken = true): Record<string, string> {
    const all: Record<string, string> = {
      'content-type': 'application/json',
      resourceOwnerId: this.sim.credentials.apiKey,
      requestUId: this.requestUId(),
      'accept-language': 'EN',
      ...(withToken && { authorization: `Bearer ${this.accessToken}` }),
    };
    for (const name of omit) delete all[name];
    return all;
  }

  async token(body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const { apiKey, apiSecret } = this.sim.credentials;
    const answer = await request(`${this.sim.baseUrl}/v1/oauth/token`, {
      headers: { ...this.headers([], false), ...headers },
      body: JSON.stringify({ applicationKey: apiKey, applicationSecret: apiSecret, ...body }),
    });
    if (answer.status === 200) this.accessToken = answer.json.data.accessToken;
    return answer;
  }

  /** A create body for this simulator's biller and ref3 prefix. */
  qrBody(ref1: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    const { billerId, ref3Prefix } = this.sim.credentials;
    return {
      qrType: 'PP',
      ppType: 'BILLERID',
      ppId: billerId,
      amount: '100.00',
      ref1,
      ref2: 'REF2',
      ref3: `${ref3Prefix}GW`,
      ...extra,
    };
  }

  create(version: 'v1' | 'v2', body: Record<string, unknown>, timeoutMs?: number): Promise<HttpAnswer> {
    return request(`${this.sim.baseUrl}/${version}/payment/qrcode/create`, {
      headers: this.headers(),
      body: JSON.stringify(body),
      ...(timeoutMs !== undefined && { timeoutMs }),
    });
  }

  inquire(query: Record<string, string>): Promise<HttpAnswer> {
    const params = new URLSearchParams({ eventCode: '00300100', billerId: this.sim.credentials.billerId, ...query });
    return request(`${this.sim.baseUrl}/v1/payment/billpayment/inquiry?${params}`, {
      method: 'GET',
      headers: this.headers(['content-type']),
    });
  }

  slip(transactionId: string, sendingBank = '014'): Promise<HttpAnswer> {
    return request(
      `${this.sim.baseUrl}/v1/payment/billpayment/transactions/${transactionId}?sendingBank=${sendingBank}`,
      {
        method: 'GET',
        headers: this.headers(['content-type']),
      },
    );
  }
}
