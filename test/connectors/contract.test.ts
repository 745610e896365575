// The connector contract (contract.ts) against every connector the gateway ships: the sandbox, then
// KBank against kbank-sim and SCB against scb-sim, over real HTTP on 127.0.0.1. A new processor is
// one more line here.
import { connectorContract } from './contract.ts';
import { kbankSimSubject, sandboxSubject, scbSimSubject } from '../support/connector-harnesses.ts';

for (const subject of [sandboxSubject, kbankSimSubject(), scbSimSubject()]) await connectorContract(subject);
