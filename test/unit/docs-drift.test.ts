/**
 * The docs stay true to the code: every table that copies code (options, catalog, error codes)
 * is exactly what scripts/generate-docs.ts renders from the code now, every relative link in
 * README.md and docs/ resolves to a file and anchor of the repository, and every
 * `docs/<page>.md#<anchor>` a source comment cites exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenCitations, brokenLinks, docFiles, linkProblems, slug } from '../../scripts/docs-links.ts';
import { docsProblems, driftedRegions, GENERATORS, regenerate, regionsOf, REPO_ROOT } from '../../scripts/generate-docs.ts';

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
