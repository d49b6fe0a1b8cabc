#!/usr/bin/env node
/**
 * `npm test`: the lint (`biome ci .`) and the type checks (`tsgo --noEmit -p .`, then `-p web`) run
 * beside `vitest run` instead of before it. The test run leaves a core idle much of the time (its
 * files wait on slots and confirmations), and the type check of the whole tree was about 50 s of
 * CPU with `tsc`, so in front of the tests it was that much wall time on the 2-core machine; the lint, a few
 * seconds, was the last check still in front. The checks run at a lower priority (nice 10), so the
 * tests, whose files wait on conditions under a deadline, keep the CPU they ask for. Their output
 * is printed when they end; `npm test` fails when any fails.
 * Arguments go to vitest (`npm test -- test/unit`).
 *
 * Plain JavaScript: no TypeScript loader is needed to start the tools.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The type checks run the native port of the TypeScript compiler (`@typescript/native-preview`,
 * the TypeScript team's Go build of the same checker): about 17 s of CPU over the tree where `tsc`
 * took 50 (docs/development.md, "What CI does"). `typescript` stays for what uses its API (the
 * add-endpoint test's in-process check) and for editors; both pass the tree alike.
 */
const TSGO = fileURLToPath(new URL('../node_modules/@typescript/native-preview/bin/tsgo', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const BIOME = fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url));
/** Below the tests' priority, not idle: the check still ends while the tests run. */
const TYPECHECK_NICE = 10;

/** Runs `args` under Node; resolves with its exit code and, when `capture`, what it printed. */
function run(args, { capture = false, nice = 0 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (nice !== 0) {
      try {
        setPriority(child.pid, nice);
      } catch {} // not allowed here: it runs at the same priority, only slower to finish
    }
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function typecheck() {
  const results = [];
  for (const project of ['.', 'web']) {
    const result = await run([TSGO, '--noEmit', '-p', project], { capture: true, nice: TYPECHECK_NICE });
    results.push({ name: `tsgo --noEmit -p ${project}`, ...result });
  }
  return results;
}

async function lint() {
  return { name: 'biome ci .', ...(await run([BIOME, 'ci', '.'], { capture: true, nice: TYPECHECK_NICE })) };
}

const [lintResult, types, tests] = await Promise.all([lint(), typecheck(), run([VITEST, 'run', ...process.argv.slice(2)])]);
let failed = tests.code !== 0;
for (const { name, code, output } of [lintResult, ...types]) {
  if (code === 0) console.log(`${name}: passed`);
  else {
    failed = true;
    process.stdout.write(`${name} failed:\n${output}`);
  }
}
process.exit(failed ? 1 : 0);
