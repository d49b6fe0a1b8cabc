/**
 * Reads a mint account (SPL Token or Token-2022) into plain facts: program, authorities, supply,
 * decimals and every Token-2022 extension, JSON-safe. Pure; the flags are computed separately
 * (extension-flags.ts) once the transfer-hook program and the epoch are known.
 */
import { encodeBase58 } from '../../chain/solana/base58.ts';
import { parseMintAccount, toUiExtension, type Token2022Extension, type UiJson } from '../../chain/tokens/token-extensions.ts';

export const SPL_TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** One Token-2022 extension as reported. */
export interface ExtensionFact {
  readonly extension: string;
  readonly typeId: number;
  /** Agave jsonParsed state; absent for marker extensions; null for an unparseable entry. */
  readonly state?: UiJson;
  readonly unparseableReason?: string;
}

/** A parsed mint. */
export interface ParsedMint {
  readonly program: 'spl-token' | 'token-2022';
  readonly programId: string;
  readonly decimals: number;
  readonly supply: bigint;
  readonly isInitialized: boolean;
  readonly mintAuthority: string | null;
  readonly freezeAuthority: string | null;
  /** Typed extensions, for the flags. */
  readonly typed: readonly Token2022Extension[];
  readonly extensions: readonly ExtensionFact[];
  /** Why the extension area is malformed; null when well formed. */
  readonly extensionError: string | null;
}

export type MintParseResult =
  | { readonly ok: true; readonly mint: ParsedMint }
  | { readonly ok: false; readonly reason: 'not_a_mint'; readonly detail: string; readonly owner: string };

function fact(e: Token2022Extension): ExtensionFact {
  if (e.extension === 'unparseableExtension') return { extension: e.extension, typeId: e.typeId, unparseableReason: e.reason };
  const ui = toUiExtension(e);
  return ui.state === undefined ? { extension: e.extension, typeId: e.typeId } : { extension: e.extension, typeId: e.typeId, state: ui.state };
}

/** Parses the account of `owner` with `data` as a mint; anything else is `not_a_mint`. */
export function parseMint(owner: string, data: Uint8Array): MintParseResult {
  const program = owner === SPL_TOKEN_PROGRAM_ID ? 'spl-token' : owner === TOKEN_2022_PROGRAM_ID ? 'token-2022' : null;
  if (program === null) return { ok: false, reason: 'not_a_mint', detail: `the account is owned by ${owner}, not a token program`, owner };
  if (program === 'spl-token' && data.length !== 82) {
    return { ok: false, reason: 'not_a_mint', detail: `an SPL Token account of ${data.length} bytes is not a mint`, owner };
  }
  const parsed = parseMintAccount(data);
  if (!parsed.ok) return { ok: false, reason: 'not_a_mint', detail: parsed.error, owner };
  if (!parsed.state.isInitialized) return { ok: false, reason: 'not_a_mint', detail: 'the mint is not initialized', owner };
  const s = parsed.state;
  return {
    ok: true,
    mint: {
      program,
      programId: owner,
      decimals: s.decimals,
      supply: s.supply,
      isInitialized: s.isInitialized,
      mintAuthority: s.mintAuthority,
      freezeAuthority: s.freezeAuthority,
      typed: parsed.extensions,
      extensions: parsed.extensions.map(fact),
      extensionError: parsed.error,
    },
  };
}

/** Upgradeable-loader program ids and the non-upgradeable loaders. */
export const UPGRADEABLE_LOADER_ID = 'BPFLoaderUpgradeab1e11111111111111111111111';
const FIXED_LOADERS = new Set(['BPFLoader2111111111111111111111111111111111', 'BPFLoader1111111111111111111111111111111111']);
const LOADER_STATE_PROGRAM = 2;
const LOADER_STATE_PROGRAM_DATA = 3;

/** Whether a transfer-hook program can be upgraded, as far as chain data shows. */
export interface HookProgramStatus {
  readonly programId: string;
  readonly upgradeable: boolean | 'unknown';
  /** Current upgrade authority, null when none, `unknown` when not determinable. */
  readonly upgradeAuthority: string | null | 'unknown';
  readonly programData: string | null;
  readonly detail: string;
}

/** The ProgramData address a Program account points to, or null when it is not one. */
export function programDataAddressOf(owner: string, data: Uint8Array): string | null {
  if (owner !== UPGRADEABLE_LOADER_ID || data.length < 36) return null;
  if (new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true) !== LOADER_STATE_PROGRAM) return null;
  return encodeBase58(data.subarray(4, 36));
}

/** Judges upgradeability from the program account and (if any) its ProgramData account. */
export function hookProgramStatus(
  programId: string,
  program: { owner: string; data: Uint8Array } | null,
  programData: { address: string; account: { owner: string; data: Uint8Array } | null } | null,
): HookProgramStatus {
  const unknown = (detail: string, pd: string | null = null): HookProgramStatus => ({
    programId,
    upgradeable: 'unknown',
    upgradeAuthority: 'unknown',
    programData: pd,
    detail,
  });
  if (program === null) return unknown('the hook program account does not exist');
  if (FIXED_LOADERS.has(program.owner))
    return { programId, upgradeable: false, upgradeAuthority: null, programData: null, detail: `deployed with the non-upgradeable loader ${program.owner}` };
  if (program.owner !== UPGRADEABLE_LOADER_ID || programData === null)
    return unknown(`the hook program is owned by ${program.owner}; upgradeability not determinable`);
  const acct = programData.account;
  if (acct === null || acct.owner !== UPGRADEABLE_LOADER_ID || acct.data.length < 13)
    return unknown('the ProgramData account is missing or malformed', programData.address);
  const view = new DataView(acct.data.buffer, acct.data.byteOffset, acct.data.byteLength);
  if (view.getUint32(0, true) !== LOADER_STATE_PROGRAM_DATA) return unknown('the ProgramData account has an unexpected state tag', programData.address);
  if (acct.data[12] === 0)
    return { programId, upgradeable: false, upgradeAuthority: null, programData: programData.address, detail: 'ProgramData has no upgrade authority' };
  if (acct.data.length < 45) return unknown('the ProgramData upgrade authority is truncated', programData.address);
  const authority = encodeBase58(acct.data.subarray(13, 45));
  return {
    programId,
    upgradeable: true,
    upgradeAuthority: authority,
    programData: programData.address,
    detail: `ProgramData upgrade authority is ${authority}`,
  };
}
