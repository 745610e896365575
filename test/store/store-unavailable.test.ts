// Which store errors answer 503 (the store cannot serve right now) and which are bugs (500).
// Messages and codes are the drivers' own (pg, node:sqlite).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isConnectionLost, isStoreUnavailable } from '../../src/store/store-unavailable.ts';

const withCode = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

const UNAVAILABLE: Array<[string, Error]> = [
  [
    'pg: ROLLBACK on a client whose backend was terminated',
    new Error('Client has encountered a connection error and is not queryable'),
  ],
  ['pg: a client used after it was closed', new Error('Client was closed and is not queryable')],
  ['pg: connection terminated under a query', new Error('Connection terminated unexpectedly')],
  [
    'PostgreSQL 57P01 admin shutdown',
    withCode('terminating connection due to administrator command', { code: '57P01' }),
  ],
  ['PostgreSQL 53300 too many connections', withCode('sorry, too many clients already', { code: '53300' })],
  ['PostgreSQL 53100 disk full', withCode('could not extend file: No space left on device', { code: '53100' })],
  ['PostgreSQL 08006 connection failure', withCode('connection failure', { code: '08006' })],
  ['PostgreSQL 40P01 deadlock', withCode('deadlock detected', { code: '40P01' })],
  ['SQLite full (SQLITE_FULL)', withCode('database or disk is full', { code: 'ERR_SQLITE_ERROR', errcode: 13 })],
  ['SQLite I/O error (SQLITE_IOERR_WRITE)', withCode('disk I/O error', { code: 'ERR_SQLITE_ERROR', errcode: 778 })],
  ['SQLite busy', withCode('database is locked', { code: 'ERR_SQLITE_ERROR', errcode: 5 })],
  ['SQLite connection closed', withCode('database is not open', { code: 'ERR_INVALID_STATE' })],
  ['SQLite statement of a closed connection', withCode('statement has been finalized', { code: 'ERR_INVALID_STATE' })],
];

const BUGS: Array<[string, unknown]> = [
  ['a unique violation', withCode('duplicate key value violates unique constraint', { code: '23505' })],
  [
    'SQLite constraint',
    withCode('UNIQUE constraint failed: transactions.id', { code: 'ERR_SQLITE_ERROR', errcode: 2067 }),
  ],
  ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ['not an Error', 'boom'],
];

for (const [name, error] of UNAVAILABLE) test(`503: ${name}`, () => assert.equal(isStoreUnavailable(error), true));
for (const [name, error] of BUGS) test(`not 503: ${name}`, () => assert.equal(isStoreUnavailable(error), false));

test('a dead PostgreSQL connection is recognised (so it is not pooled again); a constraint error is not', () => {
  assert.equal(
    isConnectionLost(withCode('terminating connection due to administrator command', { code: '57P01' })),
    true,
  );
  assert.equal(isConnectionLost(new Error('Client has encountered a connection error and is not queryable')), true);
  assert.equal(isConnectionLost(withCode('duplicate key value violates unique constraint', { code: '23505' })), false);
});
