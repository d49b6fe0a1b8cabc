/**
 * Cluster-state methods of the localnet RPC: slots, heights, epochs, blockhashes, health,
 * version, block time, genesis hash, and the faucets (requestAirdrop, localnet_fundStablecoin).
 */
import { rpcResponse, type RpcMethod } from './rpc-context.ts';
import { addressParam, checkMinContextSlot, commitmentOf, configParam, invalidParams, RpcError, RPC_CODES, u64Param } from './rpc-params.ts';
import { fundStablecoin } from './stablecoin-faucet.ts';
import { describeTransactionError } from '../chain/transaction-error.ts';

const atCommitment = (params: unknown[], i: number, ctx: Parameters<RpcMethod>[1]) => {
  const config = configParam(params, i);
  const commitment = commitmentOf(config);
  checkMinContextSlot(config, ctx.chain.slot(commitment));
  return commitment;
};

const getSlot: RpcMethod = (params, ctx) => ctx.chain.slot(atCommitment(params, 0, ctx));
const getBlockHeight: RpcMethod = (params, ctx) => ctx.chain.blockHeight(atCommitment(params, 0, ctx));

const getEpochInfo: RpcMethod = (params, ctx) => {
  const e = ctx.chain.epochInfo(atCommitment(params, 0, ctx));
  return {
    absoluteSlot: e.absoluteSlot,
    blockHeight: e.blockHeight,
    epoch: e.epoch,
    slotIndex: e.slotIndex,
    slotsInEpoch: e.slotsInEpoch,
    transactionCount: e.transactionCount,
  };
};

const getEpochSchedule: RpcMethod = (_params, ctx) => ctx.chain.epochSchedule();

const getLatestBlockhash: RpcMethod = (params, ctx) => {
  const b = ctx.chain.latestBlockhash(atCommitment(params, 0, ctx));
  return rpcResponse(b.slot, { blockhash: b.blockhash, lastValidBlockHeight: b.lastValidBlockHeight });
};

const isBlockhashValid: RpcMethod = (params, ctx) => {
  const blockhash = addressParam(params, 0, 'blockhash');
  const commitment = atCommitment(params, 1, ctx);
  return rpcResponse(ctx.chain.slot(commitment), ctx.chain.isBlockhashValid(blockhash).valid);
};

const getBlockTime: RpcMethod = (params, ctx) => {
  const slot = u64Param(params[0], 'slot');
  const finalized = ctx.chain.slot('finalized');
  if (slot > finalized || slot < ctx.chain.startSlot) {
    throw new RpcError(-32004, `Block not available for slot ${slot}`);
  }
  return ctx.chain.blockTimeOf(slot);
};

const requestAirdrop: RpcMethod = (params, ctx) => {
  const to = addressParam(params, 0);
  const lamports = u64Param(params[1], 'lamports');
  if (lamports === 0n) throw invalidParams('Invalid param: lamports must be positive');
  const result = ctx.chain.airdrop(to, lamports);
  if (!result.ok) throw new RpcError(RPC_CODES.internalError, `airdrop request failed: ${describeTransactionError(result.err) || result.message}`);
  return result.signature;
};

const localnetFundStablecoin: RpcMethod = async (params, ctx) => {
  if (ctx.faucet === null) throw new RpcError(RPC_CODES.methodNotFound, 'Method not found: no stablecoin faucet configured');
  const owner = addressParam(params, 0, 'owner');
  const amount = u64Param(params[1], 'amountUnits');
  return await fundStablecoin(ctx.chain, ctx.faucet, owner, amount);
};

/** The cluster-state methods by name. */
export const CHAIN_METHODS: Readonly<Record<string, RpcMethod>> = {
  getSlot,
  getBlockHeight,
  getEpochInfo,
  getEpochSchedule,
  getLatestBlockhash,
  isBlockhashValid,
  getBlockTime,
  getHealth: () => 'ok',
  getVersion: (_p, ctx) => ctx.chain.version(),
  getGenesisHash: (_p, ctx) => ctx.chain.genesisHash(),
  getFirstAvailableBlock: (_p, ctx) => ctx.chain.startSlot,
  requestAirdrop,
  localnet_fundStablecoin: localnetFundStablecoin,
};
