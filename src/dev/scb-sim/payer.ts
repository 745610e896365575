// The payer a payment reports (docs/connectors/scb-sim.md "The payer side"): the paying
// account, its holder's name and the sending bank. SCB sends the account's digits; the simulator
// can mask them as some banks' slips do ("xxx-x-x3000-1") so a connector meets partial
// visibility and keeps what it is given.
export type Payer = { accountNumber: string; name: string; bankCode: string; masked: boolean };

export const DEFAULT_PAYER = { accountNumber: '1502830001', name: 'SIM PAYER', bankCode: '014' } as const;

/** 1502830001 → "xxx-x-x3000-1": a 10-digit account in SCB's 3-1-5-1 grouping, all but the last 5 digits hidden. */
export function maskAccount(digits: string): string {
  if (digits.length === 10) return `xxx-x-x${digits.slice(5, 9)}-${digits[9]}`;
  return 'x'.repeat(Math.max(0, digits.length - 5)) + digits.slice(-5);
}
