/**
 * The published methodology of the forensics endpoints (for `/trust/sir` and docs/endpoints.md),
 * built from the constants the code uses so the document cannot drift from the behaviour.
 */
import { TX_CACHE_TTL_MS, WALLET_CACHE_TTL_MS } from './forensics-group.ts';
import { PRETRADE_TOP10_MAX_PCT } from './pretrade-checklist.ts';
import { JITO_TIP_ACCOUNTS, WELL_KNOWN_PROGRAMS } from './program-names.ts';
import { SIMULATE_NOTE } from './simulate-tx.ts';
import { LISTED_TOKEN_ACCOUNTS, WALLET_BAND_RULE, WALLET_BANDS, WALLET_SCAN_SIGNATURE_LIMIT } from './wallet-profile.ts';

export const FORENSICS_METHODOLOGY = Object.freeze({
  methodologyVersion: 'forensics.v1',
  walletScan: {
    reads:
      'getAccountInfo (empty data slice), getSignaturesForAddress (one page), getTokenAccountsByOwner for SPL Token and Token-2022 (jsonParsed), confirmed commitment',
    band: WALLET_BAND_RULE,
    thresholds: { ...WALLET_BANDS, signatureWindow: WALLET_SCAN_SIGNATURE_LIMIT },
    age: `block time of the oldest signature in the window; "exact" when fewer than ${WALLET_SCAN_SIGNATURE_LIMIT} signatures came back, "lower-bound" when the window is full or the oldest signature has no block time; "unknown" without a dated signature`,
    listedTokenAccounts: LISTED_TOKEN_ACCOUNTS,
    cacheTtlMs: WALLET_CACHE_TTL_MS,
  },
  txInspect: {
    reads: 'getTransaction (json, maxSupportedTransactionVersion 0, confirmed commitment)',
    solBalanceChanges:
      "postBalances - preBalances per account key (static keys, then loaded writable, then loaded readonly); unchanged accounts omitted; the fee is included in the fee payer's change",
    tokenBalanceChanges: 'postTokenBalances - preTokenBalances per account index; a side that is missing counts as zero; unchanged accounts omitted',
    programs: 'outer and inner instruction program ids in first-invocation order, named from a fixed table of well-known program ids; others are "unknown"',
    wellKnownPrograms: WELL_KNOWN_PROGRAMS,
    jitoTip: { rule: 'sum of positive SOL changes of the eight Jito tip accounts', accounts: [...JITO_TIP_ACCOUNTS] },
    notFound: '404 not_found when the node has no confirmed transaction with the signature (not cached: it may land later)',
    cacheTtlMs: TX_CACHE_TTL_MS,
  },
  simulate: {
    rule: SIMULATE_NOTE,
    invalidTransaction:
      '400 invalid_transaction when the base64 or the wire transaction does not decode, when the node refuses it as invalid params (-32602) or signature failure (-32003), or when it answers SanitizeFailure',
    accountsTouched: 'static account keys plus accounts named by address-table lookups',
    cached: false,
  },
  pretrade: {
    parts:
      'token-intel (token group), largest token account owner -> wallet-scan profile, priority-fee bands (timing group); each part that fails is { error, message } and the answer is still 200',
    notFound: '404 when the mint address holds no SPL Token / Token-2022 mint (read first, independent of the parts)',
    allPartsFailed: '502 upstream_unavailable (nothing is charged)',
    checklist: {
      observed: 'true when the stated condition holds, false when not, "unknown" when its input could not be read',
      top10MaxPct: PRETRADE_TOP10_MAX_PCT,
      riskyToken2022Extensions:
        'permanentDelegate (delegate set), transferHook (program set), transferFeeConfig, defaultAccountState frozen, mintCloseAuthority (authority set), pausableConfig, nonTransferable, confidentialTransferMint, interestBearingConfig, scaledUiAmountConfig, unparseable extension',
    },
  },
});
