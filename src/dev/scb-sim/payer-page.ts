// GET /__sim/payer: a tiny page where a person plays the customer (docs/connectors/scb-sim.md
// "The payer side"): the QR codes created so far, and a form that pays one by ref1 or by its
// qrRawData through POST /__sim/pay, as a banking app would, showing the bank's answer.
import type { QrRecordView } from './state.ts';
import { DEFAULT_PAYER } from './payer.ts';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function payerPage(qrs: QrRecordView[]): string {
  const rows = qrs
    .slice(-20)
    .reverse()
    .map(
      (qr) =>
        `<tr><td>${escape(qr.ref1)}</td><td>${escape(qr.ref2 ?? '')}</td>` +
        `<td>${escape(qr.amount ?? '(payer enters)')}</td>` +
        `<td>${qr.version}</td><td>${qr.payments}${qr.numberOfTimes ? ` / ${qr.numberOfTimes}` : ''}</td>` +
        `<td>${escape(qr.expiresAt ?? '')}</td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>scb-sim payer</title>
<style>body{font:14px system-ui;margin:2em;max-width:52em}td,th{padding:2px 8px;text-align:left}
label{display:block;margin:4px 0}input[type=text]{width:28em}pre{background:#eee;padding:1em;overflow:auto}</style>
</head><body>
<h1>Pay a QR as the customer</h1>
<table><tr><th>ref1</th><th>ref2</th><th>amount</th><th>api</th><th>paid</th><th>expires</th></tr>${rows}</table>
<form id="pay">
<label>ref1 <input type="text" name="ref1"></label>
<label>or qrRawData <input type="text" name="qrRawData"></label>
<label>amount (only for a QR without one) <input type="text" name="amount"></label>
<label>payer account <input type="text" name="payerAccountNumber" value="${DEFAULT_PAYER.accountNumber}"></label>
<label>payer name <input type="text" name="payerName" value="${DEFAULT_PAYER.name}"></label>
<label>sending bank <input type="text" name="sendingBankCode" value="${DEFAULT_PAYER.bankCode}"></label>
<label><input type="checkbox" name="maskPayer"> mask the payer's account</label>
<button>Pay</button>
</form>
<pre id="answer"></pre>
<script>
document.getElementById('pay').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const body = {};
  for (const [name, value] of form) if (value !== '' && name !== 'maskPayer') body[name] = value;
  body.maskPayer = form.has('maskPayer');
  const response = await fetch('/__sim/pay', {
    method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body),
  });
  document.getElementById('answer').textContent = response.status + '\\n' + await response.text();
});
</script>
</body></html>
`;
}
