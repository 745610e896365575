// The sandbox connector: no money moves. The outcome of a confirmation is the amount rule of
// docs/api.md "Sandbox" (domain/lifecycle.ts), decided inside the `complete` use case, and every
// refund that passed the gateway's own checks succeeds.
import type { ProcessorConnector } from '../../app/ports/processor.ts';

export const sandboxConnector: ProcessorConnector = {
  name: 'sandbox',
  live: false,
  refund: async () => ({ reference: null }),
};
