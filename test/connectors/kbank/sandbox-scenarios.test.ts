// A rehearsal of the opt-in run against KBank's own sandbox (test/connectors/kbank-real-sandbox.test.ts):
// the same harness, which picks each call's sandbox scenario (env-id) from the QR's story, runs the
// connector contract against kbank-sim's replica of those canned scenarios, so the opt-in test is
// known to work before anyone has KBank credentials.
import { after } from 'node:test';
import { startKbankSim } from '../../../src/dev/kbank-sim/server.ts';
import { kbankRealSandboxSubject } from '../../support/connector-harnesses.ts';
import { connectorContract } from '../contract.ts';

const sim = await startKbankSim();
after(() => sim.close());
await connectorContract(
  kbankRealSandboxSubject({
    consumerId: sim.credentials.consumerId,
    consumerSecret: sim.credentials.consumerSecret,
    baseUrl: sim.url,
    name: "kbank (kbank-sim's sandbox scenarios)",
  }),
);
