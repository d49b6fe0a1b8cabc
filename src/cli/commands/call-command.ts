/**
 * `x402-intel call <path> [--<param> <value> ...]`: one paid call through the client library
 * (src/client), which builds the payment with the official x402 schemes and sends it with the
 * first request. The request is checked against the catalog first, the key file next, then the
 * service is asked; a price above --max-price is refused before anything is signed (exit 3). The answer
 * goes to stdout, the settlement to stderr, the receipt and the exact body bytes to the receipt
 * directory, named so that verify-receipt finds them.
 */
import { formatUsd } from '../../catalog/format-usd.ts';
import type { PaidPath } from '../../catalog/endpoints.ts';
import type { CallResult, NotPaid } from '../../client/call-result.ts';
import { createIntelClient } from '../../client/intel-client.ts';
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode } from '../cli-error.ts';
import { type CommandContext, endpointParams } from '../command-context.ts';
import { buildEndpointRequest, type EndpointRequest } from '../endpoint-request.ts';
import { DEFAULT_KEYPAIR_PATH, expandPath, loadPayerKey, parseNetwork, payerAddress } from '../payer-keys.ts';
import { extensionPayloadOf, extensionReceiptOf, type ReceiptPayload } from '../offer-receipt-check.ts';
import { DEFAULT_RECEIPT_DIR, decodeReceiptHeader, type SavedReceipt, saveReceipt, saveX402Receipt } from '../receipt-files.ts';
import { fetchTlogProof, saveTlogProof } from '../tlog-proof-files.ts';
import { type Answer, localnetUrls, PAID_CALL_TIMEOUT_MS, readHealth, serviceError, serviceFailure } from '../service-http.ts';
import { isLoopbackUrl, resolveServiceUrl, serviceHref } from '../service-url.ts';
import { formatUnits, parseUnits, USDC_DECIMALS } from '../usd-amount.ts';
import { decodeSettlement, SOLANA_MAINNET_RPC_URL, type Settlement } from '../x402-payer.ts';

/** What the service asked when the price was refused. */
interface PriceRefusal {
  readonly amount: string;
  readonly network: string;
  readonly asset: string;
}

/** Options of `call` (everything else is an endpoint parameter). */
export const CALL_OPTIONS = ['network', 'keypair', 'evm-key', 'max-price', 'receipt-dir', 'url', 'rpc-url'] as const;
/** The cap when --max-price is absent, USD: the official x402 client's own default cap. */
export const DEFAULT_MAX_PRICE_USD = '1';

const usdc = (units: bigint | string): string => `${formatUnits(BigInt(units), USDC_DECIMALS)} USDC`;

function priceRefused(r: PriceRefusal, maxUnits: bigint, path: string): CliError {
  const asked = /^\d{1,30}$/.test(r.amount)
    ? `${usdc(r.amount)} (${r.amount} units)`
    : `an amount that is not a whole number of units ("${r.amount.slice(0, 32)}")`;
  return new CliError(
    'price_above_max',
    `refused to pay: ${path} asks ${asked} on ${r.network}, above --max-price ${formatUnits(maxUnits, USDC_DECIMALS)}; nothing was signed`,
    EXIT.priceRefused,
    { amountUnits: r.amount, maxUnits: maxUnits.toString(), network: r.network, asset: r.asset },
  );
}

function x402ReceiptLine(p: ReceiptPayload): string {
  return `x402 receipt (offer-receipt extension): ${p.resourceUrl} paid by ${p.payer} on ${p.network}, issued ${new Date(p.issuedAt * 1000).toISOString()}`;
}

function settlementLine(s: Settlement): string {
  if (!s.success) return `settlement failed on ${s.network || 'the network'}${s.errorReason ? `: ${s.errorReason}` : ''}`;
  return `paid on ${s.network}: transaction ${s.transaction}${s.payer ? `, payer ${s.payer}` : ''}`;
}

/** The command that funds the payer of this call on the localnet. */
function fundCommand(ctx: CommandContext): string {
  const evmKey = optionValue(ctx.args, 'evm-key');
  // The same service: a --url given to `call` goes with it ($X402_INTEL_URL reaches both by itself).
  const url = optionValue(ctx.args, 'url');
  const key = evmKey !== undefined ? `--evm-key ${evmKey}` : `--keypair ${optionValue(ctx.args, 'keypair') ?? `~/${DEFAULT_KEYPAIR_PATH}`}`;
  return `x402-intel localnet fund ${key}${url !== undefined ? ` --url ${url}` : ''}`;
}

/** A refusal made by the library before anything was signed, as the CLI reports it (a price above --max-price: exit 3). */
function refusedHere(r: NotPaid, maxUnits: bigint, path: string): CliError {
  const terms = r.refusedTerms;
  if (r.reason === 'price_above_limit' && terms) return priceRefused({ amount: terms.amount, network: terms.network, asset: terms.asset }, maxUnits, path);
  return new CliError(r.reason, `refused to pay: ${r.message}; nothing was signed`, EXIT.failed);
}

/** The library's answer as the CLI's Answer (status, headers, exact bytes, parsed JSON). */
function answerOf(r: CallResult<PaidPath>): Answer {
  return { status: r.status ?? 0, headers: new Headers(r.headers as Record<string, string>), bytes: r.bytes, json: r.body ?? undefined };
}

/**
 * Pays through the client library (the payment goes with the first request; the terms come from
 * the service's discovery document) and reads the answer, and whether it paid on the embedded
 * localnet; a price above --max-price is refused by the library's spend limit before anything is
 * signed (exit 3).
 */
async function payAndFetch(ctx: CommandContext, req: EndpointRequest): Promise<{ answer: Answer; localnet: boolean }> {
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const maxUnits = parseUnits(optionValue(ctx.args, 'max-price') ?? DEFAULT_MAX_PRICE_USD, USDC_DECIMALS, '--max-price');
  const key = await loadPayerKey({
    network: parseNetwork(optionValue(ctx.args, 'network')),
    keypair: optionValue(ctx.args, 'keypair'),
    evmKey: optionValue(ctx.args, 'evm-key'),
    home: ctx.home,
    cwd: ctx.cwd,
  });
  // An embedded localnet is trusted only on this machine: its RPC signs against it, its asset is accepted.
  const loopback = isLoopbackUrl(base);
  const localnet = loopback ? localnetUrls(await readHealth(base)) : null;
  if (loopback && !localnet) ctx.out.note(`${base}/health reports no embedded localnet: paying only in assets the official x402 client knows`);
  const svmRpcUrl = optionValue(ctx.args, 'rpc-url') ?? localnet?.rpcUrl ?? SOLANA_MAINNET_RPC_URL;
  const href = serviceHref(base, req.pathAndQuery);
  ctx.out.note(`calling ${href} as ${payerAddress(key)} on ${key.network}${localnet ? ' (embedded localnet)' : ''}`);
  const client = createIntelClient({
    url: base,
    ...(key.network === 'solana' ? { svmKeypair: key.signer, prefer: 'solana-exact' as const } : { evmKey: key.key, prefer: 'base-exact' as const }),
    svmRpcUrl,
    spendLimit: { perCallUnits: maxUnits },
    anyAsset: localnet !== null,
    timeoutMs: PAID_CALL_TIMEOUT_MS,
  });
  try {
    const result = await client.call(req.entry.path as PaidPath, Object.fromEntries(req.params));
    if (!result.ok && result.status === null) throw refusedHere(result, maxUnits, req.entry.path);
    return { answer: answerOf(result), localnet: localnet !== null };
  } catch (err) {
    throw serviceFailure(err, href);
  } finally {
    client.close();
  }
}

/** The receipt's tlog-proof beside it; a proof that cannot be had now is a note (the call itself succeeded). */
async function saveProof(ctx: CommandContext, base: string, saved: SavedReceipt, index: unknown): Promise<string | null> {
  if (!Number.isSafeInteger(index)) return null;
  try {
    const file = saveTlogProof(saved.receiptFile, await fetchTlogProof(base, index as number));
    ctx.out.note(
      `tlog-proof saved: ${file} (offline: x402-intel verify-receipt ${saved.receiptFile} --policy policy.json, a policy written once by x402-intel trust policy --witness <URL=VKEY> > policy.json)`,
    );
    return file;
  } catch (err) {
    ctx.out.note(`no tlog-proof saved (${(err as Error).message}); fetch it later from ${base}/trust/tlog-proof?index=${String(index)}`);
    return null;
  }
}

async function saveOrExplain(dir: string, answer: Answer, header: string | null): Promise<SavedReceipt | null> {
  const decoded = decodeReceiptHeader(header);
  if (!decoded) return null;
  return saveReceipt(dir, decoded, answer.bytes);
}

/** Runs `call`. */
export async function runCall(ctx: CommandContext): Promise<ExitCode> {
  const [pathArg] = takePositionals(ctx.args, ['<path>']) as [string];
  const req = buildEndpointRequest(pathArg, endpointParams(ctx.args, CALL_OPTIONS), { command: 'call', options: CALL_OPTIONS });
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const { answer, localnet } = await payAndFetch(ctx, req);
  const settlement = decodeSettlement(answer.headers.get('payment-response'));
  if (settlement) ctx.out.note(settlementLine(settlement));
  // The usual refusal on the localnet is a wallet that holds nothing there: a new key, or a localnet
  // started over (--fresh). The localnet keeps its funding across restarts otherwise, so this is said as an "if".
  if (answer.status === 402 && localnet)
    ctx.out.note(
      `the payment was refused; if this payer holds no local USDC (a new key, or a localnet started over with --fresh), fund it: ${fundCommand(ctx)}`,
    );
  if (answer.status !== 200) throw serviceError(answer, req.entry.path);
  const dir = expandPath(optionValue(ctx.args, 'receipt-dir') ?? DEFAULT_RECEIPT_DIR, ctx.home, ctx.cwd);
  const saved = await saveOrExplain(dir, answer, answer.headers.get('x-service-receipt'));
  const x402 = extensionReceiptOf(answer.headers);
  const x402File = saved && x402 ? saveX402Receipt(saved.receiptFile, x402) : null;
  const x402Payload = x402 ? extensionPayloadOf(x402) : null;
  if (x402Payload) ctx.out.note(x402ReceiptLine(x402Payload));
  if (saved) {
    ctx.out.note(`receipt saved: ${saved.receiptFile} (body: ${saved.bodyFile}${x402File ? `; x402 receipt: ${x402File}` : ''})`);
    ctx.out.note(`check it any time: x402-intel verify-receipt ${saved.receiptFile}`);
  } else ctx.out.note('the answer carries no readable X-Service-Receipt: nothing saved');
  const receipt = decodeReceiptHeader(answer.headers.get('x-service-receipt'))?.receipt;
  const proofFile = saved ? await saveProof(ctx, base, saved, receipt?.ledgerIndex) : null;
  ctx.out.result(
    {
      endpoint: req.entry.path,
      resource: req.pathAndQuery,
      listPrice: formatUsd(req.entry.priceUnits),
      answer: answer.json ?? null,
      settlement,
      receipt: saved ? { ledgerIndex: receipt?.ledgerIndex ?? null, file: saved.receiptFile, bodyFile: saved.bodyFile, tlogProofFile: proofFile } : null,
      x402Receipt: x402 ? { file: x402File, payload: x402Payload, signed: x402 } : null,
    },
    () => new TextDecoder().decode(answer.bytes),
  );
  return EXIT.ok;
}
