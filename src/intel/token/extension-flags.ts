/**
 * Flags of a mint: each observed control (authorities, risky Token-2022 extensions) with a
 * severity, the penalty it costs the contract score, and a factual note stating what the chain
 * data shows. Pure.
 */
import { findExtension } from '../../chain/tokens/token-extensions.ts';
import type { HookProgramStatus, ParsedMint } from './mint-analysis.ts';
import { CONTRACT_PENALTIES as P, TRANSFER_FEE_BPS, type Severity } from './token-methodology.ts';

/** One observed control. */
export interface RiskFlag {
  readonly code: string;
  readonly severity: Severity;
  /** Points subtracted from the contract score. */
  readonly penalty: number;
  readonly note: string;
  /** Facts behind the note (addresses, fees, epochs). */
  readonly facts?: Readonly<Record<string, unknown>>;
}

/** What the flags need besides the mint. */
export interface FlagContext {
  /** Current epoch (transfer-fee schedule); null when not known. */
  readonly epoch: number | null;
  readonly hook: HookProgramStatus | null;
}

const flag = (code: string, severity: Severity, penalty: number, note: string, facts?: Record<string, unknown>): RiskFlag =>
  facts ? { code, severity, penalty, note, facts } : { code, severity, penalty, note };

function transferFeeFlag(m: ParsedMint, epoch: number | null): RiskFlag | null {
  const tf = findExtension(m.typed, 'transferFeeConfig');
  if (!tf) return null;
  const { olderTransferFee: older, newerTransferFee: newer } = tf.state;
  const newerActive = epoch !== null && BigInt(epoch) >= newer.epoch;
  const current = epoch === null ? null : newerActive ? newer : older;
  const scheduled = epoch !== null && !newerActive ? newer : null;
  const worst = Math.max(older.transferFeeBasisPoints, newer.transferFeeBasisPoints);
  const facts = {
    epoch: epoch ?? 'unknown',
    currentFeeBps: current?.transferFeeBasisPoints ?? 'unknown',
    currentMaximumFee: current ? current.maximumFee.toString() : 'unknown',
    scheduledFeeBps: scheduled?.transferFeeBasisPoints ?? null,
    scheduledFromEpoch: scheduled ? Number(scheduled.epoch) : null,
    feeAuthority: tf.state.transferFeeConfigAuthority,
  };
  const cur = current ? `${current.transferFeeBasisPoints / 100}% (${current.transferFeeBasisPoints} bps)` : 'unknown (epoch not known)';
  const sched =
    scheduled && scheduled.transferFeeBasisPoints !== current?.transferFeeBasisPoints
      ? `; ${scheduled.transferFeeBasisPoints / 100}% (${scheduled.transferFeeBasisPoints} bps) from epoch ${scheduled.epoch}`
      : '';
  const note =
    `TransferFeeConfig: each transfer withholds ${cur}${sched}; fee authority ${tf.state.transferFeeConfigAuthority ?? 'none'} can change it. ` +
    `Thresholds: >= ${TRANSFER_FEE_BPS.high} bps high, >= ${TRANSFER_FEE_BPS.medium} bps medium.`;
  if (worst >= TRANSFER_FEE_BPS.high) return flag('transfer_fee', 'high', P.transferFeeAtLeast10pct, note, facts);
  if (worst >= TRANSFER_FEE_BPS.medium) return flag('transfer_fee', 'medium', P.transferFeeAtLeast1pct, note, facts);
  if (worst > 0) return flag('transfer_fee', 'low', P.transferFeeNonZero, note, facts);
  return flag('transfer_fee', 'info', 0, note, facts);
}

function hookFlag(m: ParsedMint, hook: HookProgramStatus | null): RiskFlag | null {
  const th = findExtension(m.typed, 'transferHook');
  if (!th) return null;
  if (th.state.programId === null) return flag('transfer_hook', 'info', 0, 'TransferHook extension present with no hook program set.');
  const up = hook?.upgradeable ?? 'unknown';
  const facts = { programId: th.state.programId, hookAuthority: th.state.authority, upgradeable: up, upgradeAuthority: hook?.upgradeAuthority ?? 'unknown' };
  const base = `TransferHook: every transfer calls program ${th.state.programId}, which can make transfers fail`;
  if (up === false) return flag('transfer_hook', 'low', P.transferHookImmutable, `${base}; the program has no upgrade authority (${hook?.detail}).`, facts);
  const why = up === true ? `the program is upgradeable by ${String(hook?.upgradeAuthority)}` : `upgradeability is unknown (${hook?.detail ?? 'not read'})`;
  return flag('transfer_hook', 'medium', P.transferHookUpgradeableOrUnknown, `${base}; ${why}.`, facts);
}

function pausableFlag(m: ParsedMint): RiskFlag | null {
  const p = findExtension(m.typed, 'pausableConfig');
  if (!p) return null;
  const facts = { paused: p.state.paused, authority: p.state.authority };
  if (p.state.paused)
    return flag(
      'pausable',
      'high',
      P.pausablePaused,
      `Pausable: transfers, mints and burns are paused now by authority ${p.state.authority ?? 'none'}.`,
      facts,
    );
  if (p.state.authority)
    return flag('pausable', 'medium', P.pausableAuthoritySet, `Pausable: not paused; authority ${p.state.authority} can pause all transfers.`, facts);
  return flag('pausable', 'info', 0, 'Pausable: not paused and no pause authority.', facts);
}

function closeFlag(m: ParsedMint): RiskFlag | null {
  const c = findExtension(m.typed, 'mintCloseAuthority');
  if (!c || c.state.closeAuthority === null)
    return c ? flag('mint_close_authority', 'info', 0, 'MintCloseAuthority extension present with no close authority.') : null;
  const withDelegate = findExtension(m.typed, 'permanentDelegate')?.state.delegate != null;
  const note =
    `MintCloseAuthority: ${c.state.closeAuthority} can close the mint once supply is 0 and a mint can then be re-created at the same address` +
    (withDelegate ? '; with a permanent delegate able to burn every balance, supply can be brought to 0 without the consent of holders.' : '.');
  return withDelegate
    ? flag('mint_close_authority', 'high', P.mintCloseAuthorityWithPermanentDelegate, note, {
        closeAuthority: c.state.closeAuthority,
        withPermanentDelegate: true,
      })
    : flag('mint_close_authority', 'medium', P.mintCloseAuthority, note, { closeAuthority: c.state.closeAuthority, withPermanentDelegate: false });
}

function scaledFlag(m: ParsedMint): RiskFlag | null {
  const s = findExtension(m.typed, 'scaledUiAmountConfig');
  if (!s) return null;
  const { multiplier, newMultiplier, newMultiplierEffectiveTimestamp: at } = s.state;
  const facts = { multiplier, newMultiplier, newMultiplierEffectiveTimestamp: Number(at), authority: s.state.authority };
  if (newMultiplier !== multiplier && at > 0n) {
    return flag(
      'scaled_ui_amount',
      'medium',
      P.scaledUiAmountChangeScheduled,
      `ScaledUiAmount: displayed amounts are raw x ${multiplier}; changes to x ${newMultiplier} at unix time ${at}; authority ${s.state.authority ?? 'none'}.`,
      facts,
    );
  }
  return flag(
    'scaled_ui_amount',
    'low',
    P.scaledUiAmount,
    `ScaledUiAmount: displayed amounts are raw x ${multiplier}; authority ${s.state.authority ?? 'none'} can change it.`,
    facts,
  );
}

function simpleFlags(m: ParsedMint): RiskFlag[] {
  const out: RiskFlag[] = [];
  const pd = findExtension(m.typed, 'permanentDelegate');
  if (pd?.state.delegate) {
    out.push(
      flag(
        'permanent_delegate',
        'high',
        P.permanentDelegate,
        `PermanentDelegate: ${pd.state.delegate} can transfer or burn tokens from any account of this mint.`,
        { delegate: pd.state.delegate },
      ),
    );
  }
  if (findExtension(m.typed, 'defaultAccountState')?.state.accountState === 'frozen') {
    out.push(
      flag(
        'default_account_state_frozen',
        'high',
        P.defaultAccountStateFrozen,
        `DefaultAccountState: new token accounts start frozen; only freeze authority ${m.freezeAuthority ?? 'none'} can thaw them.`,
      ),
    );
  }
  if (findExtension(m.typed, 'nonTransferable'))
    out.push(flag('non_transferable', 'high', P.nonTransferable, 'NonTransferable: tokens cannot be transferred between accounts.'));
  const ct = findExtension(m.typed, 'confidentialTransferMint');
  if (ct) {
    out.push(
      flag(
        'confidential_transfer',
        'medium',
        P.confidentialTransfer,
        `ConfidentialTransfer: balances and amounts can be encrypted, so holder shares computed from public balances may be incomplete; authority ${ct.state.authority ?? 'none'}, auto-approve ${ct.state.autoApproveNewAccounts}.`,
        { authority: ct.state.authority, autoApproveNewAccounts: ct.state.autoApproveNewAccounts },
      ),
    );
  }
  const ib = findExtension(m.typed, 'interestBearingConfig');
  if (ib) {
    out.push(
      flag(
        'interest_bearing',
        'low',
        P.interestBearing,
        `InterestBearing: displayed amounts accrue ${ib.state.currentRate / 100}% a year (${ib.state.currentRate} bps); raw balances do not change; rate authority ${ib.state.rateAuthority ?? 'none'}.`,
        { currentRateBps: ib.state.currentRate, rateAuthority: ib.state.rateAuthority },
      ),
    );
  }
  for (const e of m.typed) {
    if (e.extension === 'unparseableExtension')
      out.push(
        flag(
          'unparseable_extension',
          'medium',
          P.unparseableExtension,
          `Extension type ${e.typeId} could not be decoded (${e.reason}); its effect is unknown.`,
        ),
      );
  }
  return out;
}

/** Every flag of the mint, authorities first. */
export function mintFlags(m: ParsedMint, ctx: FlagContext): RiskFlag[] {
  const out: RiskFlag[] = [];
  if (m.mintAuthority)
    out.push(flag('mint_authority', 'medium', P.mintAuthority, `Mint authority ${m.mintAuthority} can create new supply.`, { mintAuthority: m.mintAuthority }));
  if (m.freezeAuthority)
    out.push(
      flag('freeze_authority', 'medium', P.freezeAuthority, `Freeze authority ${m.freezeAuthority} can freeze any token account of this mint.`, {
        freezeAuthority: m.freezeAuthority,
      }),
    );
  out.push(...simpleFlags(m));
  for (const f of [hookFlag(m, ctx.hook), transferFeeFlag(m, ctx.epoch), pausableFlag(m), closeFlag(m), scaledFlag(m)]) if (f) out.push(f);
  if (m.extensionError)
    out.push(
      flag(
        'malformed_extensions',
        'medium',
        P.unparseableExtension,
        `The extension area is malformed (${m.extensionError}); extensions after the fault are unknown.`,
      ),
    );
  return out;
}

/** 100 minus the penalties, floored at 0. */
export function contractScore(flags: readonly RiskFlag[]): number {
  return Math.max(0, 100 - flags.reduce((sum, f) => sum + f.penalty, 0));
}
