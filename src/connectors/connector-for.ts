// Which processor connector the gateway runs (docs/architecture.md "Connectors"). Only the
// sandbox ships; live mode refuses to start until a connector that declares `live: true` is
// registered here, so a misconfigured production never takes payments it cannot collect.
import type { ProcessorConnector } from '../app/ports/processor.ts';
import { sandboxConnector } from './sandbox/sandbox-connector.ts';

const CONNECTORS: Record<string, ProcessorConnector> = { sandbox: sandboxConnector };

export function connectorFor(mode: 'sandbox' | 'live', name = 'sandbox'): ProcessorConnector {
  const connector = CONNECTORS[name];
  if (!connector) throw new Error(`Unknown processor connector '${name}'.`);
  if (mode === 'live' && !connector.capabilities.live) {
    throw new Error(
      'GATEWAY_MODE=live needs a live processor connector, ' +
        `but this build ships only the '${connector.name}' connector. ` +
        'Implement ProcessorConnector (src/app/ports/processor.ts) for your bank, or run in sandbox mode.',
    );
  }
  return connector;
}
