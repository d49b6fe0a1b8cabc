/**
 * The Token-2022 risk-profile mints of the world: which extensions each carries (the mint side and
 * the markers its token accounts need, as the Token-2022 program would add them), and the two
 * transfer-hook programs, one upgradeable and one not, so "is the hook upgradeable" is answerable
 * from chain data.
 */
import type { ExtensionInput } from '../encoding/token-accounts.ts';
import type { AccountStateName } from '../encoding/token-layout.ts';

/** Owner of upgradeable programs (loader v3). */
export const UPGRADEABLE_LOADER_ID = 'BPFLoaderUpgradeab1e11111111111111111111111';
/** `UpgradeableLoaderState` tags (bincode u32). */
const LOADER_STATE_PROGRAM = 2;
const LOADER_STATE_PROGRAM_DATA = 3;
/** Bytes of the ProgramData header: tag u32 + slot u64 + Option<Pubkey> (1 + 32). */
export const PROGRAM_DATA_HEADER_BYTES = 45;
/** Bytes of a Program account: tag u32 + programdata address. */
export const PROGRAM_ACCOUNT_BYTES = 36;

/** Addresses a risk profile needs. */
export interface RiskContext {
  /** The mint's generic authority (fee config, rate, pause, close ...). */
  readonly authority: string;
  /** The permanent delegate. */
  readonly delegate: string;
  readonly mint: string;
  readonly upgradeableHookProgram: string;
  readonly immutableHookProgram: string;
  /** Unix seconds "now" in the world, for timestamps. */
  readonly nowUnix: bigint;
}

/** What a risk profile puts on chain. */
export interface RiskProfile {
  readonly extensions: readonly ExtensionInput[];
  readonly accountExtensions: readonly ExtensionInput[];
  /** Token-2022 requires a freeze authority for DefaultAccountState frozen. */
  readonly freezeAuthority: boolean;
  readonly accountState: AccountStateName;
}

/** 10% of each transfer withheld now. */
const CURRENT_FEE_BPS = 1000;
/** 50% scheduled far in the future (the scheduled value still shows in the mint). */
const SCHEDULED_FEE_BPS = 5000;
const SCHEDULED_FEE_EPOCH = 1_000_000n;
/** 30% a year, in basis points. */
const INTEREST_RATE_BPS = 3000;
const U64_MAX = 2n ** 64n - 1n;
const IMMUTABLE_OWNER: ExtensionInput = { extension: 'immutableOwner', state: {} };

function transferFee(authority: string): ExtensionInput {
  return {
    extension: 'transferFeeConfig',
    state: {
      transferFeeConfigAuthority: authority,
      withdrawWithheldAuthority: authority,
      withheldAmount: 0n,
      olderTransferFee: { epoch: 0n, maximumFee: U64_MAX, transferFeeBasisPoints: CURRENT_FEE_BPS },
      newerTransferFee: { epoch: SCHEDULED_FEE_EPOCH, maximumFee: U64_MAX, transferFeeBasisPoints: SCHEDULED_FEE_BPS },
    },
  };
}

function metadata(ctx: RiskContext, name: string, symbol: string): ExtensionInput[] {
  return [
    { extension: 'metadataPointer', state: { authority: ctx.authority, metadataAddress: ctx.mint } },
    {
      extension: 'tokenMetadata',
      state: {
        updateAuthority: ctx.authority,
        mint: ctx.mint,
        name,
        symbol,
        uri: `https://localnet.invalid/${symbol}.json`,
        additionalMetadata: [],
      },
    },
  ];
}

/** Mint and account extensions of risk profile `key`; throws on an unknown key (a fixture bug). */
export function riskProfile(key: string, symbol: string, ctx: RiskContext): RiskProfile {
  const plain = (exts: ExtensionInput[], account: ExtensionInput[] = []): RiskProfile => ({
    extensions: exts,
    accountExtensions: [IMMUTABLE_OWNER, ...account],
    freezeAuthority: false,
    accountState: 'initialized',
  });
  const meta = metadata(ctx, `${symbol} local risk token`, symbol);
  switch (key) {
    case 'permanentDelegate':
      return plain([{ extension: 'permanentDelegate', state: { delegate: ctx.delegate } }, ...meta]);
    case 'transferHookUpgradeable':
    case 'transferHookImmutable': {
      const programId = key === 'transferHookUpgradeable' ? ctx.upgradeableHookProgram : ctx.immutableHookProgram;
      return plain(
        [{ extension: 'transferHook', state: { authority: ctx.authority, programId } }, ...meta],
        [{ extension: 'transferHookAccount', state: { transferring: false } }],
      );
    }
    case 'transferFeeHigh':
      return plain([transferFee(ctx.authority), ...meta], [{ extension: 'transferFeeAmount', state: { withheldAmount: 0n } }]);
    case 'defaultFrozen':
      return { ...plain([{ extension: 'defaultAccountState', state: { accountState: 'frozen' } }, ...meta]), freezeAuthority: true, accountState: 'frozen' };
    case 'nonTransferable':
      return plain([{ extension: 'nonTransferable', state: {} }, ...meta], [{ extension: 'nonTransferableAccount', state: {} }]);
    case 'mintCloseAuthority':
      return plain([{ extension: 'mintCloseAuthority', state: { closeAuthority: ctx.authority } }, ...meta]);
    case 'pausable':
      return plain(
        [{ extension: 'pausableConfig', state: { authority: ctx.authority, paused: true } }, ...meta],
        [{ extension: 'pausableAccount', state: {} }],
      );
    case 'confidentialTransfer':
      return plain([
        { extension: 'confidentialTransferMint', state: { authority: ctx.authority, autoApproveNewAccounts: true, auditorElgamalPubkey: null } },
        ...meta,
      ]);
    case 'interestBearing':
      return plain([
        {
          extension: 'interestBearingConfig',
          state: {
            rateAuthority: ctx.authority,
            initializationTimestamp: ctx.nowUnix,
            preUpdateAverageRate: INTEREST_RATE_BPS,
            lastUpdateTimestamp: ctx.nowUnix,
            currentRate: INTEREST_RATE_BPS,
          },
        },
        ...meta,
      ]);
    case 'scaledUiAmount':
      return plain([
        {
          extension: 'scaledUiAmountConfig',
          state: {
            authority: ctx.authority,
            multiplier: 1,
            newMultiplierEffectiveTimestamp: ctx.nowUnix + 30n * 86_400n,
            newMultiplier: 0.01,
          },
        },
        ...meta,
      ]);
    case 'multiRisk':
      return plain(
        [
          { extension: 'permanentDelegate', state: { delegate: ctx.delegate } },
          { extension: 'mintCloseAuthority', state: { closeAuthority: ctx.authority } },
          transferFee(ctx.authority),
          { extension: 'pausableConfig', state: { authority: ctx.authority, paused: false } },
          ...meta,
        ],
        [
          { extension: 'transferFeeAmount', state: { withheldAmount: 0n } },
          { extension: 'pausableAccount', state: {} },
        ],
      );
    case 'cleanToken2022':
      return plain(meta);
    default:
      throw new Error(`world fixture: unknown risk profile ${key}`);
  }
}

/** Account bytes of an upgradeable-loader Program account pointing at its ProgramData. */
export function programAccountData(programDataAddress: Uint8Array): Uint8Array {
  const data = new Uint8Array(PROGRAM_ACCOUNT_BYTES);
  new DataView(data.buffer).setUint32(0, LOADER_STATE_PROGRAM, true);
  data.set(programDataAddress, 4);
  return data;
}

/** Account bytes of a ProgramData header (no ELF: LiteSVM cannot load one we do not have). */
export function programDataAccountData(slot: bigint, upgradeAuthority: Uint8Array | null): Uint8Array {
  const data = new Uint8Array(PROGRAM_DATA_HEADER_BYTES);
  const view = new DataView(data.buffer);
  view.setUint32(0, LOADER_STATE_PROGRAM_DATA, true);
  view.setBigUint64(4, slot, true);
  if (upgradeAuthority !== null) {
    data[12] = 1;
    data.set(upgradeAuthority, 13);
  }
  return data;
}
