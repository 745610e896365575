// Free-text bank names → Bank of Thailand codes (domain/thai-banks.ts), table-driven.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseBankCode, THAI_BANKS } from '../../src/domain/thai-banks.ts';

const CASES: Array<[string, string | undefined]> = [
  ['K-Bank', '004'],
  ['kbank', '004'],
  ['Kasikorn', '004'],
  ['Kasikornbank', '004'],
  ['Kasikorn Bank', '004'],
  ['กสิกรไทย', '004'],
  ['Krungthai', '006'],
  ['Krung Thai', '006'],
  ['Krung Thai Bank', '006'],
  ['KTB', '006'],
  ['Bangkok Bank', '002'],
  ['BANGKOK BANK PCL', '002'],
  ['Bualuang', '002'],
  ['SCB', '014'],
  ['Siam Commercial', '014'],
  ['siam-commercial-bank', '014'],
  ['Krungsri', '025'],
  ['Bank of Ayudhya', '025'],
  ['TTB', '011'],
  ['TMBThanachart', '011'],
  ['TMB Thanachart Bank', '011'],
  ['GSB', '030'],
  ['Government Savings Bank', '030'],
  ['Government Housing Bank', '033'],
  ['014', '014'],
  [' 030 ', '030'],
  ['14', undefined],
  ['0014', undefined],
  ['Bank', undefined],
  ['Thai Bank', undefined],
  ['Siam', undefined],
  ['Kasikornbanking', undefined],
  ['', undefined],
];

for (const [input, code] of CASES) {
  test(`'${input}' → ${code ?? 'refused'}`, () => assert.equal(normaliseBankCode(input), code));
}

test('every bank is found by its code, short name, English and Thai name', () => {
  for (const bank of THAI_BANKS) {
    for (const name of [
      bank.code,
      bank.short,
      bank.nameEn,
      bank.nameTh,
      bank.nameEn.toUpperCase(),
      ` ${bank.short.toLowerCase()} `,
    ]) {
      assert.equal(normaliseBankCode(name), bank.code, name);
    }
  }
});
