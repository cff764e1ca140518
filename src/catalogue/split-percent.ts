/** SplitPercent as an exact count of millionths of a percent. */

const MILLIONTHS_PER_PERCENT = 1_000_000;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Reads a decimal numeral exactly. Returns undefined when the text is not a number, or when it
 * has a non-zero digit beyond the sixth decimal (the value cannot be stored exactly).
 */
export function parseMillionths(text: string): number | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) return undefined;
  // The value is digits × 10^(shift - 6) millionths.
  let digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const shift = exponent - fraction.length + 6;
  if (shift >= 0) {
    digits = digits === '0' ? '0' : digits + '0'.repeat(shift);
  } else {
    const dropped = digits.slice(Math.max(0, digits.length + shift));
    if (/[1-9]/.test(dropped)) return undefined;
    digits = digits.slice(0, Math.max(0, digits.length + shift)) || '0';
  }
  if (digits.length > 15) return sign ? -Infinity : Infinity;
  const value = Number(digits);
  return sign && value !== 0 ? -value : value;
}

/** Writes millionths as a decimal with exactly six places: 33_333_334 → "33.333334". */
export function formatMillionths(millionths: number): string {
  const whole = Math.trunc(millionths / MILLIONTHS_PER_PERCENT);
  const fraction = String(millionths % MILLIONTHS_PER_PERCENT).padStart(6, '0');
  return `${whole}.${fraction}`;
}

export const HUNDRED_PERCENT = 100 * MILLIONTHS_PER_PERCENT;
