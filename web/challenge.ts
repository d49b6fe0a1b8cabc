/**
 * The 402 challenge as the console shows it: the `PAYMENT-REQUIRED` header is base64 of the x402
 * v2 PaymentRequired JSON; each `accepts` entry is one way to pay (Solana, Base, and where
 * offered a payment channel on Base).
 */
import { formatUsd } from '../src/catalog/format-usd.ts';

/** One payment option, as the console lists it. */
export interface PaymentOption {
  readonly network: string;
  /** `Solana`, `Base` or the raw network id. */
  readonly chain: string;
  readonly scheme: string;
  /** Atomic units (6-decimal USDC). */
  readonly amount: string;
  readonly usd: string;
  readonly payTo: string;
  readonly asset: string;
  readonly maxTimeoutSeconds: number | null;
}

/** A decoded challenge. */
export interface Challenge {
  readonly resource: string | null;
  readonly error: string | null;
  readonly options: readonly PaymentOption[];
  readonly raw: Record<string, unknown>;
}

/** Human name of a CAIP-2 network id. */
export function chainName(network: string): string {
  if (network.startsWith('solana:')) return 'Solana';
  if (network === 'eip155:8453') return 'Base';
  return network;
}

/** UTF-8 text of standard base64. */
function decodeBase64(text: string): string {
  const binary = atob(text.trim());
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Decodes a `PAYMENT-REQUIRED` header value, or says why it cannot. */
export function decodeChallenge(header: string | null): { ok: true; challenge: Challenge } | { ok: false; reason: string } {
  if (!header) return { ok: false, reason: 'the answer has no PAYMENT-REQUIRED header' };
  let raw: unknown;
  try {
    raw = JSON.parse(decodeBase64(header));
  } catch {
    return { ok: false, reason: 'PAYMENT-REQUIRED is not base64 of JSON' };
  }
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { accepts?: unknown }).accepts))
    return { ok: false, reason: 'PAYMENT-REQUIRED has no accepts list' };
  const r = raw as Record<string, unknown> & { accepts: Record<string, unknown>[]; resource?: { url?: unknown } };
  const options = r.accepts.map((a) => {
    const amount = str(a.amount);
    return {
      network: str(a.network),
      chain: chainName(str(a.network)),
      scheme: str(a.scheme),
      amount,
      usd: /^[0-9]{1,15}$/.test(amount) ? formatUsd(Number(amount)) : 'unknown',
      payTo: str(a.payTo),
      asset: str(a.asset),
      maxTimeoutSeconds: typeof a.maxTimeoutSeconds === 'number' ? a.maxTimeoutSeconds : null,
    };
  });
  const resource = typeof r.resource?.url === 'string' ? r.resource.url : null;
  return { ok: true, challenge: { resource, error: typeof r.error === 'string' ? r.error : null, options, raw: r } };
}
