/**
 * `x402-intel preview <path> [--<param> <value> ...]`: the free daily preview of an endpoint
 * (`GET /preview/<path>`), no key, no payment. When today's preview is used up the service answers
 * 429; the CLI says when the next one is available and how to pay for the call instead (exit 4).
 */
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode } from '../cli-error.ts';
import { type CommandContext, endpointParams } from '../command-context.ts';
import { buildEndpointRequest, type EndpointRequest } from '../endpoint-request.ts';
import { type Answer, request, serviceError } from '../service-http.ts';
import { resolveServiceUrl, serviceHref } from '../service-url.ts';

/** Options of `preview` (everything else is an endpoint parameter). */
export const PREVIEW_OPTIONS = ['url'] as const;

/** `3h 12m`, `45s`: a wait in words. */
export function formatWait(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return 'now';
  const s = Math.ceil(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}

/** The same request as a paid call on the command line. */
function payCommand(req: EndpointRequest): string {
  const params = [...req.params].map(([name, value]) => ` --${name} ${/^[\w.,:/-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`}`);
  return `x402-intel call ${req.entry.path}${params.join('')}`;
}

/** The 429 answer as exit 4, with when the next preview comes and how to pay instead. */
export function previewLimitError(answer: Answer, req: EndpointRequest): CliError {
  const body = (typeof answer.json === 'object' && answer.json !== null ? answer.json : {}) as Record<string, unknown>;
  const header = Number(answer.headers.get('retry-after'));
  const retryAfterSeconds = typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : Number.isFinite(header) ? header : null;
  const nextPreviewAt = typeof body.nextPreviewAt === 'string' ? body.nextPreviewAt : null;
  const when = nextPreviewAt ? `at ${nextPreviewAt}` : 'later';
  const wait = retryAfterSeconds !== null ? ` (in ${formatWait(retryAfterSeconds)})` : '';
  const said = typeof body.message === 'string' ? `${body.message.replace(/\.?$/, '.')}\n` : '';
  const message = `${said}Next free preview ${when}${wait}. To pay for this call now: ${payCommand(req)}`;
  const details = { status: 429, retryAfterSeconds, nextPreviewAt, pay: payCommand(req) };
  return new CliError(
    'preview_limit_reached',
    message,
    EXIT.previewLimit,
    details,
    `/preview${req.entry.path} answered HTTP 429 preview_limit_reached: ${message}`,
  );
}

/** Runs `preview`. */
export async function runPreview(ctx: CommandContext): Promise<ExitCode> {
  const [pathArg] = takePositionals(ctx.args, ['<path>']) as [string];
  const req = buildEndpointRequest(pathArg, endpointParams(ctx.args, PREVIEW_OPTIONS), { command: 'preview', options: PREVIEW_OPTIONS });
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const answer = await request(serviceHref(base, `/preview${req.pathAndQuery}`));
  // The day's preview used up is exit 4; any other 429 (the free request rate) is an error like the rest.
  const code = (answer.json as { error?: unknown } | undefined)?.error;
  if (answer.status === 429 && (code === undefined || code === 'preview_limit_reached')) throw previewLimitError(answer, req);
  if (answer.status !== 200) throw serviceError(answer, `/preview${req.entry.path}`);
  ctx.out.result(answer.json ?? null, () => new TextDecoder().decode(answer.bytes));
  return EXIT.ok;
}
