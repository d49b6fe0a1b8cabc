/**
 * What every command runs with: its arguments (the command word removed), the output, and the
 * process's environment, working directory and home, passed in so nothing reads globals.
 */
import type { ParsedArgs } from './cli-args.ts';
import type { ExitCode } from './cli-error.ts';
import type { Output } from './cli-output.ts';

/** The arguments and surroundings of one command run. */
export interface CommandContext {
  readonly args: ParsedArgs;
  readonly out: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
  /** Ends a run that goes on until interrupted, as SIGINT does (CliEnvironment.interrupt). */
  readonly interrupt?: AbortSignal;
}

/** A command: resolves with the exit status of a run that went as expected, throws a CliError otherwise. */
export type Command = (ctx: CommandContext) => Promise<ExitCode>;

/** The options of `args` that are not in `reserved`: an endpoint's query parameters. */
export function endpointParams(args: ParsedArgs, reserved: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const [name, value] of args.options) {
    if (reserved.includes(name) || value === true) continue;
    params.set(name, value);
  }
  return params;
}
