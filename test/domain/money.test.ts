// Exact money (src/domain/money.ts): decimal parsing, JSON numbers as decimal text, printing,
// and half-even rounding. Expected values are written out by hand from the rules, never
// computed with the function under test.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatMinor, mulDivHalfEven, numberToDecimalText, parseDecimal } from '../../src/domain/money.ts';

describe('parseDecimal', () => {
  test('reads digits with an optional fraction exactly, in 1/10,000 units', () => {
    assert.deepEqual(parseDecimal('150'), { minor: 1_500_000n, significantFractionDigits: 0 });
    assert.deepEqual(parseDecimal('150.50'), { minor: 1_505_000n, significantFractionDigits: 1 });
    assert.deepEqual(parseDecimal('9999.99'), { minor: 99_999_900n, significantFractionDigits: 2 });
    assert.deepEqual(parseDecimal('0.0001'), { minor: 1n, significantFractionDigits: 4 });
    assert.deepEqual(parseDecimal('000100.000'), { minor: 1_000_000n, significantFractionDigits: 0 });
    assert.deepEqual(parseDecimal('99.999'), { minor: 999_990n, significantFractionDigits: 3 });
  });

  test('beyond float precision stays exact', () => {
    // 2^53 + 1 and a 30-digit amount cannot be held by a double; bigint keeps every digit.
    assert.equal(parseDecimal('9007199254740993.01')?.minor, 90_071_992_547_409_930_100n);
    assert.equal(
      parseDecimal('123456789012345678901234567890.12')?.minor,
      1_234_567_890_123_456_789_012_345_678_901_200n,
    );
  });

  test('more than four significant fraction digits is reported, never rounded into an amount', () => {
    const parsed = parseDecimal('1.00001');
    assert.equal(parsed?.significantFractionDigits, 5);
  });

  test('anything but ^\\d+(\\.\\d+)?$ is refused', () => {
    for (const bad of [
      '',
      ' 1',
      '1 ',
      '+1',
      '-1',
      '1e3',
      '1E3',
      '1.',
      '.5',
      '1,000',
      '1.2.3',
      '0x10',
      'NaN',
      'Infinity',
      '١٢٣',
      '๑๒๓',
      '１２３',
      '1_000',
    ]) {
      assert.equal(parseDecimal(bad), null, JSON.stringify(bad));
    }
  });

  test('a bounded length: 400 characters are read, longer text is refused', () => {
    assert.equal(parseDecimal('1'.padEnd(400, '0'))?.minor, 10n ** 399n * 10_000n);
    assert.equal(parseDecimal('1'.padEnd(401, '0')), null);
  });
});

describe('numberToDecimalText', () => {
  test('uses the shortest round-trip form of the double', () => {
    assert.equal(numberToDecimalText(150.0), '150');
    assert.equal(numberToDecimalText(150.5), '150.5');
    assert.equal(numberToDecimalText(9999.99), '9999.99');
    assert.equal(numberToDecimalText(0.1 + 0.2), '0.30000000000000004');
    assert.equal(numberToDecimalText(0), '0');
    assert.equal(numberToDecimalText(-0), '0');
  });

  test('expands exponent forms by moving the decimal point, without arithmetic', () => {
    assert.equal(numberToDecimalText(1e21), '1000000000000000000000');
    assert.equal(numberToDecimalText(1.5e21), '1500000000000000000000');
    assert.equal(numberToDecimalText(1.2345e22), '12345000000000000000000');
    assert.equal(numberToDecimalText(1e-7), '0.0000001');
    assert.equal(numberToDecimalText(1.5e-7), '0.00000015');
    assert.equal(numberToDecimalText(123e-9), '0.000000123');
    assert.equal(numberToDecimalText(Number.MAX_VALUE)?.length, 309);
    assert.equal(numberToDecimalText(5e-324), `0.${'0'.repeat(323)}5`);
  });

  test('negative, NaN and infinite numbers have no amount text', () => {
    for (const bad of [-1, -0.01, -1e21, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      assert.equal(numberToDecimalText(bad), null, String(bad));
    }
  });

  test('property: every finite non-negative double prints as plain digits that mean exactly that double', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = numberToDecimalText(value);
        assert.ok(text !== null);
        assert.match(text, /^\d+(\.\d+)?$/);
        // Number() here only checks the round trip; it is not on the money path.
        assert.equal(Number(text), value === 0 ? 0 : value);
        // Shortest form: the significant digits are those of ECMAScript's Number::toString.
        const significant = (s: string) => s.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
        const mantissa = String(value).split('e')[0] ?? '';
        assert.equal(significant(text), significant(mantissa));
      }),
      { numRuns: 2000 },
    );
  });

  test('the decimal text of a number parses back through parseDecimal', () => {
    assert.equal(parseDecimal(numberToDecimalText(1e21)!)?.minor, 10n ** 21n * 10_000n);
    assert.equal(parseDecimal(numberToDecimalText(150.0)!)?.minor, 1_500_000n);
    assert.equal(parseDecimal(numberToDecimalText(1e-7)!)?.significantFractionDigits, 7);
  });
});

describe('formatMinor', () => {
  test('prints exactly the requested fraction digits', () => {
    assert.equal(formatMinor(10_000_000n, 2), '1000.00');
    assert.equal(formatMinor(1_505_000n, 2), '150.50');
    assert.equal(formatMinor(125_005_000n, 4), '12500.5000');
    assert.equal(formatMinor(1n, 4), '0.0001');
    assert.equal(formatMinor(0n, 2), '0.00');
    assert.equal(formatMinor(0n, 0), '0');
    assert.equal(formatMinor(-12_345n, 4), '-1.2345');
    assert.equal(formatMinor(-5_000n, 2), '-0.50');
    assert.equal(formatMinor(20_000_000_000n, 2), '2000000.00');
  });

  test('refuses to round away digits', () => {
    assert.throws(() => formatMinor(1n, 2), RangeError);
    assert.throws(() => formatMinor(999_999n, 2), RangeError);
    assert.throws(() => formatMinor(15_000n, 0), RangeError);
  });

  test('refuses fraction digits outside 0..4', () => {
    assert.throws(() => formatMinor(0n, 5), RangeError);
    assert.throws(() => formatMinor(0n, -1), RangeError);
    assert.throws(() => formatMinor(0n, 1.5), RangeError);
  });

  test('property: printing with 4 digits and parsing back is the identity', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (minor) => {
        assert.equal(parseDecimal(formatMinor(minor, 4))?.minor, minor);
      }),
    );
  });
});

describe('mulDivHalfEven', () => {
  test('rounds ties to the even neighbour', () => {
    assert.equal(mulDivHalfEven(5n, 1n, 2n), 2n); // 2.5 → 2
    assert.equal(mulDivHalfEven(15n, 1n, 2n), 8n); // 7.5 → 8
    assert.equal(mulDivHalfEven(1n, 1n, 2n), 0n); // 0.5 → 0
    assert.equal(mulDivHalfEven(3n, 1n, 2n), 2n); // 1.5 → 2
    assert.equal(mulDivHalfEven(125n, 1n, 10n), 12n); // 12.5 → 12
    assert.equal(mulDivHalfEven(135n, 1n, 10n), 14n); // 13.5 → 14
  });

  test('rounds non-ties to the nearest', () => {
    assert.equal(mulDivHalfEven(10n, 1n, 3n), 3n); // 3.33
    assert.equal(mulDivHalfEven(20n, 1n, 3n), 7n); // 6.67
    assert.equal(mulDivHalfEven(251n, 1n, 100n), 3n); // 2.51
    assert.equal(mulDivHalfEven(249n, 1n, 100n), 2n); // 2.49
    assert.equal(mulDivHalfEven(7n, 0n, 3n), 0n);
  });

  test('a fee of 2.5 % (25,000 ppm) on 150.50 THB, in 1/10,000 units', () => {
    // 1,505,000 × 25,000 / 1,000,000 = 37,625 exactly: 3.7625 THB.
    assert.equal(mulDivHalfEven(1_505_000n, 25_000n, 1_000_000n), 37_625n);
    // 1 × 1 / 2 is a tie at 0.5 → 0 (even); 3 × 1 / 2 = 1.5 → 2.
    assert.equal(mulDivHalfEven(1n, 500_000n, 1_000_000n), 0n);
    assert.equal(mulDivHalfEven(3n, 500_000n, 1_000_000n), 2n);
  });

  test('refuses negative inputs and a zero denominator', () => {
    assert.throws(() => mulDivHalfEven(-1n, 1n, 1n), RangeError);
    assert.throws(() => mulDivHalfEven(1n, -1n, 1n), RangeError);
    assert.throws(() => mulDivHalfEven(1n, 1n, 0n), RangeError);
  });

  test('property: the result is the nearest integer, and an even one on a tie', () => {
    const small = fc.bigInt({ min: 0n, max: 10n ** 15n });
    fc.assert(
      fc.property(small, small, fc.bigInt({ min: 1n, max: 10n ** 9n }), (minor, numerator, denominator) => {
        const result = mulDivHalfEven(minor, numerator, denominator);
        const exact = minor * numerator; // the true value is exact / denominator
        const distanceTwice = 2n * (exact - result * denominator); // 2 × (true − result) × denominator
        assert.ok(distanceTwice <= denominator && distanceTwice >= -denominator, 'within half a unit');
        if (distanceTwice === denominator || distanceTwice === -denominator)
          assert.equal(result % 2n, 0n, 'ties go to even');
      }),
      { numRuns: 2000 },
    );
  });
});
