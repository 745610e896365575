// The processor connector is where a live debit would go to the payer's bank. Only the
// sandbox connector ships: it settles by the contract's amount rule when the customer
// confirms. A bank connector implements the same interface and declares `live: true`.
import { outcomeFor, type FinalOutcome } from '../domain/lifecycle.ts';

export interface ProcessorConnector {
  readonly name: string;
  /** True only for connectors that move real money; live mode refuses anything else. */
  readonly live: boolean;
  /** Decides the outcome of a customer's confirmation. */
  confirm(payment: { transactionId: string; amountMinor: bigint; payerBankCode: string }): Promise<FinalOutcome>;
}

export const sandboxConnector: ProcessorConnector = {
  name: 'sandbox',
  live: false,
  confirm: async (payment) => outcomeFor('confirm', payment.amountMinor),
};

const CONNECTORS: Record<string, ProcessorConnector> = { sandbox: sandboxConnector };

export function connectorFor(mode: 'sandbox' | 'live', name = 'sandbox'): ProcessorConnector {
  const connector = CONNECTORS[name];
  if (!connector) throw new Error(`Unknown processor connector '${name}'.`);
  if (mode === 'live' && !connector.live) {
    throw new Error(
      `GATEWAY_MODE=live needs a live processor connector, but this build ships only the '${connector.name}' connector. ` +
        'Implement ProcessorConnector (src/app/processor-connector.ts) for your bank, or run in sandbox mode.',
    );
  }
  return connector;
}
