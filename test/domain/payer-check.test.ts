// The payer check's rule (domain/payer-check.ts, docs/api.md "Payer check"): the reported account
// right-aligned with the named one, x/X/* hidden, separators dropped; `matched` only with the same
// bank, the same length and every visible digit equal; too little to compare is `unknown`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparePayer, maskAccount, type ReportedAccount } from '../../src/domain/payer-check.ts';

const NAMED = { accountNo: '1234567890', bankCode: '014' };
const reported = (accountNumber: string | null, bankCode: string | null = '014'): ReportedAccount => ({
  accountNumber,
  bankCode,
});

test('the rule table', () => {
  const table: Array<[string, ReportedAccount, 'matched' | 'mismatched' | 'unknown']> = [
    ['the same account and bank', reported('1234567890'), 'matched'],
    ['with dashes, spaces and dots', reported('123-4 56.7890'), 'matched'],
    ['masked like SCB ("xxx-x-x5678-x"): visible digits agree', reported('xxx-x-x6789-x'), 'matched'],
    ['masked with X and *', reported('XXX***7890'), 'matched'],
    ['another bank', reported('1234567890', '004'), 'mismatched'],
    ['no bank reported, the same digits', reported('1234567890', null), 'mismatched'],
    ['an empty bank code', reported('1234567890', ' '), 'mismatched'],
    ['one visible digit differs', reported('1234567891'), 'mismatched'],
    ['one visible digit of a masked account differs', reported('xxx-x-x6788-x'), 'mismatched'],
    ['a longer account ending the same', reported('991234567890'), 'mismatched'],
    ['a shorter account ending the same', reported('34567890'), 'mismatched'],
    ['a shorter masked account', reported('xxxx7890'), 'mismatched'],
    ['fully masked', reported('xxx-x-xxxxx-x'), 'unknown'],
    ['three visible digits', reported('xxxxxxx890'), 'unknown'],
    ['four visible digits, the same', reported('xxxxxx7890'), 'matched'],
    ['no account reported', reported(null), 'unknown'],
    ['an empty account', reported(' - '), 'unknown'],
    ['no payer reported at all', null, 'unknown'],
    ['a letter where a digit should be', reported('12345678A0'), 'mismatched'],
  ];
  for (const [what, payer, verdict] of table) assert.equal(comparePayer(NAMED, payer).verdict, verdict, what);
});

test('a mismatch says what differs, with no full account number', () => {
  const { verdict, differences } = comparePayer(NAMED, reported('9934567899', '004'));
  assert.equal(verdict, 'mismatched');
  assert.deepEqual(differences, [
    'bank 004 reported, 014 named',
    '3 visible digits differ at places 1, 9, 10 from the right (reported xxxxxx7899, named xxxxxx7890)',
  ]);
  for (const line of differences) assert.ok(!line.includes('1234567890') && !line.includes('9934567899'), line);
  assert.deepEqual(comparePayer(NAMED, reported('7890', '014')).differences, [
    'the reported account has 4 places, the named one 10',
  ]);
  assert.deepEqual(comparePayer(NAMED, reported('1234567890')).differences, []);
  assert.deepEqual(comparePayer(NAMED, reported('xxx')).differences, []);
});

test('maskAccount keeps the last four places only', () => {
  assert.equal(maskAccount('1234567890'), 'xxxxxx7890');
  assert.equal(maskAccount('XXX**67X9'), 'xxxxx67x9');
  assert.equal(maskAccount('123'), '123');
});
