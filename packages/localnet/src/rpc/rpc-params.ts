/**
 * JSON-RPC errors and parameter readers for the localnet RPC, with Agave's error codes and
 * messages so clients see what they would see from a real node.
 */
import { decodeBase58 } from '../encoding/base58.ts';
import type { Commitment } from '../chain/types.ts';

/** JSON-RPC error codes used by Agave. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  sendTransactionPreflightFailure: -32002,
  transactionSignatureVerificationFailure: -32003,
  keyExcludedFromSecondaryIndex: -32010,
  unsupportedTransactionVersion: -32015,
  minContextSlotNotReached: -32016,
} as const;

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Shorthand for -32602. */
export function invalidParams(message: string): RpcError {
  return new RpcError(RPC_CODES.invalidParams, message);
}

/** The positional params array (absent params are an empty array). */
export function paramList(params: unknown): unknown[] {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params)) throw invalidParams('Invalid params: expected an array of positional parameters');
  return params;
}

/** A required base58 address (32 bytes). */
export function addressParam(params: unknown[], i: number, name = 'pubkey'): string {
  const v = params[i];
  if (typeof v !== 'string')
    throw invalidParams(v === undefined ? `missing required parameter ${name} at position ${i}` : `Invalid param: ${name} must be a base58 string`);
  if (decodeBase58(v)?.length !== 32) throw invalidParams(`Invalid param: Invalid ${name}: ${v.slice(0, 64)}`);
  return v;
}

/** A required base58 signature (64 bytes). */
export function signatureParam(v: unknown): string {
  if (typeof v !== 'string' || decodeBase58(v)?.length !== 64) throw invalidParams(`Invalid param: Invalid signature: ${String(v).slice(0, 100)}`);
  return v;
}

/** The optional config object at position `i`. */
export function configParam(params: unknown[], i: number): Record<string, unknown> {
  const v = params[i];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams(`Invalid params: parameter at position ${i} must be a configuration object`);
  return v as Record<string, unknown>;
}

/** The commitment of a config (Agave's default: finalized; legacy names mapped as Agave does). */
export function commitmentOf(config: Record<string, unknown>, key = 'commitment'): Commitment {
  const v = config[key];
  if (v === undefined || v === null) return 'finalized';
  switch (v) {
    case 'processed':
    case 'recent':
    case 'single':
      return 'processed';
    case 'confirmed':
    case 'singleGossip':
      return 'confirmed';
    case 'finalized':
    case 'max':
    case 'root':
      return 'finalized';
    default:
      throw invalidParams(`Invalid params: unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
  }
}

/** Agave refuses `processed` for history methods. */
export function atLeastConfirmed(commitment: Commitment): Commitment {
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

/** Enforces `minContextSlot` against the slot the answer is for. */
export function checkMinContextSlot(config: Record<string, unknown>, contextSlot: bigint): void {
  const min = config.minContextSlot;
  if (min === undefined || min === null) return;
  if (typeof min !== 'number' || !Number.isInteger(min) || min < 0) throw invalidParams('Invalid params: minContextSlot must be a non-negative integer');
  if (BigInt(min) > contextSlot) {
    throw new RpcError(RPC_CODES.minContextSlotNotReached, 'Minimum context slot has not been reached', { contextSlot });
  }
}

/** A non-negative integer (JSON number or decimal string, for u64 amounts). */
export function u64Param(v: unknown, name: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^[0-9]{1,20}$/.test(v) && BigInt(v) < 2n ** 64n) return BigInt(v);
  throw invalidParams(`Invalid param: ${name} must be a non-negative integer (u64)`);
}

/** An optional integer in [min, max]. */
export function intOption(config: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw invalidParams(`Invalid param: ${key} must be an integer in [${min}, ${max}]`);
  return v;
}

/** An optional boolean. */
export function boolOption(config: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw invalidParams(`Invalid param: ${key} must be a boolean`);
  return v;
}

/** An optional string among `allowed`. */
export function enumOption<T extends string>(config: Record<string, unknown>, key: string, allowed: readonly T[], fallback: T): T {
  const v = config[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !allowed.includes(v as T)) {
    throw invalidParams(`Invalid params: unknown variant \`${String(v)}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  }
  return v as T;
}
