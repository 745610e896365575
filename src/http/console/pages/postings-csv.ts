// GET /console/balances/postings.csv: every posting of one ledger account, oldest first, streamed
// as it is read (docs/console.md "CSV export"). ConsoleLedger reads it and audits the export.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PostingRow } from '../../../app/ports/console.ts';
import { GatewayError } from '../../../domain/errors.ts';
import { remoteOrigin, sessionOf } from '../console-kit.ts';
import type { ConsoleDeps } from '../console-deps.ts';
import { csvRow } from '../csv.ts';
import { accountAsked, merchantFor, type Query } from './balances.ts';
import { ledgerDecimal } from './ledger-format.ts';

const HEADER = [
  'account_seq',
  'created_at',
  'entry_id',
  'kind',
  'transactionid',
  'reason',
  'currency',
  'amount',
  'balance_after',
  // Added after the first nine, so that a reader of those by position is not thrown off.
  'refundid',
  'refund_reason',
];

async function* csvLines(postings: AsyncIterable<PostingRow>): AsyncGenerator<string> {
  yield csvRow(HEADER);
  for await (const p of postings) {
    yield csvRow([
      p.accountSeq,
      new Date(p.createdAt).toISOString(),
      p.entryId,
      p.entryKind,
      p.transactionId,
      p.reason,
      p.currency,
      ledgerDecimal(p.amountMinor),
      ledgerDecimal(p.balanceAfterMinor),
      p.refundId,
      p.refundReason,
    ]);
  }
}

export function registerPostingsCsvRoute(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get('/balances/postings.csv', async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply) => {
    const session = sessionOf(request);
    const merchantId = merchantFor(session, request.query);
    if (merchantId === undefined) throw new GatewayError('NOT_FOUND', 'Choose a merchant.');
    const { account, postings } = await deps.ledger.exportPostings({
      who: session.subject,
      origin: remoteOrigin(request),
      merchantId,
      accountId: accountAsked(request.query),
    });
    const day = new Date(deps.now()).toISOString().slice(0, 10);
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    reply.header(
      'content-disposition',
      `attachment; filename="${account.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${day}.csv"`,
    );
    return reply.type('text/csv; charset=utf-8').send(Readable.from(csvLines(postings)));
  });
}
