// The connector contract (contract.ts) against every connector the gateway ships: the sandbox, then
// KBank against kbank-sim over real HTTP on 127.0.0.1. A new processor is one more line here.
import { connectorContract } from './contract.ts';
import { kbankSimSubject, sandboxSubject } from '../support/connector-harnesses.ts';

for (const subject of [sandboxSubject, kbankSimSubject()]) await connectorContract(subject);
