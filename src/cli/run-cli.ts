/**
 * One run of the CLI, from argv to exit status, with the streams and environment passed in (the
 * launcher passes the process's; tests may pass their own). Every failure ends here: printed once
 * (a sentence on stderr, or the --json error document) and turned into its exit status.
 */
import packageJson from '../../package.json' with { type: 'json' };
import { assertGlobalSwitchesOnly, assertKnownOptions, type ParsedArgs, parseArgs } from './cli-args.ts';
import { CliError, EXIT, type ExitCode, toCliError, usageError, withUsageLine } from './cli-error.ts';
import { type CliIo, createOutput, type Output } from './cli-output.ts';
import type { Command } from './command-context.ts';
import { COMMAND_NAMES, type CommandName, commandHelp, commandUsage, generalHelp } from './help-text.ts';

/** The CLI's version: the package's. */
export const CLI_VERSION: string = packageJson.version;

/** The process around a run. */
export interface CliEnvironment extends CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
  /**
   * Ends a command that runs until interrupted (`stream`) as Ctrl-C does. The launcher leaves it
   * out (SIGINT is the process's); a caller that runs the CLI inside its own process passes one.
   */
  readonly interrupt?: AbortSignal;
}

/**
 * Each command, loaded when it runs (help and version stay fast, and only `call` loads the x402
 * client), and the options it takes; null: every other option is an endpoint parameter, checked
 * against the catalog.
 */
const COMMANDS: Readonly<Record<Exclude<CommandName, 'help'>, { readonly load: () => Promise<Command>; readonly options: readonly string[] | null }>> = {
  call: { load: async () => (await import('./commands/call-command.ts')).runCall, options: null },
  preview: { load: async () => (await import('./commands/preview-command.ts')).runPreview, options: null },
  'verify-receipt': {
    load: async () => (await import('./commands/verify-commands.ts')).runVerifyReceipt,
    options: ['body', 'url', 'policy', 'proof', 'allow-no-witnesses'],
  },
  'verify-proof': { load: async () => (await import('./commands/verify-commands.ts')).runVerifyProof, options: ['url'] },
  localnet: { load: async () => (await import('./commands/localnet-fund-command.ts')).runLocalnetFund, options: ['sol', 'usdc', 'url', 'keypair', 'evm-key'] },
  endpoints: { load: async () => (await import('./commands/endpoints-command.ts')).runEndpoints, options: [] },
  keygen: { load: async () => (await import('./commands/keygen-command.ts')).runKeygen, options: ['evm'] },
  witness: { load: async () => (await import('./commands/witness-command.ts')).runWitness, options: ['key', 'name', 'log', 'host', 'port', 'data-dir'] },
  trust: { load: async () => (await import('./commands/trust-command.ts')).runTrust, options: ['witness', 'quorum', 'url'] },
  ledger: { load: async () => (await import('./commands/ledger-watch-command.ts')).runLedger, options: ['url'] },
  stream: {
    load: async () => (await import('./commands/stream-command.ts')).runStream,
    options: ['seconds', 'periods', 'network', 'keypair', 'evm-key', 'max-price', 'url', 'rpc-url'],
  },
};

const isCommand = (word: string | undefined): word is CommandName => (COMMAND_NAMES as readonly string[]).includes(word ?? '');

/** Help or version when asked for; null when the run is a command. */
function helpOrVersion(args: ParsedArgs, out: Output): ExitCode | null {
  const [word, topic] = args.positionals;
  if (args.options.has('version')) {
    out.result({ version: CLI_VERSION }, () => `x402-intel ${CLI_VERSION}`);
    return EXIT.ok;
  }
  const asked = word === 'help' ? topic : args.options.has('help') ? word : null;
  if (asked === null) return null;
  if (asked !== undefined && (!isCommand(asked) || asked === 'help')) {
    if (asked === 'help') return show(out, commandHelp('help'));
    throw usageError(`unknown command "${asked.slice(0, 40)}"; the commands: ${COMMAND_NAMES.join(', ')}`);
  }
  return show(out, asked === undefined ? generalHelp(CLI_VERSION) : commandHelp(asked));
}

function show(out: Output, text: string): ExitCode {
  out.result({ help: text }, () => text);
  return EXIT.ok;
}

async function dispatch(args: ParsedArgs, out: Output, env: CliEnvironment): Promise<ExitCode> {
  const helped = helpOrVersion(args, out);
  if (helped !== null) return helped;
  const [word, ...rest] = args.positionals;
  if (word === undefined) throw usageError(`no command given\n\n${generalHelp(CLI_VERSION)}`);
  if (!isCommand(word) || word === 'help')
    throw usageError(`unknown command "${word.slice(0, 40)}"; the commands: ${COMMAND_NAMES.join(', ')} (x402-intel --help)`);
  const command = COMMANDS[word];
  const commandArgs: ParsedArgs = { positionals: rest, options: args.options };
  try {
    if (command.options !== null) assertKnownOptions(commandArgs, command.options, word);
    else assertGlobalSwitchesOnly(commandArgs, word);
    const run = await command.load();
    return await run({ args: commandArgs, out, env: env.env, cwd: env.cwd, home: env.home, ...(env.interrupt ? { interrupt: env.interrupt } : {}) });
  } catch (err) {
    // A usage error ends with the command's usage line (docs/cli.md).
    throw err instanceof CliError && err.exit === EXIT.usage ? withUsageLine(err, word, commandUsage(word)) : err;
  }
}

/** Runs the CLI on `argv` (without node and the script) and resolves with the exit status. */
export async function runCli(argv: readonly string[], env: CliEnvironment): Promise<ExitCode> {
  const json = argv.includes('--json');
  const out = createOutput(env, json);
  try {
    return await dispatch(parseArgs(argv), out, env);
  } catch (err) {
    const failure = toCliError(err);
    out.failure(failure);
    return failure.exit;
  }
}
