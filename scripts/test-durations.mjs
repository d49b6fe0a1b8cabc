#!/usr/bin/env node
/**
 * Writes test/file-durations.json, the per-file durations the test order is made from
 * (test/helpers/slowest-first-sequencer.ts), from a vitest JSON report:
 *
 *   npx vitest run --reporter=json --outputFile=/tmp/report.json
 *   node scripts/test-durations.mjs /tmp/report.json [root the run was made in, default this one]
 *
 * Only the ranking matters (longest first), so a run on a busy machine serves; seconds are rounded
 * to a tenth and the paths sorted, so a new report changes only the lines that moved.
 * Plain JavaScript: no TypeScript loader is needed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = fileURLToPath(new URL('../test/file-durations.json', import.meta.url));

const [reportPath, runRoot = ROOT] = process.argv.slice(2);
if (!reportPath) {
  console.error('usage: node scripts/test-durations.mjs <vitest JSON report> [root of that run]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const seconds = {};
for (const file of report.testResults ?? []) {
  if (typeof file.startTime !== 'number' || typeof file.endTime !== 'number') continue;
  seconds[relative(runRoot, file.name)] = Math.round((file.endTime - file.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(OUT, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/file-durations.json: ${Object.keys(sorted).length} files`);
