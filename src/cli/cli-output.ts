/**
 * Where the CLI's words go. Plain mode: the result on stdout (an answer exactly as the service sent
 * it, so it pipes into jq), progress and errors as sentences on stderr. --json: exactly one JSON
 * document on stdout per run, the result or `{"error","message",...}`, and nothing on stderr, so
 * a script reads one thing.
 */
import type { CliError } from './cli-error.ts';

/** The process's streams, as functions (tests and the child process alike). */
export interface CliIo {
  readonly stdout: (chunk: string | Uint8Array) => void;
  readonly stderr: (text: string) => void;
}

/** Where one run writes its result, its progress and its failure. */
export interface Output {
  readonly json: boolean;
  /** A progress or status line on stderr (plain mode only). */
  note(line: string): void;
  /** One line of a result that streams (`ledger watch`): on stdout as given, in either mode. */
  line(text: string): void;
  /** The result: `doc` as JSON in --json mode, else what `plain` renders. */
  result(doc: unknown, plain: () => string | Uint8Array): void;
  /** A failure: `{"error","message",...details}` in --json mode, else `x402-intel: ` and its plain line on stderr. */
  failure(err: CliError): void;
}

const withNewline = (text: string): string => (text.endsWith('\n') ? text : `${text}\n`);

/** The output of one run. */
export function createOutput(io: CliIo, json: boolean): Output {
  return {
    json,
    note(line) {
      if (!json) io.stderr(withNewline(line));
    },
    line(text) {
      io.stdout(withNewline(text));
    },
    result(doc, plain) {
      if (json) {
        io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
        return;
      }
      const rendered = plain();
      io.stdout(typeof rendered === 'string' ? withNewline(rendered) : rendered);
    },
    failure(err) {
      if (json) io.stdout(`${JSON.stringify({ error: err.code, message: err.message, ...err.details }, null, 2)}\n`);
      else io.stderr(withNewline(`x402-intel: ${err.plain}`));
    },
  };
}
