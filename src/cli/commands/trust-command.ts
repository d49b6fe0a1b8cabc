/**
 * `x402-intel trust policy [--witness <URL=VKEY|VKEY> ...] [--quorum <n>]`: the offline policy
 * `verify-receipt --policy` reads (docs/trust-and-proofs.md#offline-proofs), written on stdout:
 * the log's note verifier key and origin as the running service publishes them at /trust/pubkey,
 * and the witnesses the verifier chose. The witnesses are never taken from the service: a policy
 * is worth what its witnesses are, and those are the verifier's to pick.
 *
 *   x402-intel trust policy --witness http://127.0.0.1:8404=witness.example.org/w1+1a2b3c4d+BP... > policy.json
 */
import { tlogPolicyDocument, witnessVkeyOf } from '../../witness/tlog-policy.ts';
import { optionValue, optionValues, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { request, serviceError } from '../service-http.ts';
import { resolveServiceUrl, serviceHref } from '../service-url.ts';

function quorumOf(ctx: CommandContext, witnesses: number): number | undefined {
  const text = optionValue(ctx.args, 'quorum');
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text) || Number(text) > witnesses)
    throw usageError(`--quorum must be an integer from 0 to the ${witnesses} witness(es) given; got "${text.slice(0, 16)}"`);
  return Number(text);
}

/** Runs `trust policy`. */
export async function runTrust(ctx: CommandContext): Promise<ExitCode> {
  const [sub] = takePositionals(ctx.args, ['the subcommand: policy']) as [string];
  if (sub !== 'policy') throw usageError(`unknown trust subcommand "${sub.slice(0, 40)}"; the one there is: policy`);
  const witnesses = optionValues(ctx.args, 'witness').map((value, i) => {
    const vkey = witnessVkeyOf(value);
    // Never echoed: a witness URL may carry credentials.
    if (vkey === null) throw usageError(`--witness ${i + 1} is neither URL=VKEY nor a witness vkey (<name>+<id>+base64(0x04 || key))`);
    return vkey;
  });
  const quorum = quorumOf(ctx, witnesses.length);
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const answer = await request(serviceHref(base, '/trust/pubkey'));
  if (answer.status !== 200) throw serviceError(answer, '/trust/pubkey');
  const published = (answer.json ?? {}) as { noteVerifierKey?: unknown; logOrigin?: unknown };
  if (typeof published.noteVerifierKey !== 'string' || typeof published.logOrigin !== 'string')
    throw new CliError('failed', `${base}/trust/pubkey names no note verifier key and log origin`, EXIT.failed);
  const made = tlogPolicyDocument({ log: published.noteVerifierKey, origin: published.logOrigin, witnesses, ...(quorum === undefined ? {} : { quorum }) });
  if (!made.ok) throw new CliError('failed', `the policy would not read: ${made.reason}`, EXIT.failed);
  const need = made.doc.quorum as number;
  ctx.out.note(
    witnesses.length === 0
      ? 'a policy without witnesses: a proof it accepts shows the service signed the checkpoint, not that anyone else saw the same log; add --witness for each witness you trust'
      : `a policy for ${published.logOrigin}: ${need} of ${witnesses.length} witness(es) must have cosigned`,
  );
  ctx.out.result(made.doc, () => JSON.stringify(made.doc, null, 2));
  return EXIT.ok;
}
