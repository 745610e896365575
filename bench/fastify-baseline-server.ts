// A second baseline: Fastify with one JSON POST route and no logger, no validation, no store.
// Its gap to the node:http baseline is the framework's cost; the gateway's gap to it is ours.
import Fastify from 'fastify';
import { baselineAnswer } from './baseline-response.ts';

const app = Fastify({ logger: false, bodyLimit: 16_384 });
app.post('/transaction/s2s', async (request) => baselineAnswer(request.body));

const url = await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
console.log(`listening ${url}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
