// GET /openapi.json — the OpenAPI 3.1 document, generated from the registered routes: every
// route with a `schema` is in it (routes/*.ts declare theirs with schemas.ts#operation), so a new
// operation appears without touching this file. Added here: the notification payloads as
// `webhooks`, the error table (derived from the code and status tables) and examples recorded
// from real responses (examples.json; test/http/openapi/openapi.test.ts re-records and compares them).
import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { gatewayPackage } from '../../version.ts';
import { PaymentNotificationSchema, RefundNotificationSchema } from '../../domain/wire/notifications.ts';
import { errorTable, errorTableMarkdown } from './error-table.ts';
import { REQUEST_EXAMPLES, type RequestExample } from './request-examples.ts';

export const OPENAPI_PATH = '/openapi.json';

/** Recorded examples: operationId → named examples, each with the HTTP status it came with. */
export type RecordedExamples = Record<string, Record<string, { summary: string; status: number; value: unknown }>>;

export const EXAMPLES_FILE = new URL('./examples.json', import.meta.url);

function loadExamples(): RecordedExamples {
  return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as RecordedExamples;
}

const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'The event id (= `event_id`); identical on every retry: deduplicate on it.',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
    description: 'Unix seconds when this attempt was sent.',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, one per active secret.',
  },
];

function description(): string {
  return [
    'Thai QR debit payments, server to server. Every operation is a `POST` with a JSON body carrying ' +
      '`merchantid` and `password`; every answer has the same JSON shape whatever the HTTP status, ' +
      'so a client may read only the body.',
    '',
    'Result notifications are POSTed to the `serverUrl` of the payment, signed with Standard Webhooks ' +
      '(see `webhooks`).',
    '',
    '## Errors',
    '',
    'On an error `type` is `"error"`, `responsecode` and `error_code_tag` come from this table, and `error_text` ' +
      'names the field and the rule.',
    '',
    errorTableMarkdown(errorTable()),
  ].join('\n');
}

type Json = Record<string, any>;

/** `POST /transaction/refund` → `postTransactionRefund`. */
export function defaultOperationId(method: string | string[], url: string): string {
  const verb = (Array.isArray(method) ? method[0]! : method).toLowerCase();
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return verb + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function withOperationId(schema: Json, method: string | string[], url: string): Json {
  return schema.operationId ? schema : { ...schema, operationId: defaultOperationId(method, url) };
}

/**
 * Puts each recorded example under the response (exact status, else its range) of its operation,
 * and each request example (request-examples.ts) under its request body.
 */
function addExamples(
  document: Json,
  examples: RecordedExamples,
  requests: Readonly<Record<string, RequestExample>>,
): Json {
  for (const item of Object.values(document.paths ?? {}) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      const request = requests[op.operationId];
      const body = op.requestBody?.content?.['application/json'];
      if (request && body) body.examples = { [op.operationId]: { summary: request.summary, value: request.value } };
      const recorded = examples[op.operationId];
      if (!recorded) continue;
      for (const [name, example] of Object.entries(recorded)) {
        const key = [String(example.status), `${String(example.status)[0]}XX`].find((k) => op.responses?.[k]);
        const content = key ? op.responses[key].content?.['application/json'] : undefined;
        if (!content) continue;
        content.examples = { ...content.examples, [name]: { summary: example.summary, value: example.value } };
      }
    }
  }
  return document;
}

/** The notifications the gateway sends: OpenAPI 3.1 `webhooks` (a fresh object per document). */
function webhooks(): Json {
  return {
    paymentResult: {
      post: {
        operationId: 'paymentResultNotification',
        summary: 'A payment reached its final state',
        description:
          'POSTed to the payment’s `serverUrl` once it succeeds or fails, retried until a `2xx` answer. Verify the ' +
          'signature over the raw body before trusting it (the client package’s `verifyNotification`, or any ' +
          'Standard Webhooks library).',
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/PaymentNotification' } } },
        },
        responses: { '2XX': { description: 'Received and stored; any other answer is retried.' } },
      },
    },
    refund: {
      post: {
        operationId: 'refundNotification',
        summary: 'A refund was made on a payment',
        description:
          'POSTed to the payment’s `serverUrl` once per refund, through the same outbox, signing and retries as the ' +
          'result. It carries `event_type` `refund` and `result` `REFUNDED`, so a handler that only knows payment ' +
          'results (`CAPTURED` / `Not Successful`) ignores it.',
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/RefundNotification' } } },
        },
        responses: { '2XX': { description: 'Received and stored; any other answer is retried.' } },
      },
    },
  };
}

export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl'>): Promise<void> {
  const examples = loadExamples();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Thai QR payment gateway',
        version: gatewayPackage().version,
        description: description(),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.publicBaseUrl }],
      tags: [
        { name: 'Payments', description: 'Start payments and read their state.' },
        { name: 'Balance', description: 'The payout balance of the merchant.' },
        { name: 'Sandbox', description: 'Only in sandbox mode.' },
        { name: 'Health', description: 'For load balancers and orchestrators.' },
      ],
      components: {
        schemas: {
          PaymentNotification: PaymentNotificationSchema,
          RefundNotification: RefundNotificationSchema,
          ErrorCodeTag: { type: 'string', enum: errorTable().map((r) => r.error_code_tag) },
        },
      },
      webhooks: webhooks(),
    } as never,
    // Only routes that declare a schema are operations of the API; the hosted page, /metrics
    // and these documentation routes are not.
    // A route with a schema but no operationId gets one from its method and path, so every
    // operation can be named (clients, tests) the moment it is registered.
    transform: ({ schema, url, route }) => ({
      schema: (schema ? withOperationId(schema as Json, route.method, url) : { hide: true }) as never,
      url,
    }),
    transformObject: (documentObject) =>
      addExamples((documentObject as { openapiObject: Json }).openapiObject, examples, REQUEST_EXAMPLES) as never,
  });
  app.get(OPENAPI_PATH, async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    reply.header('access-control-allow-origin', '*'); // public description; lets other tools load it
    return app.swagger();
  });
}
