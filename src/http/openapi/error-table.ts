// The error table of the OpenAPI document, derived from the two tables that define it
// (domain/errors.ts for codes, http/edge/error-status.ts for statuses), so it cannot drift.
import { ERROR_CODES, GatewayError, type ErrorTag, type MalformedKind } from '../../domain/errors.ts';
import { httpStatusOf, MALFORMED_STATUS } from '../edge/error-status.ts';

export type ErrorRow = { error_code_tag: ErrorTag; responsecode: string; http_statuses: number[] };

export function errorTable(): ErrorRow[] {
  return (Object.keys(ERROR_CODES) as ErrorTag[]).map((tag) => {
    const statuses = new Set([httpStatusOf(new GatewayError(tag, ''))]);
    if (tag === 'MALFORMED_REQUEST') {
      for (const kind of Object.keys(MALFORMED_STATUS) as MalformedKind[])
        statuses.add(httpStatusOf(new GatewayError(tag, '', kind)));
    }
    return { error_code_tag: tag, responsecode: ERROR_CODES[tag], http_statuses: [...statuses].sort((a, b) => a - b) };
  });
}

export function errorTableMarkdown(rows: readonly ErrorRow[]): string {
  const lines = rows.map((r) => `| ${r.http_statuses.join(' / ')} | \`${r.responsecode}\` | \`${r.error_code_tag}\` |`);
  return ['| HTTP | `responsecode` | `error_code_tag` |', '|---|---|---|', ...lines].join('\n');
}
