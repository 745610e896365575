// The processor side of a payment's page, for operators (docs/console.md "Pages"): its
// needs-attention items, and the attempts made at the processor with the notifications it sent.
// Each section is left out when it has nothing to show, so a sandbox payment's page is as before.
import type { PaymentStory } from '../../../app/console/payment-reads.ts';
import type { AttentionItem, ProcessorAttempt, ProcessorNotification } from '../../../domain/processor-attempt.ts';
import type { TransactionRecord } from '../../../domain/transaction.ts';
import { html, type SafeHtml } from '../../hosted-page/html.ts';
import { formatTime } from '../page-shell.ts';
import type { ConsoleTexts } from '../texts.ts';
import { ledgerAmount } from './ledger-format.ts';

/** A notification body is shown up to this many characters (the store keeps up to the route's limit). */
const BODY_EXCERPT = 600;

const excerpt = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The payment's needs-attention items, open first, each resolved on the Needs attention page. */
export function attentionSection(
  root: string,
  t: ConsoleTexts,
  tx: TransactionRecord,
  story: PaymentStory,
): SafeHtml | null {
  if (story.attention.length === 0) return null;
  const d = t.detail;
  const items = [
    ...story.attention.filter((i) => i.resolvedAt === null),
    ...story.attention.filter((i) => i.resolvedAt !== null),
  ];
  const state = (i: AttentionItem) =>
    i.resolvedAt === null
      ? html`<span class="pill s-FAILED">${d.attentionOpen}</span>`
      : html`<span class="pill s-SUCCESS">${t.attention.resolved}</span><br><span class="muted">${d.attentionResolved(i.resolvedBy ?? '—', formatTime(i.resolvedAt))}</span><br>${i.resolution ?? ''}`;
  return html`<section class="card" id="attention"><h2>${d.attention}</h2><div class="scroll"><table><thead><tr><th>${t.attention.raised}</th><th class="key">${t.attention.kind}</th><th>${t.attention.detail}</th><th class="num key">${t.attention.amount}</th><th>${t.attention.reference}</th><th>${t.payments.state}</th></tr></thead><tbody>
        ${items.map((i) => html`<tr><td>${formatTime(i.createdAt)}</td><td>${t.attention.kinds[i.kind] ?? i.kind}</td><td>${i.detail}</td><td class="num">${i.amountMinor === null ? '—' : ledgerAmount(i.amountMinor, tx.currency)}</td><td class="mono">${i.reference ?? ''}</td><td>${state(i)}</td></tr>`)}
      </tbody></table></div>${items.some((i) => i.resolvedAt === null) ? html`<p><a href="${root}/attention">${d.attentionResolveHint}</a></p>` : null}</section>`;
}

/** The attempts made at the processor and the notifications it sent, when there are any. */
export function processorSection(t: ConsoleTexts, tx: TransactionRecord, story: PaymentStory): SafeHtml | null {
  const attempts = story.processorAttempts;
  const notifications = story.processorNotifications;
  if (attempts.length === 0 && notifications.length === 0) return null;
  const d = t.detail;
  return html`<section class="card" id="processor"><h2>${d.processor}</h2>${attempts.length > 0 ? attemptsTable(t, tx, attempts) : null}${notifications.length > 0 ? notificationsTable(t, notifications) : null}</section>`;
}

function attemptsTable(t: ConsoleTexts, tx: TransactionRecord, attempts: ProcessorAttempt[]): SafeHtml {
  const d = t.detail;
  return html`<div class="scroll"><table><thead><tr><th>${d.attemptKind}</th><th class="num">${d.attemptNo}</th><th class="key">${d.reference}</th><th class="key">${t.payments.state}</th><th>${d.since}</th><th>${d.processorTxnNo}</th><th class="num">${d.paidAmount}</th><th>${d.qrExpires}</th><th>${d.lastError}</th></tr></thead><tbody>
        ${attempts.map((a) => html`<tr><td>${d.attemptKinds[a.kind] ?? a.kind}</td><td class="num">${String(a.attempt)}</td><td class="mono">${a.reference}</td><td>${d.attemptStates[a.state] ?? a.state}</td><td>${formatTime(a.stateAt)}</td><td class="mono">${a.processorTxnNo ?? '—'}</td><td class="num">${a.paidAmountMinor === null ? '—' : ledgerAmount(a.paidAmountMinor, tx.currency)}</td><td>${a.kind === 'qr' ? formatTime(a.expiresAt) : '—'}</td><td class="mono">${excerpt(a.lastError ?? '', 300)}</td></tr>`)}
      </tbody></table></div>`;
}

function notificationsTable(t: ConsoleTexts, notifications: ProcessorNotification[]): SafeHtml {
  const d = t.detail;
  return html`<h2>${d.processorNotifications}</h2><div class="scroll"><table><thead><tr><th>${d.received}</th><th>${d.source}</th><th class="key">${d.notificationOutcome}</th><th>${d.reference}</th><th>${d.body}</th></tr></thead><tbody>
        ${notifications.map((n) => html`<tr><td>${formatTime(n.receivedAt)}</td><td class="mono">${n.sourceIp ?? '—'}</td><td class="mono">${n.outcome}</td><td class="mono">${n.reference ?? ''}</td><td class="mono">${excerpt(n.body, BODY_EXCERPT)}</td></tr>`)}
      </tbody></table></div>`;
}
