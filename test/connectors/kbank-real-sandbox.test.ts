// Opt-in: the connector contract (contract.ts) against KBank's own sandbox,
// https://openapi-sandbox.kasikornbank.com, in test mode (x-test-mode and env-id headers). It runs
// only when KBANK_SANDBOX_CONSUMER_ID and KBANK_SANDBOX_CONSUMER_SECRET (a KBank developer app's
// consumer key and secret) are set; CI and machines without network skip it. The sandbox answers
// by scenario, not by state, so the harness picks each call's scenario from the QR's story
// (test/support/connector-harnesses.ts) and the tests that need a stateful processor are skipped.
import { test } from 'node:test';
import { connectorContract } from './contract.ts';
import { kbankRealSandboxSubject } from '../support/connector-harnesses.ts';

const consumerId = process.env.KBANK_SANDBOX_CONSUMER_ID;
const consumerSecret = process.env.KBANK_SANDBOX_CONSUMER_SECRET;

if (consumerId && consumerSecret) {
  await connectorContract(kbankRealSandboxSubject({ consumerId, consumerSecret }));
} else {
  test('connector contract: kbank (KBank sandbox)', {
    skip:
      "set KBANK_SANDBOX_CONSUMER_ID and KBANK_SANDBOX_CONSUMER_SECRET (a KBank developer app's consumer key " +
      'and secret) to run the connector contract against https://openapi-sandbox.kasikornbank.com',
  });
}
