/**
 * Amounts people type (`--max-price 0.05`, `--usdc 10`, `--sol 1`) as the integer base units the
 * chain counts in, exactly: decimal text is split, never turned into a float, so 0.1 is 100000
 * units and not 99999.99. Prices are compared in units of the service's 6-decimal stablecoins.
 */
import { usageError } from './cli-error.ts';

/** Decimals of USDC on Solana and on Base (and of the localnet stablecoins). */
export const USDC_DECIMALS = 6;
/** Decimals of SOL (lamports). */
export const SOL_DECIMALS = 9;

const DECIMAL_RE = /^(\d*)(?:\.(\d*))?$/;

/** Base units of a non-negative decimal (`$` allowed in front); throws a usage error naming `option`. */
export function parseUnits(text: string, decimals: number, option: string): bigint {
  const trimmed = text.trim().replace(/^\$/, '');
  const m = DECIMAL_RE.exec(trimmed);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) throw usageError(`${option} must be a non-negative decimal number, e.g. 0.05; got "${text.slice(0, 32)}"`);
  const whole = m[1] || '0';
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) throw usageError(`${option} has more than ${decimals} decimals; the smallest step is ${formatUnits(1n, decimals)}`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** `units` as a plain decimal (`1000` at 6 decimals -> `0.001`). */
export function formatUnits(units: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const frac = (units % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${units / scale}.${frac}` : `${units / scale}`;
}

/**
 * Whether a 402's `amount` (an integer string of base units) may be paid under `maxUnits`. Anything
 * that is not a plain non-negative integer cannot be checked, so it is never within the cap.
 */
export function withinMaxPrice(amount: unknown, maxUnits: bigint): boolean {
  if (typeof amount !== 'string' || !/^\d{1,30}$/.test(amount)) return false;
  return BigInt(amount) <= maxUnits;
}
