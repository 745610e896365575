// Every CLI command, by name. Each group lives in its own file.
import type { Command } from './context.ts';
import { attentionCommands } from './attention.ts';
import { consoleCommands } from './console.ts';
import { deliveryCommands } from './delivery.ts';
import { devCommands } from './dev.ts';
import { kbankSimCommands } from './kbank-sim.ts';
import { ledgerCommands } from './ledger.ts';
import { merchantCommands } from './merchant.ts';
import { serveCommands } from './serve.ts';
import { reconcileCommands } from './reconcile.ts';
import { scbSimCommands } from './scb-sim.ts';
import { refundCommands } from './refund.ts';

export type { Command } from './context.ts';

export const commandTable: Record<string, Command> = {
  ...serveCommands,
  ...merchantCommands,
  ...ledgerCommands,
  ...deliveryCommands,
  ...refundCommands,
  ...devCommands,
  ...kbankSimCommands,
  ...scbSimCommands,
  ...consoleCommands,
  ...attentionCommands,
  ...reconcileCommands,
};
