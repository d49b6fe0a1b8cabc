/**
 * `x402-intel localnet fund <address>`: money for a wallet on the embedded localnet, through the
 * faucets its RPC servers offer (docs/localnet.md#funding-a-wallet). A Solana address gets SOL
 * (requestAirdrop) and the local stablecoin (localnet_fundStablecoin) on the Solana RPC; a 0x
 * address gets LocalUsdc on the local EVM. The URLs come from the service's /health; a service
 * that reports no localnet (mainnet mode) is refused: there is no faucet for real money.
 */
import { isBase58OfLength } from '../../chain/solana/base58.ts';
import { optionValue, takePositionals } from '../cli-args.ts';
import { CliError, EXIT, type ExitCode, usageError } from '../cli-error.ts';
import type { CommandContext } from '../command-context.ts';
import { loadPayerKey, payerAddress } from '../payer-keys.ts';
import { localnetUrls, readHealth, rpcCall } from '../service-http.ts';
import { resolveServiceUrl } from '../service-url.ts';
import { formatUnits, parseUnits, SOL_DECIMALS, USDC_DECIMALS } from '../usd-amount.ts';

/** SOL granted when --sol is absent: a payer needs none (the service pays the fee), other uses of the wallet may. */
export const DEFAULT_FUND_SOL = '1';
/** Local stablecoin granted when --usdc is absent. */
export const DEFAULT_FUND_USDC = '10';

const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

/** Which chain an address belongs to, or a usage error. */
export function addressKind(address: string): 'solana' | 'evm' {
  if (EVM_ADDRESS_RE.test(address)) return 'evm';
  if (isBase58OfLength(address, 32)) return 'solana';
  throw usageError(`"${address.slice(0, 64)}" is neither a Solana address (base58, 32 bytes) nor a 0x address (20 bytes hex)`);
}

/** Units as a JSON-RPC number (the faucets take integers). */
function rpcUnits(units: bigint, option: string): number {
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw usageError(`${option} is too large for the faucet`);
  return Number(units);
}

/** The address to fund: the positional, or the public address of the key file given (read under the usual key-file rules). */
async function targetAddress(ctx: CommandContext): Promise<string> {
  const [sub, address] = takePositionals(ctx.args, ['the subcommand: fund', '<address>?']);
  if (sub !== 'fund') throw usageError(`unknown localnet subcommand "${sub!.slice(0, 40)}"; the one there is: fund`);
  const keypair = optionValue(ctx.args, 'keypair');
  const evmKey = optionValue(ctx.args, 'evm-key');
  const named = [
    ['<address>', address],
    ['--keypair', keypair],
    ['--evm-key', evmKey],
  ]
    .filter(([, v]) => v !== undefined)
    .map(([n]) => n);
  if (named.length === 0) throw usageError('missing the address to fund (or --keypair <file>, or --evm-key <file>, to fund the address of a key file)');
  if (named.length > 1) throw usageError(`give one of <address>, --keypair, --evm-key; got ${named.join(' and ')}`);
  if (address !== undefined) return address;
  const network = keypair !== undefined ? 'solana' : 'base';
  return payerAddress(await loadPayerKey({ network, keypair, evmKey, home: ctx.home, cwd: ctx.cwd }));
}

/** Runs `localnet fund`. */
export async function runLocalnetFund(ctx: CommandContext): Promise<ExitCode> {
  const address = await targetAddress(ctx);
  const kind = addressKind(address);
  const solOption = optionValue(ctx.args, 'sol');
  if (kind === 'evm' && solOption !== undefined) throw usageError('--sol is for Solana addresses; a Base payer needs only --usdc (the relayer pays the gas)');
  const lamports = parseUnits(solOption ?? DEFAULT_FUND_SOL, SOL_DECIMALS, '--sol');
  const units = parseUnits(optionValue(ctx.args, 'usdc') ?? DEFAULT_FUND_USDC, USDC_DECIMALS, '--usdc');
  const base = resolveServiceUrl(optionValue(ctx.args, 'url'), ctx.env);
  const urls = localnetUrls(await readHealth(base, true));
  if (!urls)
    throw new CliError('not_embedded', `${base} reports no embedded localnet in /health (it runs against a real chain): there is nothing to fund`, EXIT.failed);
  const rpcUrl = kind === 'solana' ? urls.rpcUrl : urls.evmRpcUrl;
  if (!rpcUrl) throw new CliError('not_embedded', `${base}/health names no ${kind === 'solana' ? 'rpcUrl' : 'evmRpcUrl'} for its localnet`, EXIT.failed);
  const done: Record<string, unknown> = {};
  if (kind === 'solana' && lamports > 0n) done.airdropSignature = await rpcCall(rpcUrl, 'requestAirdrop', [address, rpcUnits(lamports, '--sol')]);
  if (units > 0n) done.stablecoin = await rpcCall(rpcUrl, 'localnet_fundStablecoin', [address, rpcUnits(units, '--usdc')]);
  const network = kind === 'solana' ? 'solana' : 'base';
  const sol = kind === 'solana' ? `${formatUnits(lamports, SOL_DECIMALS)} SOL and ` : '';
  ctx.out.result(
    { address, network, rpcUrl, lamports: kind === 'solana' ? lamports.toString() : '0', stablecoinUnits: units.toString(), ...done },
    () => `funded ${address} on the localnet's ${network}: ${sol}${formatUnits(units, USDC_DECIMALS)} USDC (${rpcUrl})`,
  );
  return EXIT.ok;
}
