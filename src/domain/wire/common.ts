// Pieces every wire body shares. The bodies are TypeBox schemas so that one declaration serves
// three readers: Fastify compiles the response schemas into serialisers, /openapi.json documents
// them, and the domain's builders are typed by `Static<…>` of the same schema.
import { Type } from '@sinclair/typebox';

export const NullableString = Type.Union([Type.String(), Type.Null()]);
