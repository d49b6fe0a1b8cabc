/**
 * `verify-receipt` and `verify-proof`: the client-side checks of src/receipt-checks run against the
 * service's public trust endpoints, so nothing depends on the service's own verdict. Each check
 * prints PASS or FAIL with what it saw, then the verdict; any FAIL exits 1.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type CheckLine, type CheckReport, parseReceipt, type TrustFetch, verifyProofAt, verifyReceipt } from '../../receipt-checks/receipt-check.ts';
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import type { Output } from '../cli-output.ts';
import { bodyFileFor, readInputFile, x402ReceiptFileFor } from '../receipt-files.ts';
import { tlogProofFileFor } from '../tlog-proof-files.ts';
import { parseTlogPolicy } from '../../witness/tlog-policy.ts';
import { verifyOffline } from '../../witness/tlog-proof-check.ts';
import { createTrustFetch } from '../service-http.ts';
import { resolveServiceUrl } from '../service-url.ts';

/** The report as lines: `PASS  name: detail`, then the verdict. */
export function renderReport(report: CheckReport, verdict: { ok: string; failed: string }): string {
  const lines = report.lines.map((l) => `${l.ok ? 'PASS' : 'FAIL'}  ${l.name}${l.detail ? `: ${l.detail}` : ''}`);
  return [...lines, report.ok ? verdict.ok : verdict.failed].join('\n');
}

function printReport(out: Output, report: CheckReport, doc: Record<string, unknown>, verdict: { ok: string; failed: string }): ExitCode {
  out.result({ ok: report.ok, ...doc, checks: report.lines }, () => renderReport(report, verdict));
  return report.ok ? EXIT.ok : EXIT.failed;
}

/** The checks of the x402 extension receipt saved beside ours (`call` saves it when the answer carried one). */
async function x402Lines(file: string, ours: Record<string, unknown>, get: TrustFetch): Promise<CheckLine[]> {
  let receipt: unknown;
  try {
    receipt = JSON.parse(readInputFile(file, 'the x402 receipt file').toString('utf8'));
  } catch {
    return [{ name: 'x402 receipt', ok: false, detail: `${file} is not JSON` }];
  }
  if (typeof receipt !== 'object' || receipt === null) return [{ name: 'x402 receipt', ok: false, detail: `${file} is not a receipt object` }];
  const signedBy = (ours.signature as { signedBy?: unknown } | undefined)?.signedBy;
  const fields = { signedBy: String(signedBy ?? ''), network: String(ours.network ?? ''), endpoint: String(ours.endpoint ?? '') };
  // Loaded only here: the extension's client code (JWS, DID keys) is most of a verify's start-up
  // CPU, and verify-proof, or a receipt saved without an x402 one, never needs it.
  const { checkExtensionReceipt } = await import('../offer-receipt-check.ts');
  return checkExtensionReceipt(receipt as Record<string, unknown>, fields, get);
}

const VERIFY_RECEIPT_USAGE = 'verify-receipt <receipt-file> [--body <file>] [--url <service> | --policy <file> [--proof <file>] [--allow-no-witnesses]]';

/** `verify-receipt --policy`: the saved tlog-proof against the policy, with no request to anyone. */
function verifyAgainstPolicy(
  ctx: CommandContext,
  receiptFile: string,
  receipt: Record<string, unknown>,
  body: Uint8Array | undefined,
  bodyFile: string | null,
): ExitCode {
  if (optionValue(ctx.args, 'url') !== undefined) throw usageError(`--policy checks offline: it takes no --url\nusage: x402-intel ${VERIFY_RECEIPT_USAGE}`);
  const policyFile = resolve(ctx.cwd, optionValue(ctx.args, 'policy')!);
  const policy = parseTlogPolicy(readInputFile(policyFile, 'the policy file').toString('utf8'));
  if (!policy.ok) throw new CliError('invalid_policy', `${policyFile}: ${policy.reason}`, EXIT.usage);
  // A policy that needs no witness checks only the log's own word: a log that shows each reader
  // another history passes it. Accepted only when asked for by name, never by a quorum of 0 alone.
  const unwitnessed = policy.policy.quorum === 0;
  if (unwitnessed && !ctx.args.options.has('allow-no-witnesses'))
    throw new CliError(
      'invalid_policy',
      `${policyFile}: the policy requires no witness cosignature (quorum 0), so nothing shows the log served everyone this history; give --allow-no-witnesses to check it anyway`,
      EXIT.usage,
    );
  const proofOption = optionValue(ctx.args, 'proof');
  const proofFile = proofOption !== undefined ? resolve(ctx.cwd, proofOption) : tlogProofFileFor(receiptFile);
  const proofText = readInputFile(proofFile, 'the tlog-proof file').toString('utf8');
  ctx.out.note(
    `checking ${receiptFile}${bodyFile ? ` and ${bodyFile}` : ' (no body file: the body is not checked)'} with ${proofFile} against ${policyFile}, offline`,
  );
  const report = verifyOffline({ receipt, proofText, ...(body ? { body } : {}) }, policy.policy);
  return printReport(
    ctx.out,
    report,
    { receiptFile, bodyFile, proofFile, policyFile },
    {
      ok: unwitnessed
        ? 'VERIFIED OFFLINE, UNWITNESSED: signed by the log and included under its checkpoint; no witness was required (--allow-no-witnesses)'
        : 'VERIFIED OFFLINE: signed by the log, included under a checkpoint its witnesses cosigned',
      failed: 'NOT VERIFIED',
    },
  );
}

/** Runs `verify-receipt <receipt-file> [--body <file>] [--policy <file> [--proof <file>]]`. */
export async function runVerifyReceipt(ctx: CommandContext): Promise<ExitCode> {
  const [file] = takePositionals(ctx.args, ['<receipt-file>']) as [string];
  const receiptFile = resolve(ctx.cwd, file);
  const parsed = parseReceipt(readInputFile(receiptFile, 'the receipt file').toString('utf8'));
  if (!parsed.ok) throw new CliError('invalid_receipt', `${receiptFile}: ${parsed.reason}`, EXIT.failed);
  const bodyOption = optionValue(ctx.args, 'body');
  const bodyFile = bodyOption !== undefined ? resolve(ctx.cwd, bodyOption) : bodyFileFor(receiptFile);
  const body = bodyFile ? new Uint8Array(readInputFile(bodyFile, 'the body file')) : undefined;
  if (optionValue(ctx.args, 'policy') !== undefined) return verifyAgainstPolicy(ctx, receiptFile, parsed.receipt, body, bodyFile);
  if (optionValue(ctx.args, 'proof') !== undefined) throw usageError(`--proof goes with --policy\nusage: x402-intel ${VERIFY_RECEIPT_USAGE}`);
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  ctx.out.note(`checking ${receiptFile}${bodyFile ? ` and ${bodyFile}` : ' (no body file: the body is not checked)'} against ${base}`);
  const get = createTrustFetch(base);
  const ours = await verifyReceipt(parsed.receipt, get, body ? { body } : {});
  const x402File = x402ReceiptFileFor(receiptFile);
  const x402 = x402File && existsSync(x402File) ? await x402Lines(x402File, parsed.receipt, get) : [];
  const report = { ok: ours.ok && x402.every((l) => l.ok), lines: [...ours.lines, ...x402] };
  return printReport(
    ctx.out,
    report,
    { receiptFile, bodyFile: bodyFile ?? null, x402ReceiptFile: x402.length > 0 ? x402File : null, service: base },
    {
      ok: 'VERIFIED: signed by the service and included in its signed ledger',
      failed: 'NOT VERIFIED',
    },
  );
}

/** Runs `verify-proof <index>`. */
export async function runVerifyProof(ctx: CommandContext): Promise<ExitCode> {
  const [text] = takePositionals(ctx.args, ['<ledger-index>']) as [string];
  if (!/^\d{1,15}$/.test(text)) throw usageError(`the ledger index must be a non-negative integer; got "${text.slice(0, 32)}"`);
  const index = Number(text);
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const report = await verifyProofAt(index, createTrustFetch(base));
  return printReport(
    ctx.out,
    report,
    { index, service: base },
    {
      ok: `VERIFIED: ledger entry ${index} is included in a checkpoint signed by the service`,
      failed: 'NOT VERIFIED',
    },
  );
}
