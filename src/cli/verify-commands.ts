/**
 * `verify-receipt` and `verify-proof`: the client-side checks of src/client run against the
 * service's public trust endpoints, so nothing depends on the service's own verdict. Each check
 * prints PASS or FAIL with what it saw, then the verdict; any FAIL exits 1.
 */
import { resolve } from 'node:path';
import { type CheckReport, parseReceipt, verifyProofAt, verifyReceipt } from '../client/receipt-check.ts';
import { optionValue, takePositionals } from './cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from './cli-error.ts';
import type { CommandContext } from './command-context.ts';
import type { Output } from './cli-output.ts';
import { bodyFileFor, readInputFile } from './receipt-files.ts';
import { createTrustFetch } from './service-http.ts';
import { resolveServiceUrl } from './service-url.ts';

/** The report as lines: `PASS  name: detail`, then the verdict. */
export function renderReport(report: CheckReport, verdict: { ok: string; failed: string }): string {
  const lines = report.lines.map((l) => `${l.ok ? 'PASS' : 'FAIL'}  ${l.name}${l.detail ? `: ${l.detail}` : ''}`);
  return [...lines, report.ok ? verdict.ok : verdict.failed].join('\n');
}

function printReport(out: Output, report: CheckReport, doc: Record<string, unknown>, verdict: { ok: string; failed: string }): ExitCode {
  out.result({ ok: report.ok, ...doc, checks: report.lines }, () => renderReport(report, verdict));
  return report.ok ? EXIT.ok : EXIT.failed;
}

/** Runs `verify-receipt <receipt-file> [--body <file>]`. */
export async function runVerifyReceipt(ctx: CommandContext): Promise<ExitCode> {
  const [file] = takePositionals(ctx.args, ['<receipt-file>'], 'verify-receipt <receipt-file> [--body <file>] [--url <service>]') as [string];
  const receiptFile = resolve(ctx.cwd, file);
  const parsed = parseReceipt(readInputFile(receiptFile, 'the receipt file').toString('utf8'));
  if (!parsed.ok) throw new CliError('invalid_receipt', `${receiptFile}: ${parsed.reason}`, EXIT.failed);
  const bodyOption = optionValue(ctx.args, 'body');
  const bodyFile = bodyOption !== undefined ? resolve(ctx.cwd, bodyOption) : bodyFileFor(receiptFile);
  const body = bodyFile ? new Uint8Array(readInputFile(bodyFile, 'the body file')) : undefined;
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  ctx.out.note(`checking ${receiptFile}${bodyFile ? ` and ${bodyFile}` : ' (no body file: the body is not checked)'} against ${base}`);
  const report = await verifyReceipt(parsed.receipt, createTrustFetch(base), body ? { body } : {});
  return printReport(
    ctx.out,
    report,
    { receiptFile, bodyFile: bodyFile ?? null, service: base },
    {
      ok: 'VERIFIED: signed by the service and included in its signed ledger',
      failed: 'NOT VERIFIED',
    },
  );
}

/** Runs `verify-proof <index>`. */
export async function runVerifyProof(ctx: CommandContext): Promise<ExitCode> {
  const [text] = takePositionals(ctx.args, ['<ledger-index>'], 'verify-proof <ledger-index> [--url <service>]') as [string];
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
