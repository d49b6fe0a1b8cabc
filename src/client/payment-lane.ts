/**
 * A way of paying (a lane): which of a route's options it takes and how it builds the payment for
 * one call. Three lanes: a Base payment channel (`batch-settlement`), `exact` on Base, `exact` on
 * Solana. A lane builds only the scheme's own `payload`; the envelope around it (the x402
 * PaymentPayload) is the same for every lane (payment-header.ts).
 */
import type { HttpAnswer } from './client-http.ts';
import type { Terms } from './x402-wire.ts';

/** The lanes, as `prefer` names them. */
export const LANES = ['base-channel', 'base-exact', 'solana-exact'] as const;
export type LaneName = (typeof LANES)[number];

/** A payment built for one call. */
export interface PreparedPayment {
  /** The scheme's payload (the PaymentPayload's `payload`). */
  readonly payload: Readonly<Record<string, unknown>>;
  /** The payload's JSON text, when the lane built it (the same as `JSON.stringify(payload)`). */
  readonly payloadJson?: string;
  /** What a channel deposit moves into the channel, units (0 for everything else). */
  readonly depositUnits: bigint;
  /**
   * Called once with the service's answer (null: none came). A lane with state (the channel) takes
   * what the answer says and lets the next call of its channel go; `resynced` is true when the
   * answer was a corrective 402 the lane took its state from, so the call may be paid once more.
   */
  finish(answer: HttpAnswer | null): Promise<{ readonly resynced: boolean }>;
}

/** A payment built, or why the lane will not pay (nothing was signed). */
export type Prepared = { readonly ok: true; readonly payment: PreparedPayment } | { readonly ok: false; readonly reason: string; readonly message: string };

export interface PaymentLane {
  readonly name: LaneName;
  /** The option of `accepts` this lane pays, or null. */
  pick(accepts: readonly Terms[]): Terms | null;
  /** Builds the payment of one call under `terms` (the option `pick` chose). */
  prepare(terms: Terms): Promise<Prepared>;
}

/** Nothing to take from the answer. */
export const STATELESS_FINISH = async (): Promise<{ readonly resynced: boolean }> => ({ resynced: false });

/** A known stablecoin of the scheme's own table, or any asset when the client was told to allow any. */
export function assetAllowed(terms: Terms, anyAsset: boolean, findDefaultAsset?: (asset: string, network: `${string}:${string}`) => unknown): boolean {
  if (anyAsset) return true;
  return findDefaultAsset?.(terms.asset, terms.network as `${string}:${string}`) !== undefined;
}

/** The refusal of an asset the client does not pay in. */
export const assetRefused = (terms: Terms): Prepared => ({
  ok: false,
  reason: 'asset_not_allowed',
  message: `the service asks to be paid in ${terms.asset.slice(0, 64)} on ${terms.network.slice(0, 64)}, which is no stablecoin the x402 client knows (allow it with anyAsset)`,
});
