/**
 * What `x402-intel --help` and `x402-intel help <command>` print: every command with its options
 * and examples, and the exit statuses scripts branch on (the numbers come from EXIT, the one table).
 */
import { STREAM_CATALOG } from '../catalog/streams.ts';
import { EXIT } from './cli-error.ts';
import { SERVICE_URL_ENV, DEFAULT_SERVICE_URL } from './service-url.ts';

/** The commands, in the order the help lists them. */
export const COMMAND_NAMES = [
  'call',
  'preview',
  'verify-receipt',
  'verify-proof',
  'trust',
  'ledger',
  'stream',
  'localnet',
  'keygen',
  'witness',
  'endpoints',
  'help',
] as const;
/** A command word. */
export type CommandName = (typeof COMMAND_NAMES)[number];

interface CommandHelp {
  readonly usage: string;
  readonly summary: string;
  readonly options: readonly (readonly [string, string])[];
  readonly examples: readonly string[];
}

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const URL_OPTION = ['--url <base>', `the service (default $${SERVICE_URL_ENV}, else ${DEFAULT_SERVICE_URL})`] as const;

const HELP: Readonly<Record<CommandName, CommandHelp>> = {
  call: {
    usage: 'call <path> [--<param> <value> ...] [options]',
    summary: 'pay for one call (x402, on Solana or Base), print the answer, save the receipt',
    options: [
      ['--<param> <value>', 'a query parameter of the endpoint (x402-intel endpoints <path> lists them)'],
      ['--network solana|base', 'the chain that pays (default solana)'],
      ['--keypair <file>', 'Solana CLI keypair file, mode 0600 (default ~/.config/solana/id.json)'],
      ['--evm-key <file>', 'file holding one 0x hex key, mode 0600 (needed with --network base)'],
      ['--max-price <usd>', 'refuse to pay more than this, e.g. 0.05 (default 1); exit 3, nothing signed'],
      ['--receipt-dir <dir>', 'where the receipt and the body are saved (default ./x402-receipts)'],
      ['--rpc-url <url>', "Solana RPC the payment is built against (default: the embedded localnet's, else mainnet)"],
      URL_OPTION,
    ],
    examples: [
      'x402-intel call /v1/epoch --rate both',
      `x402-intel call /v1/smri --mint ${BONK} --max-price 0.02`,
      'x402-intel call /v1/epoch --network base --evm-key ~/.config/x402-intel/base.key',
      `x402-intel call /v1/decision --mint ${BONK} --policy anti-rug --json | jq .answer`,
    ],
  },
  preview: {
    usage: 'preview <path> [--<param> <value> ...]',
    summary: "the free daily preview of an endpoint (no payment; one a day per client, shared with the page's console); exit 4 when used up",
    options: [['--<param> <value>', 'a query parameter of the endpoint'], URL_OPTION],
    examples: ['x402-intel preview /v1/epoch', `x402-intel preview /v1/smri --mint ${BONK}`],
  },
  'verify-receipt': {
    usage: 'verify-receipt <receipt-file> [--body <file>] [--policy <file> [--proof <file>] [--allow-no-witnesses]]',
    summary: "check a receipt's signature, its body and its entry in the service's signed ledger (online, or offline with --policy)",
    options: [
      ['--body <file>', 'the exact answer bytes (default: the .body.json saved next to the receipt)'],
      ['--policy <file>', 'check offline against this policy (log key, witness keys, quorum; x402-intel trust policy writes one)'],
      ['--proof <file>', 'with --policy: the tlog-proof (default: the .tlog-proof saved next to the receipt)'],
      ['--allow-no-witnesses', 'with --policy: accept a policy that requires no witness (quorum 0): the log alone then vouches for its history'],
      URL_OPTION,
    ],
    examples: [
      'x402-intel verify-receipt x402-receipts/000001-v1-epoch.receipt.json',
      'x402-intel verify-receipt receipt.b64 --body body.json',
      'x402-intel verify-receipt x402-receipts/000001-v1-epoch.receipt.json --policy policy.json',
    ],
  },
  'verify-proof': {
    usage: 'verify-proof <ledger-index>',
    summary: 'check that a ledger entry is included under a checkpoint signed by the service',
    options: [URL_OPTION],
    examples: ['x402-intel verify-proof 1'],
  },
  trust: {
    usage: 'trust policy [--witness <URL=VKEY|VKEY> ...] [--quorum <n>]',
    summary: "write the offline policy verify-receipt --policy reads: the log's key from the running service, the witnesses you trust",
    options: [
      ['--witness <URL=VKEY>', "a witness you trust: its cosigner vkey, alone or as the service's --witness takes it (repeatable)"],
      ['--quorum <n>', 'how many of them must have cosigned (default: all)'],
      URL_OPTION,
    ],
    examples: ['x402-intel trust policy --witness http://127.0.0.1:8404=witness.example.org/w1+1a2b3c4d+BP... > policy.json'],
  },
  ledger: {
    usage: 'ledger watch',
    summary: "follow the service's live ledger: one line per entry as it is written (Ctrl-C stops; --json: one JSON line each)",
    options: [URL_OPTION],
    examples: ['x402-intel ledger watch', 'x402-intel ledger watch --json | jq .endpoint'],
  },
  stream: {
    usage: 'stream <topic> [--seconds <n>] [--evm-key <file> | --keypair <file> [--periods <n>]]',
    summary: `hold a paid live stream (${STREAM_CATALOG.map((s) => s.topic).join(', ')}): one JSON line per update; at the end what it paid (periods, units, receipts)`,
    options: [
      ['--seconds <n>', 'stop after n seconds (default: until Ctrl-C or the stream closes)'],
      ['--evm-key <file>', 'pay through a Base payment channel (one deposit, a voucher a period)'],
      ['--keypair <file>', 'pay exact on Solana, a window of --periods periods at a time'],
      ['--periods <n>', 'Solana only: periods one payment buys, 1 to 360 (default 1); paid up front, not refunded'],
      ['--max-price <usd>', 'refuse a period priced above this (default 1)'],
      URL_OPTION,
    ],
    examples: [
      'x402-intel stream tipfloor --evm-key base.key --seconds 60',
      'x402-intel stream slot --evm-key base.key --json | jq .data.epoch',
      'x402-intel stream new-pairs --keypair payer.json --periods 6 --json | jq .data.poolAddress',
    ],
  },
  localnet: {
    usage: 'localnet fund <solana-pubkey-or-0x-address> | --keypair <file> | --evm-key <file> [--sol <n>] [--usdc <n>]',
    summary: 'fund a wallet on the embedded localnet (refused when the service runs on a real chain)',
    options: [
      ['--keypair <file>', 'fund the address of this Solana keypair file (instead of an address)'],
      ['--evm-key <file>', 'fund the address of this Base key file (instead of an address)'],
      ['--sol <n>', 'SOL for a Solana address (default 1; a payer needs none: the service pays the fee)'],
      ['--usdc <n>', 'local stablecoin (default 10)'],
      URL_OPTION,
    ],
    examples: [
      'x402-intel localnet fund --keypair payer.json',
      'x402-intel localnet fund --evm-key base.key --usdc 5',
      'x402-intel localnet fund 0x1111111111111111111111111111111111111111 --usdc 5',
    ],
  },
  keygen: {
    usage: 'keygen <file> [--evm]',
    summary: 'write a new key file to pay from (Solana CLI keypair, or a Base 0x key with --evm), mode 0600; prints the address',
    options: [['--evm', 'a Base (EVM) key instead of a Solana keypair']],
    examples: ['x402-intel keygen payer.json', 'x402-intel keygen base.key --evm'],
  },
  witness: {
    usage: 'witness keygen --name <name> --key <file> | witness serve --key <file> --log <vkey> ...',
    summary: "a transparency-log witness: cosigns a log's checkpoints after checking each extends the last it saw",
    options: [
      ['--name <name>', 'keygen: the witness key name, e.g. witness.example.org/w1'],
      ['--key <file>', 'the witness key file (keygen writes it, mode 0600; serve reads it)'],
      ['--log <vkey>', "serve: a log's note verifier key, repeatable (its origin is the key's name)"],
      ['--host <ip>', 'serve: the interface to listen on (default 127.0.0.1)'],
      ['--port <n>', 'serve: the port (default 8404; 0 picks a free one)'],
      ['--data-dir <dir>', 'serve: where the latest cosigned size and root of each log are kept (default ./.witness)'],
    ],
    examples: [
      'x402-intel witness keygen --name witness.example.org/w1 --key witness.key',
      'x402-intel witness serve --key witness.key --log "$(curl -s localhost:8402/trust/pubkey | jq -r .noteVerifierKey)"',
    ],
  },
  endpoints: {
    usage: 'endpoints [<path>]',
    summary: 'the paid endpoints with prices and parameters; one in full with an example',
    options: [],
    examples: ['x402-intel endpoints', 'x402-intel endpoints /v1/decision'],
  },
  help: { usage: 'help [<command>]', summary: "this text, or one command's", options: [], examples: ['x402-intel help call'] },
};

/** Every exit status and what it means: the help and docs/cli.md (generated) both render this list. */
export const EXIT_STATUSES: readonly (readonly [number, string])[] = [
  [EXIT.ok, 'ok'],
  [EXIT.failed, 'the service answered with an error, or a verification failed'],
  [EXIT.usage, 'usage error (unknown command, endpoint or parameter; malformed value)'],
  [EXIT.priceRefused, 'refused to pay: the price is above --max-price (nothing was signed)'],
  [EXIT.previewLimit, 'the free daily preview is used up'],
  [EXIT.unreachable, 'the service (or an RPC) could not be reached or timed out'],
  [EXIT.keyFile, 'key file missing, malformed, or readable by group or others (chmod 600)'],
];

const pad = (rows: readonly (readonly [string, string])[]): string[] => {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`);
};

/** `x402-intel --help`. */
export function generalHelp(version: string): string {
  return [
    `x402-intel ${version}: pay for calls of solana-x402-intel from the terminal, and check their receipts.`,
    '',
    'Usage: x402-intel <command> [arguments] [--json]',
    '',
    'Commands:',
    ...COMMAND_NAMES.flatMap((c) => [`  ${HELP[c].usage}`, `      ${HELP[c].summary}`]),
    '',
    'Global options:',
    ...pad([
      URL_OPTION,
      ['--json', 'print one JSON document on stdout (the result, or {"error","message"})'],
      ['--help, -h', 'help'],
      ['--version, -V', 'the version'],
    ]),
    '',
    'Exit status:',
    ...EXIT_STATUSES.map(([status, meaning]) => `  ${status}  ${meaning}`),
    '',
    'x402-intel help <command> shows its options and examples.',
  ].join('\n');
}

/** A command's usage line, without `x402-intel`. */
export const commandUsage = (name: CommandName): string => HELP[name].usage;

/** `x402-intel help <command>`. */
export function commandHelp(name: CommandName): string {
  const h = HELP[name];
  const options = pad([...h.options, ['--json', 'one JSON document on stdout (the result, or {"error","message"})']]);
  return [`Usage: x402-intel ${h.usage}`, '', h.summary, '', 'Options:', ...options, '', 'Examples:', ...h.examples.map((e) => `  ${e}`)].join('\n');
}
