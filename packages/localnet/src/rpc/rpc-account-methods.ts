/**
 * Account methods of the localnet RPC: getAccountInfo, getMultipleAccounts, getBalance,
 * getProgramAccounts, getTokenAccountsByOwner, getTokenAccountBalance, getTokenSupply,
 * getTokenLargestAccounts, getMinimumBalanceForRentExemption.
 */
import { decodeBase58 } from '../encoding/base58.ts';
import { ACCOUNT_ENCODINGS, checkEncoding, dataSliceOf, encodeAccount, type AccountEncoding } from './rpc-account-encoding.ts';
import { decimalsReader, rpcResponse, type RpcContext, type RpcMethod } from './rpc-context.ts';
import { addressParam, boolOption, checkMinContextSlot, commitmentOf, configParam, enumOption, invalidParams, RpcError, RPC_CODES } from './rpc-params.ts';
import type { AccountData } from '../chain/chain-accounts.ts';
import { classifyTokenData, isTokenProgram, parseMintBase, parseTokenAccountBase, uiTokenAmount } from '../encoding/token-layout.ts';

/** Agave's cap on getMultipleAccounts keys. */
const MAX_MULTIPLE_ACCOUNTS = 100;
/** Agave's cap on getProgramAccounts filters. */
const MAX_PROGRAM_ACCOUNT_FILTERS = 4;
/** Agave's getTokenLargestAccounts length. */
const LARGEST_ACCOUNTS_RETURNED = 20;

function contextSlot(ctx: RpcContext, config: Record<string, unknown>): bigint {
  const slot = ctx.chain.slot(commitmentOf(config));
  checkMinContextSlot(config, slot);
  return slot;
}

/** Without an `encoding`, Agave uses legacy `binary` except for getMultipleAccounts (base64). */
function renderer(ctx: RpcContext, config: Record<string, unknown>, fallback: AccountEncoding = 'binary') {
  const encoding = enumOption(config, 'encoding', ACCOUNT_ENCODINGS, fallback);
  checkEncoding(encoding);
  const slice = dataSliceOf(config);
  const decimals = decimalsReader(ctx.chain);
  return (account: AccountData | null) => (account === null ? null : encodeAccount(account, encoding, slice, decimals));
}

const getAccountInfo: RpcMethod = (params, ctx) => {
  const address = addressParam(params, 0);
  const config = configParam(params, 1);
  const slot = contextSlot(ctx, config);
  return rpcResponse(slot, renderer(ctx, config)(ctx.chain.getAccount(address)));
};

const getMultipleAccounts: RpcMethod = (params, ctx) => {
  const keys = params[0];
  if (!Array.isArray(keys)) throw invalidParams('Invalid params: expected an array of base58 pubkeys');
  if (keys.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  const addresses = keys.map((_, i) => addressParam(keys, i));
  const config = configParam(params, 1);
  const slot = contextSlot(ctx, config);
  const render = renderer(ctx, config, 'base64');
  return rpcResponse(
    slot,
    addresses.map((a) => render(ctx.chain.getAccount(a))),
  );
};

const getBalance: RpcMethod = (params, ctx) => {
  const address = addressParam(params, 0);
  const slot = contextSlot(ctx, configParam(params, 1));
  return rpcResponse(slot, ctx.chain.getAccount(address)?.lamports ?? 0n);
};

const getMinimumBalanceForRentExemption: RpcMethod = (params, ctx) => {
  const len = params[0];
  if (typeof len !== 'number' || !Number.isInteger(len) || len < 0 || len > 10 * 1024 * 1024)
    throw invalidParams('Invalid param: data length must be an integer in [0, 10485760]');
  return ctx.chain.minimumBalanceForRentExemption(len);
};

type Filter = (a: AccountData) => boolean;

function parseFilter(f: unknown): Filter {
  const obj = f as Record<string, unknown>;
  if (typeof obj !== 'object' || obj === null) throw invalidParams('Invalid param: filter must be an object');
  if ('dataSize' in obj) {
    const size = obj.dataSize;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('Invalid param: dataSize must be a non-negative integer');
    return (a) => a.data.length === size;
  }
  if ('memcmp' in obj) {
    const m = obj.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
    if (typeof m !== 'object' || m === null || !Number.isInteger(m.offset) || (m.offset as number) < 0 || typeof m.bytes !== 'string') {
      throw invalidParams('Invalid param: memcmp must be { offset, bytes, encoding? }');
    }
    const enc = m.encoding ?? 'base58';
    const bytes = enc === 'base58' ? decodeBase58(m.bytes) : enc === 'base64' ? Buffer.from(m.bytes, 'base64') : null;
    if (bytes === null || bytes.length > 128) throw invalidParams('Invalid param: memcmp bytes must be base58 or base64, at most 128 bytes');
    const offset = m.offset as number;
    return (a) =>
      offset + bytes.length <= a.data.length && Buffer.compare(Buffer.from(a.data.subarray(offset, offset + bytes.length)), Buffer.from(bytes)) === 0;
  }
  if ('tokenAccountState' in obj) return (a) => classifyTokenData(a.owner, a.data) === 'account';
  throw invalidParams('Invalid param: filter must be dataSize, memcmp or tokenAccountState');
}

const getProgramAccounts: RpcMethod = (params, ctx) => {
  const program = addressParam(params, 0, 'program id');
  const config = configParam(params, 1);
  const filtersRaw = config.filters ?? [];
  if (!Array.isArray(filtersRaw)) throw invalidParams('Invalid param: filters must be an array');
  if (filtersRaw.length > MAX_PROGRAM_ACCOUNT_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_PROGRAM_ACCOUNT_FILTERS}`);
  const filters = filtersRaw.map(parseFilter);
  const slot = contextSlot(ctx, config);
  const render = renderer(ctx, config);
  const value = ctx.chain
    .getProgramAccounts(program)
    .filter(({ account }) => filters.every((f) => f(account)))
    .map(({ address, account }) => ({ pubkey: address, account: render(account) }));
  return boolOption(config, 'withContext', false) ? rpcResponse(slot, value) : value;
};

function tokenAccountsOf(ctx: RpcContext, addresses: readonly string[], config: Record<string, unknown>, keep: (a: AccountData) => boolean) {
  const render = renderer(ctx, config);
  const out: { pubkey: string; account: unknown }[] = [];
  for (const address of addresses) {
    const account = ctx.chain.getAccount(address);
    if (account && keep(account)) out.push({ pubkey: address, account: render(account) });
  }
  return out;
}

const getTokenAccountsByOwner: RpcMethod = (params, ctx) => {
  const owner = addressParam(params, 0, 'owner');
  const filter = params[1] as { mint?: unknown; programId?: unknown } | undefined;
  if (typeof filter !== 'object' || filter === null || (filter.mint === undefined) === (filter.programId === undefined)) {
    throw invalidParams('Invalid params: expected a filter object with exactly one of `mint` or `programId`');
  }
  const config = configParam(params, 2);
  const slot = contextSlot(ctx, config);
  const addresses = ctx.chain.tokenAccountsByOwner(owner);
  if (filter.mint !== undefined) {
    const mint = addressParam([filter.mint], 0, 'mint');
    const mintAccount = ctx.chain.getAccount(mint);
    if (!mintAccount || classifyTokenData(mintAccount.owner, mintAccount.data) !== 'mint') throw invalidParams('Invalid param: could not find mint');
    return rpcResponse(
      slot,
      tokenAccountsOf(ctx, addresses, config, (a) => a.owner === mintAccount.owner && parseTokenAccountBase(a.data).mint === mint),
    );
  }
  const programId = addressParam([filter.programId], 0, 'programId');
  if (!isTokenProgram(programId)) throw invalidParams('Invalid param: unrecognized Token program id');
  return rpcResponse(
    slot,
    tokenAccountsOf(ctx, addresses, config, (a) => a.owner === programId),
  );
};

function mintOrThrow(ctx: RpcContext, mint: string): { decimals: number; supply: bigint } {
  const account = ctx.chain.getAccount(mint);
  if (!account || classifyTokenData(account.owner, account.data) !== 'mint') throw invalidParams('Invalid param: not a Token mint');
  return parseMintBase(account.data);
}

const getTokenSupply: RpcMethod = (params, ctx) => {
  const mint = addressParam(params, 0, 'mint');
  const slot = contextSlot(ctx, configParam(params, 1));
  const { decimals, supply } = mintOrThrow(ctx, mint);
  return rpcResponse(slot, uiTokenAmount(supply, decimals));
};

const getTokenAccountBalance: RpcMethod = (params, ctx) => {
  const address = addressParam(params, 0, 'token account');
  const slot = contextSlot(ctx, configParam(params, 1));
  const account = ctx.chain.getAccount(address);
  if (!account || classifyTokenData(account.owner, account.data) !== 'account') throw invalidParams('Invalid param: not a Token account');
  const base = parseTokenAccountBase(account.data);
  return rpcResponse(slot, uiTokenAmount(base.amount, mintOrThrow(ctx, base.mint).decimals));
};

const getTokenLargestAccounts: RpcMethod = (params, ctx) => {
  const mint = addressParam(params, 0, 'mint');
  const slot = contextSlot(ctx, configParam(params, 1));
  const { decimals } = mintOrThrow(ctx, mint);
  if (ctx.excludedFromSecondaryIndexes.has(mint) || ctx.chain.tokenAccountCount(mint) > ctx.largestAccountsScanLimit) {
    throw new RpcError(RPC_CODES.keyExcludedFromSecondaryIndex, `${mint} excluded from account secondary indexes; this RPC method unavailable for key`);
  }
  const rows = ctx.chain.tokenAccountsByMint(mint).flatMap((address) => {
    const account = ctx.chain.getAccount(address);
    return account ? [{ address, amount: parseTokenAccountBase(account.data).amount }] : [];
  });
  rows.sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : a.address < b.address ? -1 : 1));
  return rpcResponse(
    slot,
    rows.slice(0, LARGEST_ACCOUNTS_RETURNED).map((r) => ({ address: r.address, ...uiTokenAmount(r.amount, decimals) })),
  );
};

/** The account methods by name. */
export const ACCOUNT_METHODS: Readonly<Record<string, RpcMethod>> = {
  getAccountInfo,
  getMultipleAccounts,
  getBalance,
  getMinimumBalanceForRentExemption,
  getProgramAccounts,
  getTokenAccountsByOwner,
  getTokenAccountBalance,
  getTokenSupply,
  getTokenLargestAccounts,
};
