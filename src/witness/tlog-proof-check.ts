/**
 * The offline check of a receipt's tlog-proof against a policy (docs/trust-and-proofs.md#offline-proofs),
 * with no request to anyone: the checkpoint is signed by the policy's log key under its origin,
 * enough of the policy's witnesses cosigned it, the receipt is signed by that same key, the entry
 * carried as the proof's extra data is the receipt's and hashes to the leaf, and the inclusion
 * proof leads from that leaf to the checkpoint's root. Each check is a line; the first failure
 * does not hide the others that can still be run.
 */
import { encodeBase58 } from '../chain/solana/base58.ts';
import { sha256Hex, verifyEd25519Text } from '../receipt-checks/client-crypto.ts';
import { type CheckReport, lineRecorder } from '../receipt-checks/receipt-check.ts';
import { parseTlogProof, type TlogProof } from '../receipt-checks/tlog-proof.ts';
import { verifiedCosignatures } from '../tlog/cosignature.ts';
import { RFC6962_HASHER, toHex } from '../ledger/merkle-hash.ts';
import { verifyInclusionRfc6962 } from '../ledger/merkle-verify.ts';
import { parseNote } from '../tlog/signed-note.ts';
import { openCheckpoint, type TlogCheckpoint } from '../tlog/tlog-checkpoint.ts';
import type { TlogPolicy } from './tlog-policy.ts';

type Json = Record<string, unknown>;
type Check = ReturnType<typeof lineRecorder>['check'];

/** What is checked: the receipt (as saved), its body when kept, the proof's text. */
export interface OfflineInput {
  readonly receipt: Json;
  readonly body?: Uint8Array;
  readonly proofText: string;
}

function checkCheckpoint(proof: TlogProof, policy: TlogPolicy, check: Check): TlogCheckpoint | null {
  const opened = openCheckpoint(proof.checkpoint, policy.log, policy.origin);
  if (
    !check(
      'checkpoint signed by the log key of the policy',
      opened.ok,
      opened.ok ? `${policy.origin}, size ${opened.value.checkpoint.treeSize}` : opened.reason,
    )
  )
    return null;
  const note = parseNote(proof.checkpoint);
  const lines = note.ok ? proof.checkpoint.slice(note.value.text.length + 1).split('\n') : [];
  const cosigned = note.ok ? verifiedCosignatures(note.value.text, lines.filter(Boolean), policy.witnesses) : [];
  const names = cosigned.map((c) => c.key.name).join(', ') || 'none';
  // A quorum of 0 is no cosignature at all: the line says so, never "cosigned by at least 0".
  if (policy.quorum === 0) check('no witness required by the policy (quorum 0)', true, `${cosigned.length} of its witnesses' cosignatures present: ${names}`);
  else
    check(
      `cosigned by at least ${policy.quorum} of the policy's ${policy.witnesses.length} witness(es)`,
      cosigned.length >= policy.quorum,
      `${cosigned.length}: ${names}`,
    );
  return opened.ok ? opened.value.checkpoint : null;
}

function checkReceipt(input: OfflineInput, policy: TlogPolicy, check: Check): string {
  const { signature, ...unsigned } = input.receipt;
  const canonical = JSON.stringify(unsigned);
  const logKey = encodeBase58(policy.log.publicKey);
  const sig = (signature ?? {}) as Json;
  check('the receipt is signed by the log key (signedBy)', sig.signedBy === logKey, logKey);
  check('ed25519 signature over utf8(canonicalReceipt)', verifyEd25519Text(canonical, sig.signatureBase58, logKey));
  if (input.body) {
    check('sha256(body) equals responseSha256', sha256Hex(input.body) === input.receipt.responseSha256, String(input.receipt.responseSha256));
    check('body length equals responseBytes', input.body.length === input.receipt.responseBytes, `${input.body.length} bytes`);
  }
  return sha256Hex(canonical);
}

function entryOf(proof: TlogProof): Json | null {
  try {
    const entry: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(proof.extra ?? new Uint8Array()));
    return typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Json) : null;
  } catch {
    return null;
  }
}

function checkEntry(proof: TlogProof, receipt: Json, receiptHash: string, check: Check): string | null {
  const entry = entryOf(proof);
  if (!check('the proof carries its ledger entry (extra data)', entry !== null && entry.index === proof.index, `index ${proof.index}`)) return null;
  const { entrySha256, ...unsealed } = entry as Json;
  const sealed = check('sha256(entry canonical JSON) equals entrySha256', sha256Hex(JSON.stringify(unsealed)) === entrySha256, String(entrySha256));
  check("the entry is the receipt's (index = ledgerIndex)", proof.index === receipt.ledgerIndex, String(receipt.ledgerIndex));
  check("the entry is the receipt's payment", entry!.kind === 'payment', String(entry!.kind));
  check('entry.receiptSha256 equals sha256(canonicalReceipt)', entry!.receiptSha256 === receiptHash, receiptHash);
  check('entry.prevHash equals ledgerChainHead', entry!.prevHash === receipt.ledgerChainHead, String(receipt.ledgerChainHead));
  return sealed ? (entrySha256 as string) : null;
}

function checkInclusion(proof: TlogProof, checkpoint: TlogCheckpoint, entrySha256: string, check: Check): void {
  const leafHash = toHex(RFC6962_HASHER.leaf(Buffer.from(entrySha256, 'hex')));
  const verdict = verifyInclusionRfc6962({
    format: 'rfc6962',
    index: proof.index,
    treeSize: checkpoint.treeSize,
    entrySha256,
    leafHash,
    auditPath: proof.proof.map(toHex),
    rootHash: toHex(checkpoint.rootHash),
    algorithm: 'rfc6962',
  });
  check('the inclusion proof leads from the leaf to the checkpoint root', verdict.ok, verdict.ok ? `${proof.proof.length} hashes` : verdict.reason);
}

/** Checks a receipt and its tlog-proof against `policy`, offline. */
export function verifyOffline(input: OfflineInput, policy: TlogPolicy): CheckReport {
  const { check, report } = lineRecorder();
  const parsed = parseTlogProof(input.proofText);
  check('the tlog-proof is well formed (c2sp.org/tlog-proof@v1)', parsed.ok, parsed.ok ? `index ${parsed.proof.index}` : parsed.reason);
  if (!parsed.ok) return report();
  const checkpoint = checkCheckpoint(parsed.proof, policy, check);
  const receiptHash = checkReceipt(input, policy, check);
  const entrySha256 = checkEntry(parsed.proof, input.receipt, receiptHash, check);
  if (checkpoint && entrySha256) checkInclusion(parsed.proof, checkpoint, entrySha256, check);
  return report();
}
