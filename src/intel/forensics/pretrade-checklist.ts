/**
 * The pretrade checklist: factual checks, each with the observed value it was judged on. A check
 * whose input could not be read says `observed: 'unknown'` (never guessed). `observed: true`
 * means the stated condition holds; nothing here is a recommendation.
 */
import type { MintState, Token2022Extension } from '../../chain/tokens/token-extensions.ts';

/** Top-10 concentration (percent of supply) the checklist compares against. */
export const PRETRADE_TOP10_MAX_PCT = 50;

/** One checklist row. */
export interface ChecklistItem {
  readonly check: string;
  readonly observed: boolean | 'unknown';
  readonly value: unknown;
}

/** Token-2022 extensions the checklist counts as risky, with the condition that makes them so. */
export function riskyExtensions(extensions: readonly Token2022Extension[]): string[] {
  const out: string[] = [];
  for (const e of extensions) {
    switch (e.extension) {
      case 'permanentDelegate':
        if (e.state.delegate !== null) out.push('permanentDelegate');
        break;
      case 'transferHook':
        if (e.state.programId !== null) out.push('transferHook');
        break;
      case 'transferFeeConfig':
        out.push('transferFeeConfig');
        break;
      case 'defaultAccountState':
        if (e.state.accountState === 'frozen') out.push('defaultAccountState:frozen');
        break;
      case 'mintCloseAuthority':
        if (e.state.closeAuthority !== null) out.push('mintCloseAuthority');
        break;
      case 'pausableConfig':
        out.push(e.state.paused ? 'pausableConfig:paused' : 'pausableConfig');
        break;
      case 'nonTransferable':
      case 'confidentialTransferMint':
      case 'interestBearingConfig':
      case 'scaledUiAmountConfig':
      case 'unparseableExtension':
        out.push(e.extension);
        break;
      default:
        break;
    }
  }
  return out;
}

/** The facts the checklist is built from; null where that part failed. */
export interface ChecklistInputs {
  readonly mint: MintState;
  readonly extensions: readonly Token2022Extension[];
  readonly top10Pct: number | null;
  readonly largestHolderBand: string | null;
}

/** The checklist rows, in a fixed order. */
export function pretradeChecklist(i: ChecklistInputs): ChecklistItem[] {
  const risky = riskyExtensions(i.extensions);
  return [
    { check: 'mint authority revoked (no further minting possible)', observed: i.mint.mintAuthority === null, value: i.mint.mintAuthority },
    { check: 'freeze authority revoked (holder accounts cannot be frozen)', observed: i.mint.freezeAuthority === null, value: i.mint.freezeAuthority },
    {
      check: `top-10 token accounts hold under ${PRETRADE_TOP10_MAX_PCT}% of supply`,
      observed: i.top10Pct === null ? 'unknown' : i.top10Pct < PRETRADE_TOP10_MAX_PCT,
      value: i.top10Pct ?? 'unknown',
    },
    {
      check:
        'no risky Token-2022 extension (permanent delegate, transfer hook, transfer fee, default frozen, close authority, pausable, non-transferable, confidential, interest-bearing, scaled UI amount, unparseable)',
      observed: risky.length === 0,
      value: risky,
    },
    {
      check: 'largest holder wallet is not in the fresh band',
      observed: i.largestHolderBand === null ? 'unknown' : i.largestHolderBand !== 'fresh',
      value: i.largestHolderBand ?? 'unknown',
    },
  ];
}
