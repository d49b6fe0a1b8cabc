/**
 * jsonParsed instruction parsers for the programs the localnet's traffic uses (System, SPL Token,
 * Token-2022, Associated Token Account, Memo), in Agave's `{ program, parsed: { type, info } }`
 * shape. Anything else (and multisig-signed token instructions) stays partially decoded.
 */
import { encodeBase58 } from '../encoding/base58.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, SPL_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, uiTokenAmount } from '../encoding/token-layout.ts';

const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** A parsed instruction body. */
export interface ParsedInstruction {
  readonly program: string;
  readonly parsed: unknown;
}

function dv(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

function parseSystem(a: readonly string[], d: Uint8Array): unknown {
  if (d.length < 4) return null;
  const tag = dv(d).getUint32(0, true);
  if (tag === 2 && d.length >= 12) return { type: 'transfer', info: { source: a[0], destination: a[1], lamports: dv(d).getBigUint64(4, true) } };
  if (tag === 0 && d.length >= 52) {
    return {
      type: 'createAccount',
      info: {
        source: a[0],
        newAccount: a[1],
        lamports: dv(d).getBigUint64(4, true),
        space: dv(d).getBigUint64(12, true),
        owner: encodeBase58(d.subarray(20, 52)),
      },
    };
  }
  if (tag === 1 && d.length >= 36) return { type: 'assign', info: { account: a[0], owner: encodeBase58(d.subarray(4, 36)) } };
  return null;
}

function parseToken(a: readonly string[], d: Uint8Array): unknown {
  const tag = d[0];
  const u64 = (o: number) => (d.length >= o + 8 ? dv(d).getBigUint64(o, true) : null);
  const amount = u64(1);
  const decimals = d[9];
  switch (tag) {
    case 3:
      return amount === null ? null : { type: 'transfer', info: { source: a[0], destination: a[1], authority: a[2], amount: amount.toString() } };
    case 4:
      return amount === null ? null : { type: 'approve', info: { source: a[0], delegate: a[1], owner: a[2], amount: amount.toString() } };
    case 7:
      return amount === null ? null : { type: 'mintTo', info: { mint: a[0], account: a[1], mintAuthority: a[2], amount: amount.toString() } };
    case 8:
      return amount === null ? null : { type: 'burn', info: { account: a[0], mint: a[1], authority: a[2], amount: amount.toString() } };
    case 9:
      return { type: 'closeAccount', info: { account: a[0], destination: a[1], owner: a[2] } };
    case 12:
      return amount === null || decimals === undefined
        ? null
        : { type: 'transferChecked', info: { source: a[0], mint: a[1], destination: a[2], authority: a[3], tokenAmount: uiTokenAmount(amount, decimals) } };
    case 14:
      return amount === null || decimals === undefined
        ? null
        : { type: 'mintToChecked', info: { mint: a[0], account: a[1], mintAuthority: a[2], tokenAmount: uiTokenAmount(amount, decimals) } };
    case 15:
      return amount === null || decimals === undefined
        ? null
        : { type: 'burnChecked', info: { account: a[0], mint: a[1], authority: a[2], tokenAmount: uiTokenAmount(amount, decimals) } };
    case 17:
      return { type: 'syncNative', info: { account: a[0] } };
    case 18:
      return d.length >= 33 ? { type: 'initializeAccount3', info: { account: a[0], mint: a[1], owner: encodeBase58(d.subarray(1, 33)) } } : null;
    case 20:
      return parseInitializeMint2(a, d);
    case 22:
      return { type: 'initializeImmutableOwner', info: { account: a[0] } };
    default:
      return null;
  }
}

function parseInitializeMint2(a: readonly string[], d: Uint8Array): unknown {
  if (d.length < 35) return null;
  const info: Record<string, unknown> = { mint: a[0], decimals: d[1], mintAuthority: encodeBase58(d.subarray(2, 34)) };
  if (d[34] === 1 && d.length >= 67) info.freezeAuthority = encodeBase58(d.subarray(35, 67));
  return { type: 'initializeMint2', info };
}

function parseAssociatedToken(a: readonly string[], d: Uint8Array): unknown {
  const type = d.length === 0 || d[0] === 0 ? 'create' : d[0] === 1 ? 'createIdempotent' : null;
  if (type === null) return null;
  return { type, info: { source: a[0], account: a[1], wallet: a[2], mint: a[3], systemProgram: a[4], tokenProgram: a[5] } };
}

/** Parses an instruction of a known program; null means "show it partially decoded". */
export function parseKnownInstruction(programId: string, accounts: readonly string[], data: Uint8Array): ParsedInstruction | null {
  let program: string;
  let parsed: unknown;
  if (programId === SYSTEM_PROGRAM_ID) [program, parsed] = ['system', parseSystem(accounts, data)];
  else if (programId === SPL_TOKEN_PROGRAM_ID) [program, parsed] = ['spl-token', parseToken(accounts, data)];
  else if (programId === TOKEN_2022_PROGRAM_ID) [program, parsed] = ['spl-token-2022', parseToken(accounts, data)];
  else if (programId === ASSOCIATED_TOKEN_PROGRAM_ID) [program, parsed] = ['spl-associated-token-account', parseAssociatedToken(accounts, data)];
  else if (programId === MEMO_PROGRAM_ID) [program, parsed] = ['spl-memo', new TextDecoder('utf-8', { fatal: false }).decode(data)];
  else return null;
  return parsed === null ? null : { program, parsed };
}
