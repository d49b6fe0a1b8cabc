/**
 * How a price reads to people: catalog prices are atomic units of a 6-decimal stablecoin (USDC),
 * shown as US dollars in the discovery documents and in receipts.
 */

/** Atomic units per dollar of the 6-decimal stablecoins the catalog prices in. */
const UNITS_PER_USD = 1_000_000;

/** `$0.01` from 10000 atomic units: the shortest exact rendering with at least two decimals. */
export function formatUsd(units: number): string {
  const whole = Math.floor(units / UNITS_PER_USD);
  const frac = String(units % UNITS_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `$${whole}.${frac}`;
}
