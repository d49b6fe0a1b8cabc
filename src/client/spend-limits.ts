/**
 * The client's spend limits, checked before anything is signed: the price of one call, the sum of
 * the prices the client may be charged over its life, and the size of one channel deposit. A
 * call's price is held against the total while it is in flight (so calls at once cannot pass the
 * total together) and given back when the service answered without charging it (a 402, 4xx or
 * 5xx charges nothing); a call whose answer never came stays counted, as it may have been charged.
 */

/** Limits in the stablecoin's base units (6 decimals: 1_000_000 = 1 USDC). */
export interface SpendLimit {
  /** Highest price paid for one call (default 1 USDC, the official x402 client's own default cap). */
  readonly perCallUnits?: bigint;
  /** Most the client may be charged in all, summed over its calls (default: no bound). */
  readonly totalUnits?: bigint;
  /** Largest single deposit into a Base payment channel (default 5 x perCallUnits, the official client's rule). */
  readonly depositUnits?: bigint;
}

/** Default cap of one call: 1 USDC. */
export const DEFAULT_PER_CALL_UNITS = 1_000_000n;
/** The official batch-settlement client's deposit bound: this many times the per-payment cap. */
export const DEPOSIT_MULTIPLIER = 5n;

/** Why a call was refused before signing. */
export type LimitReason = 'price_above_limit' | 'spend_limit' | 'deposit_above_limit';

export type LimitCheck =
  | { readonly ok: true; readonly release: (charged: boolean) => void }
  | { readonly ok: false; readonly reason: LimitReason; readonly message: string };

/** What the client has been charged and has deposited, in units. */
export interface SpendTotals {
  readonly chargedUnits: bigint;
  readonly depositedUnits: bigint;
  readonly heldUnits: bigint;
}

export interface SpendLedger {
  /** Holds `price` for a call, or says why not. */
  hold(price: bigint): LimitCheck;
  /** Whether a deposit of `units` is within the limit (a refusal, or null). */
  checkDeposit(units: bigint): { readonly reason: LimitReason; readonly message: string } | null;
  /** Records a deposit that was answered 200 (its money moved into the channel). */
  deposited(units: bigint): void;
  /** The deposit bound. */
  readonly depositCap: bigint;
  totals(): SpendTotals;
}

const usdc = (units: bigint): string => {
  const whole = units / 1_000_000n;
  const fraction = (units % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} USDC`;
};

/** A ledger of holds and charges under `limit`. */
export function createSpendLedger(limit: SpendLimit = {}): SpendLedger {
  const perCall = limit.perCallUnits ?? DEFAULT_PER_CALL_UNITS;
  const depositCap = limit.depositUnits ?? perCall * DEPOSIT_MULTIPLIER;
  let charged = 0n;
  let held = 0n;
  let deposited = 0n;
  return {
    depositCap,
    hold(price) {
      if (price > perCall) return { ok: false, reason: 'price_above_limit', message: `the price ${usdc(price)} is above the per-call limit ${usdc(perCall)}` };
      if (limit.totalUnits !== undefined && charged + held + price > limit.totalUnits)
        return {
          ok: false,
          reason: 'spend_limit',
          message: `paying ${usdc(price)} would pass the total limit ${usdc(limit.totalUnits)} (${usdc(charged + held)} spent or in flight)`,
        };
      held += price;
      let open = true;
      return {
        ok: true,
        release(wasCharged) {
          if (!open) return;
          open = false;
          held -= price;
          if (wasCharged) charged += price;
        },
      };
    },
    checkDeposit(units) {
      return units > depositCap
        ? { reason: 'deposit_above_limit', message: `a channel deposit of ${usdc(units)} is above the deposit limit ${usdc(depositCap)}` }
        : null;
    },
    deposited(units) {
      deposited += units;
    },
    totals: () => ({ chargedUnits: charged, depositedUnits: deposited, heldUnits: held }),
  };
}
