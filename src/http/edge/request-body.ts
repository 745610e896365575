// JSON bodies: our own parser so every failure is an error answer in the documented shape
// (docs/api.md, "Errors"), never a framework page.
import type { FastifyInstance } from 'fastify';
import { GatewayError, invalidField, missingField } from '../../domain/errors.ts';
import { hasControlCharacters, NO_CONTROL_CHARACTERS } from '../../domain/control-characters.ts';

export function registerJsonParser(app: FastifyInstance): void {
  // Fastify also parses text/plain by default; the API takes JSON only (anything else → 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new GatewayError('MALFORMED_REQUEST', 'The request body is not valid JSON.', 'syntax'), undefined);
    }
  });
}

export type JsonObject = Record<string, unknown>;

export function asObject(body: unknown): JsonObject {
  if (body === undefined)
    throw new GatewayError('MALFORMED_REQUEST', 'The request body is empty; send a JSON object.', 'syntax');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('MALFORMED_REQUEST', 'The request body must be a JSON object.', 'not_object');
  }
  return body as JsonObject;
}

/** merchantid + password from the body: absent → MISSING_FIELD, not text → INVALID_FIELD. */
export function credentialsOf(body: JsonObject): { merchantId: string; password: string } {
  const read = (field: string): string => {
    const value = body[field];
    if (value === undefined || value === null || value === '') throw missingField(field);
    if (typeof value !== 'string') throw invalidField(field, 'it must be a string');
    if (value.length > 256) throw invalidField(field, 'it must be at most 256 characters');
    if (hasControlCharacters(value)) throw invalidField(field, NO_CONTROL_CHARACTERS);
    return value;
  };
  return { merchantId: read('merchantid'), password: read('password') };
}

/** An id the merchant sends back (transactionid, trackid): bounded text without control characters. */
export function referenceField(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > 64)
    throw invalidField(field, 'it must be a string of at most 64 characters');
  if (hasControlCharacters(value)) throw invalidField(field, NO_CONTROL_CHARACTERS);
  return value;
}
