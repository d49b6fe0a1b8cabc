/**
 * The off-chain half of verifying an x402 `exact` EVM payment (EIP-3009
 * TransferWithAuthorization): payload shape, terms, time window, amount and the EIP-712
 * signature. Pure and on plain data (no RPC, no clock of its own): it is meant to run as a
 * worker-pool task, because ECDSA recovery is CPU work. The on-chain half (nonce unused,
 * balance) is the settler's.
 */
import { isCanonicalEcdsaSignature, isEvmAddress, recoverTransferAuthorizer, sameEvmAddress } from '../../chain/evm/evm-typed-data.ts';
import { EVM_REASONS } from './evm-reasons.ts';
import type { VerifyResult } from '../types/scheme-facilitator.ts';

/** x402's exact-EVM margin: an authorization must outlive verification by this much to settle. */
export const EVM_SETTLE_MARGIN_SECONDS = 6;

const UINT256_DECIMAL_RE = /^(0|[1-9]\d{0,77})$/;
const NONCE_RE = /^0x[0-9a-fA-F]{64}$/;
const HEX_RE = /^0x[0-9a-fA-F]*$/;
const MAX_UINT256 = (1n << 256n) - 1n;

export interface EvmAuthorization {
  readonly from: string;
  readonly to: string;
  readonly value: string;
  readonly validAfter: string;
  readonly validBefore: string;
  readonly nonce: string;
}

/** The `payload` object of an exact EVM (EIP-3009) payment. */
export interface EvmExactPayload {
  readonly signature: string;
  readonly authorization: EvmAuthorization;
}

/** Plain-data input of {@link verifyEvmExactOffchain}: everything comes from the request. */
export interface EvmVerifyInput {
  /** `payment.payload`, untrusted. */
  readonly payload: unknown;
  /** Scheme and network the payer says they accepted (`payment.accepted`). */
  readonly acceptedScheme: string;
  readonly acceptedNetwork: string;
  /** The route's terms. */
  readonly requirements: {
    readonly scheme: string;
    readonly network: string;
    readonly amount: string;
    readonly asset: string;
    readonly payTo: string;
    readonly extra: Readonly<Record<string, string | number>>;
  };
  /** Unix seconds now (the caller's clock, so this stays pure). */
  readonly nowSeconds: number;
}

export type ParsedEvmPayload =
  | { readonly ok: true; readonly payload: EvmExactPayload }
  | { readonly ok: false; readonly reason: string; readonly message: string };

function isUint256(value: unknown): value is string {
  return typeof value === 'string' && UINT256_DECIMAL_RE.test(value) && BigInt(value) <= MAX_UINT256;
}

/** Checks the payload's shape; cheap, no signature work. */
export function parseEvmExactPayload(payload: unknown): ParsedEvmPayload {
  const bad = (reason: string, message: string): ParsedEvmPayload => ({ ok: false, reason, message });
  if (typeof payload !== 'object' || payload === null) return bad(EVM_REASONS.invalidPayload, 'payload is not an object');
  const p = payload as Record<string, unknown>;
  if ('permit2Authorization' in p) return bad(EVM_REASONS.unsupportedPayloadType, 'only EIP-3009 authorizations are accepted, not Permit2');
  const auth = p.authorization;
  if (typeof auth !== 'object' || auth === null) return bad(EVM_REASONS.invalidPayload, 'payload.authorization is missing');
  const a = auth as Record<string, unknown>;
  if (typeof a.from !== 'string' || !isEvmAddress(a.from)) return bad(EVM_REASONS.invalidPayload, 'authorization.from is not an address');
  if (typeof a.to !== 'string' || !isEvmAddress(a.to)) return bad(EVM_REASONS.invalidPayload, 'authorization.to is not an address');
  if (!isUint256(a.value)) return bad(EVM_REASONS.invalidAuthorizationValue, 'authorization.value is not a uint256 decimal string');
  if (!isUint256(a.validAfter) || !isUint256(a.validBefore))
    return bad(EVM_REASONS.invalidPayload, 'authorization.validAfter/validBefore are not uint256 decimal strings');
  if (typeof a.nonce !== 'string' || !NONCE_RE.test(a.nonce)) return bad(EVM_REASONS.invalidPayload, 'authorization.nonce is not 32 bytes of hex');
  if (typeof p.signature !== 'string' || !HEX_RE.test(p.signature)) return bad(EVM_REASONS.failedToParseSignature, 'payload.signature is not hex');
  const authorization = { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce };
  return { ok: true, payload: { signature: p.signature, authorization } };
}

/** `eip155:<id>` to the numeric chain id; null for anything else. */
export function evmChainIdOf(network: string): number | null {
  const m = /^eip155:([1-9]\d{0,15})$/.exec(network);
  return m ? Number(m[1]) : null;
}

/**
 * Verifies everything that needs no chain state, in the order of `@x402/evm`'s facilitator so
 * both give the same reason for the same payment: scheme, EIP-712 domain, network, signature,
 * recipient, validBefore (with the settlement margin), validAfter, value.
 */
export async function verifyEvmExactOffchain(input: EvmVerifyInput): Promise<VerifyResult> {
  const parsed = parseEvmExactPayload(input.payload);
  if (!parsed.ok) return { isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.message };
  const { authorization: auth, signature } = parsed.payload;
  const req = input.requirements;
  const invalid = (invalidReason: string, invalidMessage: string): VerifyResult => ({ isValid: false, invalidReason, invalidMessage, payer: auth.from });
  if (input.acceptedScheme !== 'exact' || req.scheme !== 'exact') return invalid(EVM_REASONS.invalidScheme, 'scheme is not exact');
  const name = req.extra.name;
  const version = req.extra.version;
  if (typeof name !== 'string' || typeof version !== 'string' || !name || !version)
    return invalid(EVM_REASONS.missingEip712Domain, 'the terms carry no EIP-712 name/version');
  const chainId = evmChainIdOf(req.network);
  if (input.acceptedNetwork !== req.network || chainId === null)
    return invalid(EVM_REASONS.networkMismatch, `payment is for ${input.acceptedNetwork}, terms are for ${req.network}`);
  if (!isCanonicalEcdsaSignature(signature)) return invalid(EVM_REASONS.invalidSignature, 'signature is not a 65-byte low-s ECDSA signature');
  const signer = await recoverTransferAuthorizer({
    domain: { name, version, chainId, verifyingContract: req.asset },
    ...auth,
    value: BigInt(auth.value),
    validAfter: BigInt(auth.validAfter),
    validBefore: BigInt(auth.validBefore),
    signature,
  });
  if (signer === null || !sameEvmAddress(signer, auth.from))
    return invalid(EVM_REASONS.invalidSignature, 'the signature does not recover authorization.from over this domain');
  if (!sameEvmAddress(auth.to, req.payTo)) return invalid(EVM_REASONS.recipientMismatch, 'authorization.to is not the payTo address');
  const now = BigInt(Math.floor(input.nowSeconds));
  if (BigInt(auth.validBefore) < now + BigInt(EVM_SETTLE_MARGIN_SECONDS))
    return invalid(EVM_REASONS.validBeforeExpired, `authorization expires within ${EVM_SETTLE_MARGIN_SECONDS} s`);
  if (BigInt(auth.validAfter) > now) return invalid(EVM_REASONS.validAfterInFuture, 'authorization is not valid yet');
  if (BigInt(auth.value) !== BigInt(req.amount))
    return invalid(EVM_REASONS.authorizationValueMismatch, `authorization.value ${auth.value} is not the price ${req.amount}`);
  return { isValid: true, payer: auth.from };
}
