// application/x-www-form-urlencoded bodies, for the hosted page's confirm/cancel forms only.
// Registered inside the page routes' own Fastify scope, so the JSON API routes still answer
// a form-encoded body with their 415 MALFORMED_REQUEST error shape.
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';

/** A page form is three short fields; anything bigger is not ours. */
export const FORM_BODY_LIMIT = 4096;

export function registerFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      const fields = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (fields.has(name)) {
          done(new GatewayError('MALFORMED_REQUEST', 'A form field appears more than once.', 'syntax'), undefined);
          return;
        }
        fields.set(name, value);
      }
      // fromEntries defines own properties, so a field named __proto__ cannot touch the prototype.
      done(null, Object.fromEntries(fields));
    },
  );
}
