// The mixed scenario: of every 10 requests, 7 new initiations, 2 status queries and 1 sandbox
// completion of a transaction this scenario initiated (the completion's notification goes to a
// receiver on 127.0.0.1 run by the bench). Afterwards the accounting checks every acknowledged
// completion: final state stored, one outbox event, and a sound ledger.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerOperations } from '../src/app/ledger-operations.ts';
import { openStoreEngine } from '../src/store/engine.ts';
import { storeOver } from '../src/store/open-store.ts';
import type { NextRequest } from './load.ts';
import { echoedTrackid, statusBody, type Credentials } from './request-bodies.ts';

/** A loopback receiver answering 204 to every notification (sandbox mode allows http and loopback). */
export async function startReceiver(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type MixedTracker = {
  next: () => NextRequest;
  onResponse: (status: number, body: string, tag: string | undefined) => void;
  completed: string[];
  counts: Record<'init' | 'status' | 'complete', number>;
  sampleFailure: () => string | undefined;
};

/**
 * Chooses each request of the mixed load. `initiation(trackid)` builds a new initiation body and
 * registers the trackid with the caller's accounting; `onInitiated` sees each initiation answer.
 */
export function mixedTracker(
  creds: Credentials,
  initiation: () => { body: string; trackid: string },
  onInitiated: (status: number, body: string) => void,
): MixedTracker {
  let k = 0;
  const initiated: string[] = []; // trackids acknowledged in this scenario, for status queries
  const completable: string[] = []; // transaction ids not yet completed
  const completed: string[] = [];
  const counts = { init: 0, status: 0, complete: 0 };
  let failure: string | undefined;
  const txid = (body: string) => /"transactionid":"([^"]+)"/.exec(body)?.[1];
  return {
    completed,
    counts,
    sampleFailure: () => failure,
    next(): NextRequest {
      const slot = k++ % 10;
      if (slot === 9 && completable.length > 0) {
        const id = completable.shift()!;
        counts.complete += 1;
        return {
          path: '/sandbox/transaction/complete',
          body: JSON.stringify({ merchantid: creds.merchantid, password: creds.password, transactionid: id }),
          tag: `complete:${id}`,
        };
      }
      if ((slot === 7 || slot === 8) && initiated.length > 0) {
        counts.status += 1;
        return {
          path: '/transaction/status',
          body: statusBody(creds, initiated[(k * 7919) % initiated.length]!),
          tag: 'status',
        };
      }
      counts.init += 1;
      return { path: '/transaction/s2s', body: initiation().body, tag: 'init' };
    },
    onResponse(status, body, tag) {
      if (tag === 'init') {
        onInitiated(status, body);
        if (status === 200) {
          const trackid = echoedTrackid(body);
          const id = txid(body);
          if (trackid) initiated.push(trackid);
          if (id) completable.push(id);
        }
      } else if (tag?.startsWith('complete:') && status === 200) {
        completed.push(tag.slice('complete:'.length));
      }
      if (status !== 200) failure ??= `${tag ?? '?'} ${status} ${body.slice(0, 300)}`;
    },
  };
}

export type CompletionAccounting = {
  acknowledged: number;
  notFinal: number;
  withoutEvent: number;
  ledgerSound: boolean;
  ok: boolean;
};

/** After the gateway stopped: every acknowledged completion is final with one outbox event; the ledger verifies. */
export async function accountCompletions(databaseUrl: string, completed: string[]): Promise<CompletionAccounting> {
  const store = openStoreEngine(databaseUrl);
  try {
    let notFinal = 0;
    let withoutEvent = 0;
    for (let i = 0; i < completed.length; i += 500) {
      const ids = completed.slice(i, i + 500);
      const rows = await store.db.selectFrom('transactions').select(['id', 'status']).where('id', 'in', ids).execute();
      const events = await store.db
        .selectFrom('outbox_events')
        .select('transaction_id')
        .where('transaction_id', 'in', ids)
        .execute();
      const eventCount = new Map<string, number>();
      for (const e of events) eventCount.set(e.transaction_id, (eventCount.get(e.transaction_id) ?? 0) + 1);
      const final = new Set(rows.filter((r) => r.status !== 'PROCESSING').map((r) => r.id));
      for (const id of ids) {
        if (!final.has(id)) notFinal += 1;
        if (eventCount.get(id) !== 1) withoutEvent += 1;
      }
    }
    const ports = storeOver(store);
    const check = await new LedgerOperations({
      store: ports,
      ledger: ports.ledger,
      merchants: ports.merchants,
      now: Date.now,
    }).verify();
    return {
      acknowledged: completed.length,
      notFinal,
      withoutEvent,
      ledgerSound: check.ok,
      ok: notFinal === 0 && withoutEvent === 0 && check.ok,
    };
  } finally {
    await store.close();
  }
}
