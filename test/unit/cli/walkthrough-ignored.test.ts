/**
 * Every file the documented walk-throughs make in the working directory (README.md and docs/, run
 * from the repository as they say) is ignored by git, so a newcomer's keys, receipts, witness state
 * and policy never show up in `git status` or a commit: the key files `keygen` writes, a witness's
 * key and data directory, the receipts directory, a file a command's output is sent to; and the
 * CLI's own defaults for them.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECEIPT_DIR } from '../../../src/cli/receipt-files.ts';
import { WITNESS_DEFAULTS } from '../../../src/cli/commands/witness-command.ts';
import { repositoryRoot } from '../../helpers/import-layers.ts';

const ROOT = repositoryRoot(import.meta.url);

/** The shell lines of a Markdown file's ```sh blocks. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).map((line) => line.replace(/\s+#.*$/, ''));
}

/** What a line writes into the working directory: keygen's file, --key/--data-dir/--receipt-dir, a `>` redirect. */
function writtenBy(line: string): string[] {
  const out: string[] = [];
  for (const re of [/x402-intel keygen (\S+)/, /witness keygen .*--key (\S+)/, /--data-dir (\S+)/, /--receipt-dir (\S+)/, /> ?([\w.-]+)\s*$/]) {
    const m = re.exec(line);
    if (m && !/[<>$~/]/.test(m[1]!)) out.push(m[1]!);
  }
  return out;
}

const ignored = (path: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
};

describe('the walk-throughs leave nothing for git', () => {
  const docs = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const files = [...new Set(docs.flatMap((doc) => shellLines(readFileSync(join(ROOT, doc), 'utf8')).flatMap(writtenBy)))];

  it('finds the files the docs make (it reads what it should)', () => {
    expect(files).toEqual(expect.arrayContaining(['payer.json', 'base.key', 'w1.key', '.witness-w1', 'policy.json']));
  });

  it.each([...files, DEFAULT_RECEIPT_DIR, WITNESS_DEFAULTS.dataDir])('%s is ignored', (file) => {
    expect(ignored(file) || ignored(`${file}/anything`)).toBe(true);
  });

  it('a file the walk-throughs do not make is not (the check can fail)', () => {
    expect(ignored('README.md')).toBe(false);
  });
});
