/**
 * Keeps the suite free of guessed sleeps, wall-clock assertions and assertions that cannot fail.
 * A test waits on the event or condition it needs (`vi.waitUntil`, `vi.waitFor`, a promise that
 * the code under test resolves) and moves an injected clock instead of the real one: a sleep is a
 * guess that fails on a loaded machine and wastes time on an idle one. Timers are allowed only
 * where the allow-list below says why (a delay that is itself the fault under test, or a deadline
 * that fails a wait with what it saw).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/** Every timer in test sources, with the reason it is not a guessed wait. Counts are exact: a new timer needs its own entry. */
const ALLOWED: readonly { readonly file: string; readonly rule?: string; readonly count: number; readonly why: string }[] = [
  { file: 'test/helpers/tcp-fault-relay.ts', count: 1, why: "'slow' mode delays the bytes it forwards: the delay is the fault under test" },
  { file: 'test/helpers/fault-proxy.ts', count: 1, why: "'slow' mode delays the upstream's answer: the delay is the fault under test" },
  { file: 'test/helpers/fixture-upstream.ts', count: 1, why: "a reply's delayMs makes a slow upstream: the delay is the fault under test" },
  {
    file: 'test/helpers/postgres.ts',
    count: 1,
    why: 'polls an outside process (the cluster starting, a database held by autovacuum) and is shared with bench/, where vitest is absent',
  },
  { file: 'test/helpers/postgres.ts', rule: 'sleep helper', count: 1, why: 'the pause between those polls (see the timer above)' },
  { file: 'test/helpers/service-process.ts', count: 1, why: 'a deadline: kills a service that never printed its listening line and fails with its output' },
  {
    file: 'packages/localnet/test/integration/localnet-rpc-harness.ts',
    count: 1,
    why: "the test chain's slot ticker: it drives the chain, no test waits on its period",
  },
  { file: 'packages/localnet/test/integration/geyser-test-client.ts', count: 1, why: 'a deadline: fails a stream wait with the updates seen' },
  {
    file: 'test/adversarial/witness-limits.test.ts',
    count: 1,
    why: 'a slow client trickles its request a few bytes at a time: the pace is the attack under test',
  },
  {
    file: 'test/integration/pg-instances.test.ts',
    count: 1,
    why: "a paying client's back-off between refusals, so a load generator does not spin; nothing waits on it",
  },
];

/** What a test must not contain, and what to do instead. */
const RULES: readonly { readonly name: string; readonly pattern: RegExp; readonly instead: string }[] = [
  { name: 'timer', pattern: /\bset(?:Timeout|Interval)\s*\(/g, instead: 'wait on the event or condition (vi.waitUntil, vi.waitFor), or list it in ALLOWED' },
  { name: 'timers/promises', pattern: /['"](?:node:)?timers\/promises['"]/g, instead: 'a promised sleep is still a guessed sleep' },
  { name: 'sleep helper', pattern: /\b(?:sleep|delay)\s*=\s*(?:async\s*)?\(|function\s+(?:sleep|delay)\b/g, instead: 'wait on the condition, not on time' },
  {
    name: 'wall-clock assertion',
    pattern: /expect(?:\.soft)?\([^;\n]*\b(?:Date|performance)\.now\(\)/g,
    instead: 'inject a clock (test/helpers/manual-clock.ts) or assert an order of events',
  },
  {
    name: 'tautology',
    pattern: /\.toBeGreaterThanOrEqual\(0\)|\.toBeGreaterThan\(-1\)|expect\((true|false)\)\.toBe\(\1\)/g,
    instead: 'assert the value the code must produce',
  },
  { name: 'self comparison', pattern: /expect\(([\w.]+)\)\.(?:toBe|toEqual)\(\1\)/g, instead: 'compare with an independent value' },
];

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:ts|mts|js|mjs)$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const packageTests = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .flatMap((e) => {
    try {
      return sources(join('packages', e.name, 'test'));
    } catch {
      return [];
    }
  });
const FILES = [...sources('test'), ...packageTests].filter((f) => f !== SELF).sort();

/** `file:line: text` of every match of `pattern` in `text`. */
function hits(file: string, text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => `${file}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`);
}

describe('test sources wait on events, not on time', () => {
  it('finds the test sources', () => {
    expect(FILES).toContain('test/helpers/test-service.ts');
    expect(FILES).toContain('packages/localnet/test/integration/localnet-rpc-harness.ts');
  });

  for (const rule of RULES) {
    it(`has no ${rule.name} (${rule.instead})`, () => {
      const found: string[] = [];
      for (const file of FILES) {
        const matches = hits(file, readFileSync(join(ROOT, file), 'utf8'), rule.pattern);
        const allowed = ALLOWED.find((a) => a.file === file && (a.rule ?? 'timer') === rule.name)?.count ?? 0;
        if (matches.length !== allowed) found.push(...(matches.length > 0 ? matches : [`${file}: allowed ${allowed}, found none`]));
      }
      expect(found).toEqual([]);
    });
  }

  it('catches what it is meant to catch', () => {
    const caught = (source: string) => RULES.filter((r) => hits('x.ts', source, r.pattern).length > 0).map((r) => r.name);
    expect(caught('await new Promise((r) => setTimeout(r, 400));')).toEqual(['timer']);
    expect(caught("import { setTimeout as wait } from 'node:timers/promises';")).toEqual(['timers/promises']);
    expect(caught('const sleep = (ms: number) => new Promise((r) => r(ms));')).toEqual(['sleep helper']);
    expect(caught('expect(performance.now() - started).toBeLessThan(3200);')).toEqual(['wall-clock assertion']);
    expect(caught('expect(body.ageMs).toBeGreaterThanOrEqual(0);')).toEqual(['tautology']);
    expect(caught('expect(t1).toBe(t1);')).toEqual(['self comparison']);
    expect(caught("vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] }); expect(clock.now()).toBe(5);")).toEqual([]);
  });
});
