/**
 * The docs stay true to the code: every table that copies code (options, catalog, error codes)
 * and the import layers' order are exactly what scripts/generate-docs.ts renders from the code
 * now, the README's code map names paths that exist, every relative link in
 * README.md and docs/ resolves to a file and anchor of the repository, and every
 * `docs/<page>.md#<anchor>` a source comment cites exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenCitations, brokenLinks, docFiles, linkProblems, slug } from '../../scripts/docs-links.ts';
import { codeMapProblems } from '../../scripts/code-map.ts';
import { docsProblems, driftedRegions, GENERATORS, regenerate, regionsOf, REPO_ROOT } from '../../scripts/generate-docs.ts';
import { LAYER_RULES } from '../helpers/layer-map.ts';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

describe('generated tables', () => {
  it.each(docFiles(REPO_ROOT))('%s: every generated region is what the code renders now', (file) => {
    const text = read(file);
    expect(driftedRegions(text)).toEqual([]);
    expect(regenerate(text)).toBe(text);
  });

  it('every generator has its region in some document', () => {
    const names = new Set(docFiles(REPO_ROOT).flatMap((f) => regionsOf(read(f)).map((r) => r.name)));
    expect([...names].sort()).toEqual(Object.keys(GENERATORS).sort());
  });

  it('detects a region edited by hand, and regenerating restores it', () => {
    const text = read('docs/configuration.md');
    const edited = text.replace('| `--port` | `PORT` | `8402` |', '| `--port` | `PORT` | `8080` |');
    expect(edited).not.toBe(text);
    expect(driftedRegions(edited)).toEqual(['options']);
    expect(regenerate(edited)).toBe(text);
  });

  it('detects a row missing from a region', () => {
    const text = read('docs/errors.md');
    const edited = text.replace(/^\| 409 \|.*\n/m, '');
    expect(edited).not.toBe(text);
    expect(driftedRegions(edited)).toEqual(['error-codes']);
  });

  it('refuses a region without a generator or with a mismatched end marker', () => {
    expect(() => regionsOf('<!-- generated:nothing -->\nx\n<!-- /generated:nothing -->')).toThrow(/no generator/);
    expect(() => regionsOf('<!-- generated:options -->\nx\n<!-- /generated:catalog -->')).toThrow(/closed by/);
  });

  it('renders every option, paid path and error code', () => {
    const text = ['docs/configuration.md', 'docs/endpoints.md', 'docs/errors.md'].map(read).join('\n');
    expect(text).toContain('| `--settle-timeout-ms` | `SETTLE_TIMEOUT_MS` | `30000` |');
    expect(text).toContain('| `/v1/decision` | $0.05 (50000) | intelligence | `mint`, `action`?,');
    expect(text).toContain('| `/v1/token-risk` | $0.028 (28000) |');
    expect(text).toMatch(/^\| 409 \| `payment_identifier_conflict` \|$/m);
  });
});

describe('the layer order', () => {
  const LAYER_DOCS = ['README.md', 'docs/contract.md', 'docs/development.md'];

  it('is generated from the import-layers rules wherever a document states it', () => {
    for (const file of LAYER_DOCS) expect(regionsOf(read(file)).map((r) => r.name)).toContain('layer-order');
    const line = GENERATORS['layer-order']!();
    expect(line.split(' > ')).toHaveLength(LAYER_RULES.layers.length);
    expect(line).toMatch(/^`cli` > `client` > `witness` > `main` > .* > `pool`, `receipts` > `tlog` > `ledger` > .* > `receipt-checks`$/);
  });

  it('is typed by hand nowhere: no other run of layer names joined by ">" outside the generated regions', () => {
    const names = LAYER_RULES.layers.flatMap((l) => l.name.split('/'));
    const run = new RegExp(`\\b(?:${names.join('|')})\\b\`?,?\\s*>\\s*\`?(?:${names.join('|')})\\b`);
    for (const file of docFiles(REPO_ROOT)) {
      const outside = read(file).replace(/<!-- generated:([a-z-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g, '');
      expect([file, run.exec(outside)?.[0] ?? null]).toEqual([file, null]);
    }
  });

  it('detects the order edited by hand, and regenerating restores it', () => {
    const text = read('docs/development.md');
    const edited = text.replace('`tlog` > `ledger` > `postgres`', '`tlog` > `postgres`');
    expect(edited).not.toBe(text);
    expect(driftedRegions(edited)).toEqual(['layer-order']);
    expect(regenerate(edited)).toBe(text);
  });
});

describe('the README code map', () => {
  it('names only paths that exist, or that the build writes', () => {
    expect(codeMapProblems(REPO_ROOT)).toEqual([]);
  });

  it('reports a path that is not there and a build output the build does not write', () => {
    const readme = read('README.md')
      .replace('src/x402/flow/paid-caller.ts', 'src/x402/no-such-caller.ts')
      .replace('dist/server/pool-worker.js', 'dist/workers/pool-worker.js');
    expect(codeMapProblems(REPO_ROOT, readme)).toEqual([
      expect.stringMatching(/^README\.md code map: dist\/workers\/pool-worker\.js is not written by npm run build/),
      'README.md code map: src/x402/no-such-caller.ts does not exist',
    ]);
  });
});

describe('links', () => {
  it('every relative link in README.md and docs/ resolves', () => {
    expect(brokenLinks(REPO_ROOT)).toEqual([]);
  });

  it('every docs/ section a source file cites exists', () => {
    expect(brokenCitations(REPO_ROOT)).toEqual([]);
  });

  it('reports a missing file, a missing anchor and an anchor on a non-Markdown file', () => {
    // Relative to a page in docs/ (a source path spelled from the root would count as a citation).
    const text = [
      '[a](no-such-page.md)',
      '[b](contract.md#no-such-section)',
      '[c](../package.json#scripts)',
      '[ok](contract.md#receipts) [up](../README.md#modes) [web](https://example.com/x.md) `[code](nowhere.md)`',
    ].join('\n');
    const problems = linkProblems(REPO_ROOT, 'docs/payments.md', text);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('no-such-page.md: no such file');
    expect(problems[1]).toContain('no heading or anchor "#no-such-section"');
    expect(problems[2]).toContain('needs a Markdown file');
  });

  it('derives anchors as GitHub does', () => {
    expect(slug('Token index and decisions')).toBe('token-index-and-decisions');
    expect(slug('Timing endpoints (Geyser-fed): priority-fee, tipfloor')).toBe('timing-endpoints-geyser-fed-priority-fee-tipfloor');
    expect(slug('The `/v1/decision` answer')).toBe('the-v1decision-answer');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>')]).toEqual(['a', 'a-1', 'x']);
  });

  it('the checks together find nothing in the committed docs', () => {
    expect(docsProblems()).toEqual([]);
  });
});
