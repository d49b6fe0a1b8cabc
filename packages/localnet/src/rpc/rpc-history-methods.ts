/**
 * Transaction history methods of the localnet RPC: getTransaction, getSignaturesForAddress,
 * getSignatureStatuses, getRecentPrioritizationFees.
 */
import { rpcResponse, type RpcMethod } from './rpc-context.ts';
import {
  addressParam,
  atLeastConfirmed,
  boolOption,
  checkMinContextSlot,
  commitmentOf,
  configParam,
  enumOption,
  intOption,
  invalidParams,
  RpcError,
  RPC_CODES,
  signatureParam,
} from './rpc-params.ts';
import { renderTransaction, type TransactionEncoding } from './rpc-transaction-format.ts';

/** Agave's caps. */
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_PRIORITIZATION_FEE_ACCOUNTS = 128;

const getTransaction: RpcMethod = (params, ctx) => {
  const signature = signatureParam(params[0]);
  // Agave accepts the encoding name alone in place of the config object.
  const config = typeof params[1] === 'string' ? { encoding: params[1] } : configParam(params, 1);
  const encoding = enumOption<TransactionEncoding>(config, 'encoding', ['json', 'jsonParsed', 'base64', 'base58'], 'json');
  const commitment = atLeastConfirmed(commitmentOf(config));
  const maxVersion = config.maxSupportedTransactionVersion;
  if (maxVersion !== undefined && maxVersion !== null && maxVersion !== 0) throw invalidParams('Invalid params: maxSupportedTransactionVersion must be 0');
  const tx = ctx.chain.transaction(signature, commitment);
  if (tx === null) return null;
  const withVersion = maxVersion === 0;
  if (!withVersion && tx.version === 0) {
    throw new RpcError(
      RPC_CODES.unsupportedTransactionVersion,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  return renderTransaction(tx, encoding, withVersion);
};

const getSignaturesForAddress: RpcMethod = (params, ctx) => {
  const address = addressParam(params, 0, 'address');
  const config = configParam(params, 1);
  const commitment = atLeastConfirmed(commitmentOf(config));
  checkMinContextSlot(config, ctx.chain.slot(commitment));
  const limit = intOption(config, 'limit', 1, MAX_SIGNATURES_FOR_ADDRESS, MAX_SIGNATURES_FOR_ADDRESS);
  const before = config.before === undefined || config.before === null ? undefined : signatureParam(config.before);
  const until = config.until === undefined || config.until === null ? undefined : signatureParam(config.until);
  return ctx.chain.signaturesForAddress(address, { limit, before, until, commitment }).map((e) => ({
    blockTime: e.blockTime,
    confirmationStatus: ctx.chain.commitmentOfSlot(e.slot),
    err: e.err,
    memo: null,
    signature: e.signature,
    slot: e.slot,
  }));
};

const getSignatureStatuses: RpcMethod = (params, ctx) => {
  const sigs = params[0];
  if (!Array.isArray(sigs)) throw invalidParams('Invalid params: expected an array of base58 signatures');
  if (sigs.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
  const signatures = sigs.map(signatureParam);
  // searchTransactionHistory is accepted; the retained transactions are the whole history here.
  boolOption(configParam(params, 1), 'searchTransactionHistory', false);
  const value = signatures.map((s) => {
    const status = ctx.chain.signatureStatus(s);
    if (!status) return null;
    return {
      confirmationStatus: status.confirmationStatus,
      confirmations: status.confirmations,
      err: status.err,
      slot: status.slot,
      status: status.err === null ? { Ok: null } : { Err: status.err },
    };
  });
  return rpcResponse(ctx.chain.slot('processed'), value);
};

const getRecentPrioritizationFees: RpcMethod = (params, ctx) => {
  const keys = params[0] ?? [];
  if (!Array.isArray(keys)) throw invalidParams('Invalid params: expected an array of base58 pubkeys');
  if (keys.length > MAX_PRIORITIZATION_FEE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ACCOUNTS}`);
  const accounts = keys.map((_, i) => addressParam(keys, i));
  return ctx.chain.prioritizationFees(accounts);
};

/** The history methods by name. */
export const HISTORY_METHODS: Readonly<Record<string, RpcMethod>> = {
  getTransaction,
  getSignaturesForAddress,
  getSignatureStatuses,
  getRecentPrioritizationFees,
};
