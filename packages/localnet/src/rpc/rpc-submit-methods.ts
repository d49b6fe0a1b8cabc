/**
 * Methods that take a wire transaction: sendTransaction (with Agave's preflight simulation and
 * its -32002 error data) and simulateTransaction (sigVerify, replaceRecentBlockhash, accounts).
 */
import { decodeBase58, encodeBase58 } from '../encoding/base58.ts';
import { checkEncoding, encodeAccount, type AccountEncoding } from './rpc-account-encoding.ts';
import { decimalsReader, rpcResponse, type RpcContext, type RpcMethod } from './rpc-context.ts';
import { addressParam, boolOption, checkMinContextSlot, commitmentOf, configParam, enumOption, invalidParams, RpcError, RPC_CODES } from './rpc-params.ts';
import { renderInnerInstructions } from './rpc-transaction-format.ts';
import { describeTransactionError } from '../chain/transaction-error.ts';
import type { SimulateResult } from '../chain/local-chain.ts';
import type { DecodedTransaction } from '../chain/wire-transaction.ts';

/** Agave's PACKET_DATA_SIZE minus headers: the largest wire transaction. */
const MAX_WIRE_BYTES = 1232;

/** Decodes the transaction param in the requested encoding (Agave's default: base58). */
function wireParam(params: unknown[], config: Record<string, unknown>): Uint8Array {
  const text = params[0];
  if (typeof text !== 'string') throw invalidParams('Invalid params: expected an encoded transaction string at position 0');
  const encoding = enumOption(config, 'encoding', ['base58', 'base64'], 'base58');
  const bytes = encoding === 'base64' ? decodeBase64Strict(text) : decodeBase58(text);
  if (bytes === null || bytes.length === 0) throw invalidParams(`invalid transaction: failed to decode ${encoding} string`);
  if (bytes.length > MAX_WIRE_BYTES)
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${bytes.length} bytes (max: ${MAX_WIRE_BYTES} bytes)`,
    );
  return bytes;
}

function decodeBase64Strict(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function simulationValue(ctx: RpcContext, sim: Extract<SimulateResult, { ok: true }>, config: Record<string, unknown>) {
  return {
    accounts: simulatedAccounts(ctx, sim, config),
    err: sim.err,
    innerInstructions: boolOption(config, 'innerInstructions', false) ? renderInnerInstructions(sim.decoded.accountKeys, sim.innerInstructions, true) : null,
    loadedAccountsDataSize: 0,
    logs: [...sim.logs],
    replacementBlockhash: sim.replacementBlockhash,
    returnData:
      sim.returnData === null
        ? null
        : {
            programId: encodeBase58(sim.returnData.programId),
            data: [Buffer.from(sim.returnData.data).toString('base64'), 'base64'],
          },
    unitsConsumed: sim.unitsConsumed,
  };
}

function simulatedAccounts(ctx: RpcContext, sim: Extract<SimulateResult, { ok: true }>, config: Record<string, unknown>): unknown {
  const accountsConfig = config.accounts;
  if (accountsConfig === undefined || accountsConfig === null) return null;
  const ac = accountsConfig as { addresses?: unknown; encoding?: unknown };
  if (typeof ac !== 'object' || !Array.isArray(ac.addresses)) throw invalidParams('Invalid params: accounts must be { addresses: string[], encoding? }');
  const addresses = ac.addresses.map((_, i) => addressParam(ac.addresses as unknown[], i));
  const encoding = enumOption<AccountEncoding>(ac as Record<string, unknown>, 'encoding', ['base64', 'jsonParsed', 'base64+zstd'], 'base64');
  checkEncoding(encoding);
  const decimals = decimalsReader(ctx.chain);
  const postAccounts = sim.postAccounts();
  return addresses.map((a) => {
    const post = postAccounts.get(a);
    const account = post ?? ctx.chain.getAccount(a);
    return account === null || (post && account.lamports === 0n) ? null : encodeAccount(account, encoding, null, decimals);
  });
}

const simulateTransaction: RpcMethod = (params, ctx) => {
  const config = configParam(params, 1);
  const wire = wireParam(params, config);
  const sigVerify = boolOption(config, 'sigVerify', false);
  const replaceRecentBlockhash = boolOption(config, 'replaceRecentBlockhash', false);
  if (sigVerify && replaceRecentBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  const slot = ctx.chain.slot(commitmentOf(config));
  checkMinContextSlot(config, slot);
  const sim = ctx.chain.simulate(wire, { sigVerify, replaceRecentBlockhash });
  if (!sim.ok) throw invalidParams(`invalid transaction: ${sim.message}`);
  if (sim.err === 'SignatureFailure') throw new RpcError(RPC_CODES.transactionSignatureVerificationFailure, 'Transaction signature verification failure');
  return rpcResponse(slot, simulationValue(ctx, sim, config));
};

const sendTransaction: RpcMethod = (params, ctx) => {
  const config = configParam(params, 1);
  const wire = wireParam(params, config);
  const skipPreflight = boolOption(config, 'skipPreflight', false);
  commitmentOf(config, 'preflightCommitment');
  checkMinContextSlot(config, ctx.chain.slot('processed'));
  const decoded = skipPreflight ? undefined : preflight(ctx, wire, config);
  const result = ctx.chain.sendTransaction(wire, decoded);
  if (result.ok) return result.signature;
  if (result.reason === 'decode') throw invalidParams(`invalid transaction: ${result.message}`);
  // With skipPreflight Agave forwards the transaction and answers its signature; it never lands.
  if (skipPreflight && result.signature !== null) return result.signature;
  throw preflightFailure(result.err, result.logs, result.unitsConsumed);
};

/** Agave's preflight: the simulation's refusal as its -32002 error; the decoded transaction when it passes. */
function preflight(ctx: RpcContext, wire: Uint8Array, config: Record<string, unknown>): DecodedTransaction {
  const sim = ctx.chain.simulate(wire, { sigVerify: true, replaceRecentBlockhash: false });
  if (!sim.ok) throw invalidParams(`invalid transaction: ${sim.message}`);
  if (sim.err === 'SignatureFailure') throw new RpcError(RPC_CODES.transactionSignatureVerificationFailure, 'Transaction signature verification failure');
  const signature = sim.decoded.signatures[0];
  if (signature !== undefined && ctx.chain.signatureStatus(signature) !== null) throw preflightFailure('AlreadyProcessed', [], 0n);
  if (sim.err !== null) {
    const value = simulationValue(ctx, sim, { ...config, accounts: undefined });
    throw new RpcError(RPC_CODES.sendTransactionPreflightFailure, `Transaction simulation failed: ${describeTransactionError(sim.err)}`, value);
  }
  return sim.decoded;
}

function preflightFailure(err: unknown, logs: readonly string[], unitsConsumed: bigint): RpcError {
  return new RpcError(RPC_CODES.sendTransactionPreflightFailure, `Transaction simulation failed: ${describeTransactionError(err)}`, {
    accounts: null,
    err,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    logs: [...logs],
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });
}

/** The wire-transaction methods by name. */
export const SUBMIT_METHODS: Readonly<Record<string, RpcMethod>> = { sendTransaction, simulateTransaction };
