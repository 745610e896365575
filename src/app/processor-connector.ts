// The processor connector is where a live debit goes to the payer's bank. Only the sandbox
// connector ships: with it, the outcome of a confirmation is the contract's amount rule
// (domain/lifecycle.ts), decided inside the `complete` use case. A bank connector would send
// the debit after initiation and report the bank's answer by calling `complete` (cause
// `confirm`, with the bank's outcome) — outside any database transaction — and declares
// `live: true`. Live mode refuses to start until such a connector is registered here.
export type ProcessorConnector = {
  readonly name: string;
  /** True only for connectors that move real money. */
  readonly live: boolean;
};

export const sandboxConnector: ProcessorConnector = { name: 'sandbox', live: false };

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
