/**
 * The policy an offline verifier holds (docs/trust-and-proofs.md#offline-proofs): the log's note
 * verifier key, optionally its origin (default: the key's name, as our log names itself), the
 * witnesses' cosigner vkeys, and how many of their cosignatures a checkpoint needs. A JSON file:
 *
 *   {"log": "<log vkey>", "origin": "<origin>", "witnesses": ["<witness vkey>", ...], "quorum": 2}
 *
 * Read strictly: an unknown field, a key that does not decode or a quorum above the witnesses is a
 * reason, so a typo can never weaken what is checked.
 */
import { type CosignerKey, decodeCosignerKey } from '../tlog/cosignature.ts';
import { decodeVerifierKey, type NoteVerifierKey } from '../tlog/signed-note.ts';

/** A policy read and checked. */
export interface TlogPolicy {
  readonly log: NoteVerifierKey;
  readonly origin: string;
  readonly witnesses: readonly CosignerKey[];
  readonly quorum: number;
}

const FIELDS = new Set(['log', 'origin', 'witnesses', 'quorum']);

/** Reads a policy file's text. */
export function parseTlogPolicy(text: string): { ok: true; policy: TlogPolicy } | { ok: false; reason: string } {
  const fail = (reason: string) => ({ ok: false as const, reason });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('the policy is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('the policy is not a JSON object');
  const p = doc as Record<string, unknown>;
  const unknown = Object.keys(p).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) return fail(`the policy has an unknown field "${unknown.slice(0, 40)}" (fields: log, origin, witnesses, quorum)`);
  const log = typeof p.log === 'string' ? decodeVerifierKey(p.log) : null;
  if (!log?.ok) return fail('"log" must be the log\'s note verifier key (/trust/pubkey noteVerifierKey)');
  if (p.origin !== undefined && (typeof p.origin !== 'string' || p.origin === '')) return fail('"origin" must be a non-empty string');
  const listed = p.witnesses ?? [];
  if (!Array.isArray(listed)) return fail('"witnesses" must be a list of witness vkeys');
  const witnesses: CosignerKey[] = [];
  for (const [i, vkey] of listed.entries()) {
    const key = typeof vkey === 'string' ? decodeCosignerKey(vkey) : null;
    if (!key) return fail(`witness ${i + 1} is not a cosigner vkey (<name>+<id>+base64(0x04 || key))`);
    if (witnesses.some((w) => w.name === key.name && w.keyId === key.keyId)) return fail(`witness ${i + 1} is listed twice`);
    witnesses.push(key);
  }
  const quorum = p.quorum ?? witnesses.length;
  if (!Number.isSafeInteger(quorum) || (quorum as number) < 0 || (quorum as number) > witnesses.length)
    return fail(`"quorum" must be an integer from 0 to the ${witnesses.length} witness(es) listed`);
  return { ok: true, policy: { log: log.value, origin: (p.origin as string | undefined) ?? log.value.keyName, witnesses, quorum: quorum as number } };
}

/**
 * The witness vkey of a `--witness` value: a vkey, or `URL=VKEY` as the service's own `--witness`
 * takes it (the URL is the service's business; an offline policy holds only keys). Null when
 * neither reads.
 */
export function witnessVkeyOf(value: string): string | null {
  if (decodeCosignerKey(value)) return value;
  for (let at = value.indexOf('='); at > 0; at = value.indexOf('=', at + 1)) {
    const vkey = value.slice(at + 1);
    if (/^https?:\/\/\S+$/.test(value.slice(0, at)) && decodeCosignerKey(vkey)) return vkey;
  }
  return null;
}

/** What an offline policy is made of: the log's key and origin as the service publishes them, the witnesses the verifier chose. */
export interface PolicyInput {
  readonly log: string;
  readonly origin: string;
  readonly witnesses: readonly string[];
  readonly quorum?: number;
}

/** The policy file's document, read back by `parseTlogPolicy` before it is handed out, so it is one the verifier accepts. */
export function tlogPolicyDocument(input: PolicyInput): { ok: true; doc: Record<string, unknown> } | { ok: false; reason: string } {
  const doc = { log: input.log, origin: input.origin, witnesses: [...input.witnesses], quorum: input.quorum ?? input.witnesses.length };
  const read = parseTlogPolicy(JSON.stringify(doc));
  return read.ok ? { ok: true, doc } : read;
}
