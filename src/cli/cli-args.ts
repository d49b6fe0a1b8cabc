/**
 * The command line as data: positionals, and `--name value` / `--name=value` options. Which
 * options take no value is the caller's to say (the global switches); everything else takes one,
 * so an endpoint parameter never needs registering here. A repeated option is refused: its meaning
 * would be ambiguous, as the service refuses a repeated query parameter.
 */
import { usageError } from './cli-error.ts';

/** The command line split into positionals and options. */
export interface ParsedArgs {
  readonly positionals: readonly string[];
  /** Option name (without dashes) -> value; `true` for a switch. Insertion order kept. */
  readonly options: ReadonlyMap<string, string | true>;
}

/** Switches of every command: they take no value. */
export const SWITCHES: ReadonlySet<string> = new Set(['json', 'help', 'version', 'evm', 'allow-no-witnesses']);
/** Options that may be given more than once (each value kept, in order): the logs a witness witnesses, a policy's witnesses. */
export const REPEATABLE: ReadonlySet<string> = new Set(['log', 'witness']);
/** Joins the values of a repeated option inside ParsedArgs (no value of a repeatable option holds it). */
const REPEAT_SEPARATOR = '\n';
/** The switches every command takes (the others belong to one command). */
const GLOBAL_SWITCHES: ReadonlySet<string> = new Set(['json', 'help', 'version']);

const SHORT: Readonly<Record<string, string>> = { '-h': 'help', '-V': 'version' };
const OPTION_NAME_RE = /^[A-Za-z][A-Za-z0-9-]*$/;

/** Splits `argv` (without node and the script); throws a usage CliError on a malformed option. */
export function parseArgs(argv: readonly string[], switches: ReadonlySet<string> = SWITCHES): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  const set = (name: string, value: string | true): void => {
    if (!OPTION_NAME_RE.test(name)) throw usageError(`"--${name.slice(0, 40)}" is not an option name`);
    if (typeof value === 'string' && REPEATABLE.has(name)) {
      if (value.includes(REPEAT_SEPARATOR)) throw usageError(`--${name} takes one line`);
      const before = options.get(name);
      return void options.set(name, before === undefined ? value : `${before}${REPEAT_SEPARATOR}${value}`);
    }
    if (options.has(name)) throw usageError(`--${name} is given more than once`);
    options.set(name, value);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (SHORT[arg]) {
      set(SHORT[arg], true);
    } else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (switches.has(name)) {
        if (eq >= 0) throw usageError(`--${name} takes no value`);
        set(name, true);
      } else if (eq >= 0) {
        set(name, arg.slice(eq + 1));
      } else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith('--')) throw usageError(`--${name} needs a value`);
        set(name, value);
        i++;
      }
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, options };
}

/** The string value of an option, or undefined when absent. */
export function optionValue(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  return typeof v === 'string' ? v : undefined;
}

/** Every value of a repeatable option, in the order given. */
export function optionValues(args: ParsedArgs, name: string): string[] {
  const v = args.options.get(name);
  return typeof v === 'string' ? v.split(REPEAT_SEPARATOR) : [];
}

/** Throws a usage error naming the first option not in `allowed` (and what is allowed). */
export function assertKnownOptions(args: ParsedArgs, allowed: readonly string[], command: string): void {
  const known = new Set([...allowed, ...SWITCHES]);
  for (const name of args.options.keys()) {
    if (!known.has(name)) {
      const list = allowed.length > 0 ? allowed.map((a) => `--${a}`).join(', ') : 'none besides --json and --help';
      throw usageError(`${command} has no option --${name}; its options: ${list}`);
    }
  }
}

/** Throws a usage error naming the first switch that is not a global one (for commands whose other options are endpoint parameters). */
export function assertGlobalSwitchesOnly(args: ParsedArgs, command: string): void {
  for (const [name, value] of args.options) {
    if (value === true && !GLOBAL_SWITCHES.has(name)) throw usageError(`${command} has no switch --${name}`);
  }
}

/**
 * The positionals after the command word, one per name in `names` (`<path>`; a name ending in `?`
 * may be left out); a usage error names the first one missing or the first one too many (run-cli.ts
 * adds the command's usage line).
 */
export function takePositionals(args: ParsedArgs, names: readonly string[]): readonly string[] {
  const given = args.positionals;
  const required = names.filter((n) => !n.endsWith('?')).length;
  if (given.length < required) throw usageError(`missing ${names[given.length]}`);
  const extra = given[names.length];
  if (extra !== undefined) throw usageError(`unexpected argument "${extra.slice(0, 80)}"`, { argument: extra.slice(0, 80) });
  return given;
}
