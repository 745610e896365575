// SCB's answer envelope {"status":{"code","description"},"data"} and its status codes
// (docs/connectors/scb.md): the HTTP status and the business code go together. Descriptions
// name the field a refusal is about, so a connector's log says what was wrong.
import { toWireJson } from '../sim-kit/wire-json.ts';

export const SCB_STATUS = {
  success: { http: 200, code: 1000, text: 'Success' },
  missingParameter: { http: 400, code: 1101, text: 'Missing required parameters' },
  invalidParameter: { http: 400, code: 1102, text: 'Invalid parameters' },
  notFound: { http: 404, code: 1104, text: 'Record does not exist' },
  missingHeader: { http: 400, code: 9100, text: 'Required header is missing' },
  missingCredentials: { http: 401, code: 9100, text: 'Required credentials are missing' },
  invalidToken: { http: 401, code: 9300, text: 'Invalid or expired temporary token' },
  invalidCredentials: { http: 401, code: 9500, text: 'Invalid apikey or credentials' },
  serverError: { http: 500, code: 9700, text: 'Generic server error' },
  unavailable: { http: 503, code: 9900, text: 'Service unavailable' },
  timeout: { http: 504, code: 9900, text: 'Request timeout' },
} as const;

export type ScbStatus = keyof typeof SCB_STATUS;

export type ApiAnswer = { status: number; body: string; handling: string };

/** The envelope with `data`; `detail` (a field name, a reason) follows the status's text. */
export function scbAnswer(status: ScbStatus, data: unknown = null, detail?: string, handling = 'stateful'): ApiAnswer {
  const { http, code, text } = SCB_STATUS[status];
  const description = detail === undefined ? text : `${text}: ${detail}`;
  return { status: http, body: toWireJson({ status: { code, description }, data }), handling };
}

export const refuse = (status: ScbStatus, detail?: string): ApiAnswer =>
  scbAnswer(status, null, detail, status === 'success' ? 'stateful' : 'refused');
