// Pieces every wire body shares. The bodies are TypeBox schemas so that one declaration serves
// three readers: Fastify compiles the response schemas into serialisers, /openapi.json documents
// them, and the domain's builders are typed by `Static<…>` of the same schema.
import { Type } from '@sinclair/typebox';

export const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * The payer check's verdict (docs/api.md "Payer check"): present once a processor reported who
 * paid, absent before, so answers and notifications without one are byte for byte as they were.
 */
export const PayerCheckSchema = Type.Union(
  [Type.Literal('matched'), Type.Literal('mismatched'), Type.Literal('unknown')],
  {
    description:
      'Whether the account that paid is the payer named at initiation: `matched`, `mismatched` or `unknown` ' +
      '(the processor did not say). Absent until the processor reported the payment paid.',
  },
);
