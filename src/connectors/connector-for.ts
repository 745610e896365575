// Which processor connector the gateway runs (docs/architecture.md "Connectors"): PROCESSOR_CONNECTOR
// picks it, config.ts has checked its settings. Live mode refuses to start with a connector that
// does not declare `live: true`, so a misconfigured production never takes payments it cannot
// collect.
import type { ProcessorConnector } from '../app/ports/processor.ts';
import type { Config } from '../config.ts';
import { createKbankConnector, type KbankConnectorOptions } from './kbank/connector.ts';
import { sandboxConnector } from './sandbox/sandbox-connector.ts';
import { createScbConnector } from './scb/connector.ts';

export type ConnectorOptions = Pick<KbankConnectorOptions, 'now' | 'logger'>;

export function connectorFor(
  config: Pick<Config, 'mode' | 'processorConnector' | 'kbank' | 'scb'>,
  options: ConnectorOptions = {},
): ProcessorConnector {
  const connector = build(config, options);
  if (config.mode === 'live' && !connector.capabilities.live) {
    throw new Error(
      `GATEWAY_MODE=live needs a live processor connector, and PROCESSOR_CONNECTOR=${connector.name} moves no ` +
        'money. Set PROCESSOR_CONNECTOR=kbank with the KBANK_* settings (docs/connectors/kbank.md) or ' +
        'PROCESSOR_CONNECTOR=scb with the SCB_* settings (docs/connectors/scb.md), or run in sandbox mode.',
    );
  }
  return connector;
}

function build(
  config: Pick<Config, 'processorConnector' | 'kbank' | 'scb'>,
  options: ConnectorOptions,
): ProcessorConnector {
  switch (config.processorConnector) {
    case 'sandbox':
      return sandboxConnector;
    case 'kbank':
      if (!config.kbank) throw new Error('PROCESSOR_CONNECTOR=kbank without its KBANK_* settings');
      return createKbankConnector(config.kbank, options);
    case 'scb':
      if (!config.scb) throw new Error('PROCESSOR_CONNECTOR=scb without its SCB_* settings');
      return createScbConnector(config.scb, options);
  }
}
