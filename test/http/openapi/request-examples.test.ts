// /docs' "Try it out" starts from each operation's request example in /openapi.json
// (src/http/openapi/request-examples.ts). Every operation that takes a body has one, it conforms
// to the documented request schema, and sent as it is to a listening sandbox gateway, in the
// document's walkthrough order, each one succeeds. Only the placeholders are replaced: the
// merchant's password (the merchant is created with the example's id) and the transactionid, by
// the one the example initiation really returned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { addMerchant, startTestGateway } from '../../support/test-gateway.ts';
import {
  EXAMPLE_MERCHANT_ID,
  EXAMPLE_PASSWORD,
  EXAMPLE_TRANSACTION_ID,
} from '../../../src/http/openapi/request-examples.ts';

type Json = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/** The order a sandbox walkthrough sends them: each needs what the one before it did. */
const WALKTHROUGH = [
  'initiatePayment',
  'getTransactionStatus',
  'completeSandboxPayment',
  'refundPayment',
  'queryPayoutBalance',
];

test("every operation's request example in /openapi.json is a real request the gateway accepts", async () => {
  const gw = await startTestGateway('sqlite', { PUBLIC_BASE_URL: 'https://pay.example.com' });
  try {
    const merchant = await addMerchant(gw, { id: EXAMPLE_MERCHANT_ID });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as Json;

    const withBody: { operationId: string; path: string; body: Json }[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const op of Object.values(item as Json) as Json[]) {
        const body = op.requestBody?.content?.['application/json'];
        if (body) withBody.push({ operationId: op.operationId, path, body });
      }
    assert.deepEqual(withBody.map((o) => o.operationId).sort(), [...WALKTHROUGH].sort());

    let transactionid: string | undefined;
    for (const operationId of WALKTHROUGH) {
      const { path, body } = withBody.find((o) => o.operationId === operationId)!;
      const examples = Object.values(body.examples ?? {}) as { summary: string; value: Json }[];
      assert.equal(examples.length, 1, `${operationId} has one request example`);
      const example = examples[0]!.value;
      const validate = ajv.compile(body.schema);
      assert.ok(validate(example), `${operationId}: ${JSON.stringify(validate.errors)}`);
      assert.equal(example.merchantid, EXAMPLE_MERCHANT_ID);

      const sent = JSON.stringify({
        ...example,
        password: example.password === EXAMPLE_PASSWORD ? merchant.password : example.password,
        ...(example.transactionid === EXAMPLE_TRANSACTION_ID && { transactionid }),
      });
      const response = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: sent,
      });
      const answer = (await response.json()) as Json;
      assert.equal(response.status, 200, `${operationId}: ${JSON.stringify(answer)}`);
      assert.equal(answer.type, 'valid', `${operationId}: ${JSON.stringify(answer)}`);
      if (operationId === 'initiatePayment') transactionid = answer.transactionid;
      if (operationId === 'completeSandboxPayment') assert.equal(answer.result, 'CAPTURED');
      if (operationId === 'refundPayment') assert.equal(answer.refunded_amount, '150.00');
    }
  } finally {
    await gw.close();
  }
});
