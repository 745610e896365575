// The processors the connector contract (test/connectors/contract.ts) runs against, each behind a
// ConnectorHarness: the connector, the clock it reads, and what the test can do on the processor's
// side (pay a QR, settle the day, look at what arrived). The sandbox has no processor; KBank runs
// against kbank-sim on 127.0.0.1 (real HTTP), or against KBank's own sandbox when asked to
// (test/connectors/kbank-real-sandbox.test.ts); SCB against scb-sim on 127.0.0.1 (real HTTP).
import type { ProcessorConnector } from '../../src/app/ports/processor.ts';
import { KBANK_SANDBOX_URL, type KbankSettings } from '../../src/config/kbank.ts';
import { createKbankConnector, type KbankConnectorOptions } from '../../src/connectors/kbank/connector.ts';
import type { KbankCall } from '../../src/connectors/kbank/wire.ts';
import { sandboxConnector } from '../../src/connectors/sandbox/sandbox-connector.ts';
import { ProcessorUnavailable } from '../../src/domain/processor-errors.ts';
import { startKbankSim, type KbankSim, type KbankSimOptions } from '../../src/dev/kbank-sim/server.ts';
import type { ScbSettings } from '../../src/config/scb.ts';
import { createScbConnector, type ScbConnectorOptions } from '../../src/connectors/scb/connector.ts';
import { startScbSim, type ScbSim, type ScbSimOptions } from '../../src/dev/scb-sim/server.ts';

/** An assert.rejects matcher: ProcessorUnavailable, the outcome unknown or known as given. */
export const unavailable = (outcomeUnknown: boolean) => (error: unknown) =>
  error instanceof ProcessorUnavailable && error.outcomeUnknown === outcomeUnknown;

export type ConnectorHarness = {
  connector: ProcessorConnector;
  /** An amount the processor accepts (1/10,000 THB, whole satang). */
  amountMinor: bigint;
  /** The connector's clock (and the processor's, when the harness has one it can move). */
  now(): number;
  setNow(at: number): void;
  /** Whether the processor keeps a state per QR (a real sandbox answers canned scenarios instead). */
  stateful: boolean;
  /**
   * What the processor's inquiry finds: the QR it issued, by its reference (KBank: one it never
   * issued is not_found), or only payments made on a reference (SCB: nothing paid is requested
   * while a QR could still be paid, expired after).
   */
  inquiry: 'qr' | 'payments';
  /** The customer pays the QR; resolves with the processor's payment number. */
  pay?(reference: string): Promise<{ txnNo: string | null }>;
  /** End-of-day settlement at the processor: no void is possible afterwards. */
  settle?(): Promise<void>;
  /** The processor's own record of a QR: its status, and how many voids reached it. */
  processorView?(reference: string): Promise<{ status: string; voidRequests: number }>;
  /** The notification the processor sends when `reference` is paid, as it arrives. */
  notificationFor?(reference: string): Promise<{ body: Buffer; contentType: string }>;
  close(): Promise<void>;
};

export type ContractSubject = { name: string; start(): Promise<ConnectorHarness> };

/** 10:00 on Monday 5 January 2026 in Bangkok, where the contract's days start. */
export const CONTRACT_DAY = Date.parse('2026-01-05T10:00:00+07:00');

export const sandboxSubject: ContractSubject = {
  name: 'sandbox',
  async start() {
    let now = CONTRACT_DAY;
    return {
      connector: sandboxConnector,
      amountMinor: 1_234_500n,
      now: () => now,
      setNow: (at) => {
        now = at;
      },
      stateful: true,
      inquiry: 'qr',
      close: async () => {},
    };
  },
};

/** The KBank connector's settings for a simulator's credentials. */
export function kbankSettingsFor(sim: KbankSim, overrides: Partial<KbankSettings> = {}): KbankSettings {
  const { consumerId, consumerSecret, partnerId, partnerSecret, merchantId } = sim.credentials;
  return {
    baseUrl: sim.url,
    consumerId,
    consumerSecret,
    partnerId,
    partnerSecret,
    merchantId,
    terminalId: null,
    tlsCertFile: null,
    tlsKeyFile: null,
    testMode: false,
    callbackPathToken: 'c'.repeat(32),
    callbackAllowCidrs: [],
    voidCutoffMinute: 21 * 60 + 30,
    qrTtlMs: 600_000,
    timeoutMs: 2_000,
    ...overrides,
  };
}

/**
 * The gateway's settings for the KBank connector on a simulator (docs/connectors/kbank.md
 * "Settings"), for a gateway started from environment variables.
 */
export function kbankEnvFor(sim: KbankSim, callbackPathToken: string): Record<string, string> {
  const { consumerId, consumerSecret, partnerId, partnerSecret, merchantId } = sim.credentials;
  return {
    PROCESSOR_CONNECTOR: 'kbank',
    KBANK_BASE_URL: sim.url,
    KBANK_CONSUMER_ID: consumerId,
    KBANK_CONSUMER_SECRET: consumerSecret,
    KBANK_PARTNER_ID: partnerId,
    KBANK_PARTNER_SECRET: partnerSecret,
    KBANK_MERCHANT_ID: merchantId,
    KBANK_CALLBACK_PATH_TOKEN: callbackPathToken,
  };
}

/** A KBank connector on the simulator's clock; back-off waits are short so tests stay fast. */
export function kbankConnectorFor(
  sim: KbankSim,
  overrides: Partial<KbankSettings> = {},
  options: KbankConnectorOptions = {},
) {
  return createKbankConnector(kbankSettingsFor(sim, overrides), {
    now: () => sim.clock().unixMs,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
}

export function kbankSimSubject(simOptions: KbankSimOptions = {}): ContractSubject {
  return {
    name: 'kbank (kbank-sim)',
    async start() {
      const sim = await startKbankSim({ now: CONTRACT_DAY, ...simOptions });
      const connector = kbankConnectorFor(sim);
      return {
        connector,
        amountMinor: 1_234_500n,
        now: () => sim.clock().unixMs,
        setNow: (at) => void sim.setClock(at),
        stateful: true,
        inquiry: 'qr',
        async pay(reference) {
          const paid = sim.pay(reference);
          if (!paid.ok) throw new Error(`kbank-sim refused to pay ${reference}: ${paid.reason}`);
          await paid.callback;
          return { txnNo: paid.record.txnNo };
        },
        async settle() {
          sim.settle();
        },
        async processorView(reference) {
          const record = sim.state().records.find((r) => r.partnerTxnUid === reference);
          const voidRequests = sim
            .log()
            .requests.filter(
              (r) =>
                r.path === '/v1/qrpayment/void' &&
                (r.body as { origPartnerTxnUid?: string })?.origPartnerTxnUid === reference,
            ).length;
          return { status: record?.status ?? 'NONE', voidRequests };
        },
        async notificationFor(reference) {
          const delivery = await sim.deliverCallback(reference, 'normal');
          return { body: Buffer.from(delivery.body), contentType: 'application/json' };
        },
        async close() {
          connector.close();
          await sim.close();
        },
      };
    },
  };
}

/**
 * KBank's own sandbox (https://openapi-sandbox.kasikornbank.com). It answers by scenario (the
 * `env-id` header), not by what happened, so the harness keeps the story of the one QR under test
 * and picks each call's scenario from it: paying moves the inquiry to QR006 (PAID), a void to
 * QR007 (VOIDED), settling makes the void QR015 (settled).
 */
export function kbankRealSandboxSubject(env: {
  consumerId: string;
  consumerSecret: string;
  /** Another server answering KBank's sandbox scenarios (kbank-sim), for a rehearsal offline. */
  baseUrl?: string;
  name?: string;
}): ContractSubject {
  return {
    name: env.name ?? 'kbank (KBank sandbox)',
    async start() {
      let now = CONTRACT_DAY;
      let story: 'requested' | 'paid' | 'settled' | 'voided' | 'cancelled' = 'requested';
      const envIdFor = (call: KbankCall): string => {
        switch (call) {
          case 'token':
            return 'OAUTH2';
          case 'request':
            story = 'requested';
            return 'QR002';
          case 'inquiry':
            return { requested: 'QR004', cancelled: 'QR005', paid: 'QR006', settled: 'QR006', voided: 'QR007' }[story];
          case 'cancel':
            if (story === 'requested') story = 'cancelled';
            return story === 'paid' || story === 'settled' ? 'QR010' : story === 'voided' ? 'QR011' : 'QR008';
          case 'void':
            if (story === 'paid') story = 'voided';
            return story === 'settled' ? 'QR015' : 'QR012';
        }
      };
      const connector = createKbankConnector(
        {
          baseUrl: env.baseUrl ?? KBANK_SANDBOX_URL,
          consumerId: env.consumerId,
          consumerSecret: env.consumerSecret,
          // KBank's published sandbox test data (the same for every developer).
          partnerId: 'PTR1051673',
          partnerSecret: 'd4bded59200547bc85903574a293831b',
          merchantId: 'KB102057149704',
          terminalId: null,
          tlsCertFile: null,
          tlsKeyFile: null,
          testMode: true,
          callbackPathToken: 'c'.repeat(32),
          callbackAllowCidrs: [],
          voidCutoffMinute: 21 * 60 + 30,
          qrTtlMs: 600_000,
          timeoutMs: 15_000,
        },
        { now: () => now, envIdFor },
      );
      return {
        connector,
        // The sandbox's canned inquiries report 100.00 THB.
        amountMinor: 1_000_000n,
        now: () => now,
        setNow: (at) => {
          now = at;
        },
        stateful: false,
        inquiry: 'qr',
        async pay() {
          story = 'paid';
          return { txnNo: null };
        },
        async settle() {
          story = 'settled';
        },
        async close() {
          connector.close();
        },
      };
    },
  };
}

/** The SCB connector's settings for a simulator's credentials (SCB_QR=api unless overridden). */
export function scbSettingsFor(sim: ScbSim, overrides: Partial<ScbSettings> = {}): ScbSettings {
  const { apiKey, apiSecret, billerId, ref3Prefix } = sim.credentials;
  return {
    baseUrl: sim.baseUrl,
    apiKey,
    apiSecret,
    billerId,
    ref3Prefix,
    qrMode: 'api',
    qrTtlMs: 600_000,
    timeoutMs: 2_000,
    confirmPathToken: 'c'.repeat(32),
    confirmAllowCidrs: [],
    ...overrides,
  };
}

/**
 * The gateway's settings for the SCB connector on a simulator (docs/connectors/scb.md "Settings"),
 * for a gateway started from environment variables.
 */
export function scbEnvFor(sim: ScbSim, confirmPathToken: string): Record<string, string> {
  const { apiKey, apiSecret, billerId, ref3Prefix } = sim.credentials;
  return {
    PROCESSOR_CONNECTOR: 'scb',
    SCB_BASE_URL: sim.baseUrl,
    SCB_API_KEY: apiKey,
    SCB_API_SECRET: apiSecret,
    SCB_BILLER_ID: billerId,
    SCB_REF3_PREFIX: ref3Prefix,
    SCB_CONFIRM_PATH_TOKEN: confirmPathToken,
  };
}

/** An SCB connector on the simulator's clock; back-off waits are short so tests stay fast. */
export function scbConnectorFor(sim: ScbSim, overrides: Partial<ScbSettings> = {}, options: ScbConnectorOptions = {}) {
  return createScbConnector(scbSettingsFor(sim, overrides), {
    now: () => sim.clock().unixMs,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
}

export function scbSimSubject(simOptions: ScbSimOptions = {}): ContractSubject {
  return {
    name: 'scb (scb-sim)',
    async start() {
      const sim = await startScbSim({ now: CONTRACT_DAY, ...simOptions });
      const connector = scbConnectorFor(sim);
      /** The confirmation body of each paid reference (SCB's record of the payment). */
      const records = new Map<string, Record<string, string>>();
      return {
        connector,
        amountMinor: 1_234_500n,
        now: () => sim.clock().unixMs,
        setNow: (at) => void sim.setClock(at),
        stateful: true,
        inquiry: 'payments',
        async pay(reference) {
          const paid = sim.pay({ ref1: reference });
          if (!paid.ok) throw new Error(`scb-sim refused to pay ${reference}: ${paid.reason}`);
          await paid.confirmation;
          records.set(reference, paid.record);
          return { txnNo: paid.payment.transactionId };
        },
        async processorView(reference) {
          const paid = sim.state().payments.some((p) => p.ref1 === reference && !p.forged);
          const created = sim.state().qrs.some((q) => q.ref1 === reference);
          // SCB has no refund or void call: anything but the token, create, inquiry and slip would be one.
          const moneyCalls = sim
            .log()
            .requests.filter(
              (r) => !/\/(oauth\/token|qrcode\/create|billpayment\/(inquiry|transactions))/.test(r.path),
            );
          return { status: paid ? 'PAID' : created ? 'REQUESTED' : 'NONE', voidRequests: moneyCalls.length };
        },
        async notificationFor(reference) {
          const record = records.get(reference);
          if (!record) throw new Error(`${reference} was not paid through the harness`);
          return { body: Buffer.from(JSON.stringify(record)), contentType: 'application/json' };
        },
        async close() {
          connector.close();
          await sim.close();
        },
      };
    },
  };
}
