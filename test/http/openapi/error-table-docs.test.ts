// docs/api.md keeps a hand-written error table (with a sentence per row) beside the one
// /openapi.json generates from the code. This keeps the two from drifting apart: every tag the
// code has is in the docs with its code and HTTP status, and the docs name no tag or code the
// code does not have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CODES, GatewayError, type ErrorTag } from '../../../src/domain/errors.ts';
import { httpStatusOf } from '../../../src/http/edge/error-status.ts';
import { errorTable } from '../../../src/http/openapi/error-table.ts';

type DocRow = { statuses: number[]; code: string; tags: string[] };

function documentedErrors(): Map<string, DocRow> {
  const text = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Errors'));
  assert.ok(section.length > 20, 'docs/api.md has an "## Errors" section');
  const rows = new Map<string, DocRow>();
  for (const match of section.matchAll(/^\| ([\d /]+) \| `(\d{4})` \| ((?:`[A-Z_]+`(?: \/ )?)+) \|/gm)) {
    const row = {
      statuses: match[1]!.split('/').map((s) => Number(s.trim())),
      code: match[2]!,
      tags: [...match[3]!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!),
    };
    for (const tag of row.tags) rows.set(tag, row);
  }
  return rows;
}

test("docs/api.md's error table matches the code's tags, codes and HTTP statuses", () => {
  const documented = documentedErrors();
  for (const { error_code_tag: tag, responsecode, http_statuses } of errorTable()) {
    const row = documented.get(tag);
    assert.ok(row, `docs/api.md's error table has no row for ${tag}`);
    assert.equal(row.code, responsecode, `${tag}: documented code`);
    assert.ok(
      row.statuses.includes(httpStatusOf(new GatewayError(tag as ErrorTag, ''))),
      `${tag}: documented HTTP status ${row.statuses.join('/')}`,
    );
    for (const status of row.statuses)
      assert.ok(http_statuses.includes(status), `${tag}: the code never answers the documented HTTP ${status}`);
  }
  for (const tag of documented.keys())
    assert.ok(tag in ERROR_CODES, `docs/api.md documents ${tag}, which the code does not have`);
});
