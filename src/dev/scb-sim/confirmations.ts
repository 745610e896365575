// Payment confirmations (docs/connectors/scb-sim.md "Confirmations"): for each successful
// payment the bank POSTs the transaction's record (state.ts transactionRecord) as JSON, unsigned,
// to the URL registered on the app. A try succeeds when the partner answers HTTP 200 with a JSON
// body whose resCode is "00"; otherwise it is resent up to `confirmation.resends` times (SCB: 3),
// `intervalMs` apart (SCB: 12 s), then given up. Sending, resending and timing are the shared
// dispatcher's (sim-kit/dispatcher.ts: real timers, a promise per delivery).
//
// Modes (when paying, POST /__sim/confirm, or queued as faults of the endpoint "confirmation"):
//   normal           send as configured
//   drop             send nothing (the partner never hears of the payment)
//   delay:<ms>       send <ms> later
//   duplicate:<n>    send the same body n times, one after the other
import type { SimClock } from '../sim-kit/clock.ts';
import { Dispatcher, timingOf, type Acceptance, type Delivery } from '../sim-kit/dispatcher.ts';
import { parseJsonObject, toWireJson } from '../sim-kit/wire-json.ts';
import type { SimConfig } from './config.ts';
import { transactionRecord, type Payment } from './state.ts';

export type ConfirmationMode =
  { kind: 'normal' } | { kind: 'drop' } | { kind: 'delay'; ms: number } | { kind: 'duplicate'; copies: number };

export type ConfirmationDelivery = Delivery<{ transactionId: string; ref1: string; forged: boolean }>;

export class ConfirmationModeError extends Error {}

export function parseConfirmationMode(text: string = 'normal'): ConfirmationMode {
  if (text === 'normal' || text === 'drop') return { kind: text };
  const delay = /^delay:(\d{1,7})$/.exec(text);
  if (delay) return { kind: 'delay', ms: Number(delay[1]) };
  const duplicate = /^duplicate:(\d{1,3})$/.exec(text);
  if (duplicate && Number(duplicate[1]) >= 1) return { kind: 'duplicate', copies: Number(duplicate[1]) };
  throw new ConfirmationModeError(
    `unknown confirmation mode ${JSON.stringify(text)}: normal, drop, delay:<ms>, duplicate:<n>`,
  );
}

export function confirmationModeText(mode: ConfirmationMode): string {
  if (mode.kind === 'delay') return `delay:${mode.ms}`;
  if (mode.kind === 'duplicate') return `duplicate:${mode.copies}`;
  return mode.kind;
}

/** SCB's acceptance: HTTP 200 (not any 2xx) and resCode "00". */
const SCB_ACCEPTS: Acceptance = {
  accepts: (status, text) => status === 200 && parseJsonObject(text)?.resCode === '00',
  refusal: 'the answer is not 200 with resCode "00"',
};

export class ConfirmationSender {
  readonly #config: SimConfig;
  readonly #dispatcher: Dispatcher<{ transactionId: string; ref1: string; forged: boolean }>;

  constructor(config: SimConfig, clock: SimClock) {
    this.#config = config;
    this.#dispatcher = new Dispatcher(() => config.confirmation, clock, SCB_ACCEPTS);
  }

  /** Sends `payment`'s confirmation to the registered URL; settles when the delivery is over. */
  send(payment: Payment, mode: ConfirmationMode): Promise<ConfirmationDelivery> {
    const body = toWireJson(transactionRecord(this.#config, payment));
    const subject = { transactionId: payment.transactionId, ref1: payment.ref1, forged: payment.forged };
    return this.#dispatcher.deliver(subject, this.#config.confirmUrl, body, timingOf(mode), confirmationModeText(mode));
  }

  deliveries(): ConfirmationDelivery[] {
    return this.#dispatcher.deliveries();
  }

  idle(): Promise<void> {
    return this.#dispatcher.idle();
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
