// The sandbox connector: no money moves. The gateway builds the QR from its own biller id, the
// outcome of a confirmation is the amount rule of docs/api.md "Lifecycle" (domain/lifecycle.ts),
// decided inside the `complete` use case, and every refund that passed the gateway's own checks
// succeeds, partial or full.
import { createHash } from 'node:crypto';
import type { ProcessorConnector } from '../../app/ports/processor.ts';

export const sandboxConnector: ProcessorConnector = {
  name: 'sandbox',
  capabilities: { live: false, qr: 'gateway', cancel: false, refunds: 'partial', notifications: false },
  attemptReference: (kind, seed) =>
    `S${kind === 'qr' ? 'Q' : 'V'}${createHash('sha256').update(seed).digest('hex').slice(0, 13).toUpperCase()}`,
  createPayment: async () => {
    throw new Error('the sandbox builds its QR itself (capabilities.qr is "gateway")');
  },
  queryPayment: async () => {
    throw new Error('the sandbox keeps no payment state of its own: the gateway is its processor');
  },
  // Nothing to close: no QR exists anywhere but on the gateway's page.
  cancelPayment: async () => 'cancelled',
  refund: async () => ({ reference: null }),
  parseNotification: () => ({ ok: false, reason: 'the sandbox sends no notifications' }),
};
