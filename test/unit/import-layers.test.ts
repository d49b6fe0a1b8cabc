/**
 * The layers of the service, kept true: every file of src/ and workers/ imports only its own
 * layer and the layers below, no files import each other in a loop, and each outside library is
 * imported only by its owner. A failure names the file and the import that breaks the rule.
 */
import { posix } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkImports, readSources, repositoryRoot } from '../helpers/import-layers.ts';
import { CLI_REACH, CLIENT_REACH, LAYER_RULES as RULES } from '../helpers/layer-map.ts';

/** Every import of a file under `folder` that resolves into the repository outside `reach`. */
function overreach(files: ReadonlyMap<string, string>, folder = 'src/cli/', reach: readonly string[] = CLI_REACH, who = 'the CLI'): string[] {
  const problems: string[] = [];
  for (const [file, source] of files) {
    if (!file.startsWith(folder)) continue;
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), fileName));
      if (target === 'package.json') continue;
      if (!reach.some((place) => (place.endsWith('/') ? target.startsWith(place) : target === place)))
        problems.push(`${file} imports '${fileName}': ${who} reaches only ${reach.join(', ')}`);
    }
  }
  return problems;
}

describe('import layers', () => {
  it('src/ and workers/ keep the layer map: no upward import, no circle, libraries only at their owners', () => {
    const files = readSources(repositoryRoot(import.meta.url), ['src', 'workers']);
    expect(files.size).toBeGreaterThan(100);
    expect(checkImports(files, RULES)).toEqual([]);
  });

  it('src/cli/ imports only what a client needs: src/client, src/receipt-checks, src/catalog, src/chain, errors.ts', () => {
    const files = readSources(repositoryRoot(import.meta.url), ['src']);
    expect([...files.keys()].filter((f) => f.startsWith('src/cli/')).length).toBeGreaterThan(5);
    expect(overreach(files)).toEqual([]);
    const synthetic = new Map([['src/cli/bad.ts', "import { x } from '../x402/types/paid-call.ts';\nimport { y } from '../receipt-checks/receipt-check.ts';"]]);
    expect(overreach(synthetic)).toEqual([`src/cli/bad.ts imports '../x402/types/paid-call.ts': the CLI reaches only ${CLI_REACH.join(', ')}`]);
  });

  it('src/client/ (the library bots import) reaches only what ships to a bot: no serving side, not the witness', () => {
    const files = readSources(repositoryRoot(import.meta.url), ['src']);
    expect([...files.keys()].filter((f) => f.startsWith('src/client/')).length).toBeGreaterThan(5);
    expect(overreach(files, 'src/client/', CLIENT_REACH, 'the client library')).toEqual([]);
    const synthetic = new Map([
      ['src/client/bad.ts', "import { s } from '../x402/stores/s.ts';\nimport { w } from '../witness/w.ts';\nimport { c } from '../catalog/endpoints.ts';"],
    ]);
    expect(overreach(synthetic, 'src/client/', CLIENT_REACH, 'the client library')).toEqual([
      `src/client/bad.ts imports '../x402/stores/s.ts': the client library reaches only ${CLIENT_REACH.join(', ')}`,
      `src/client/bad.ts imports '../witness/w.ts': the client library reaches only ${CLIENT_REACH.join(', ')}`,
    ]);
  });

  it('the check finds what it forbids (a synthetic tree)', () => {
    const files = new Map([
      ['src/chain/low.ts', "import type { Up } from '../x402/up.ts';\nexport const v = () => import('../http/server/route.ts');"],
      ['src/x402/up.ts', "export { a } from './a.ts';\nimport uWS from 'uWebSockets.js';"],
      ['src/x402/a.ts', "import type { Up } from './up.ts';\ntype W = typeof import('./a.ts');"],
      ['src/http/server/route.ts', "import { leftPad } from 'left-pad';"],
      ['src/intel/x.ts', "import { startLocalnet } from '../localnet/start.ts';"],
      ['src/main.ts', "import { startLocalnet } from './localnet/start.ts';"],
      ['src/localnet/start.ts', "import { anything } from '../service.ts';"],
      ['src/stray.ts', ''],
      ['src/x402/types/low.ts', "import { s } from '../stores/s.ts';"],
      ['src/x402/stores/s.ts', "import type { T } from '../types/t.ts';"],
      ['src/x402/types/t.ts', ''],
      ['src/x402/channels/c.ts', "import { e } from '../exact/e.ts';\nimport { t } from '../types/t.ts';"],
      ['src/x402/exact/e.ts', ''],
    ]);
    expect(checkImports(files, RULES).sort()).toEqual([
      'import circle: src/x402/a.ts -> src/x402/up.ts',
      "src/chain/low.ts imports '../http/server/route.ts': chain may not import http (a higher layer)",
      "src/chain/low.ts imports '../x402/up.ts': chain may not import x402 (a higher layer)",
      "src/http/server/route.ts imports 'left-pad': the library has no owner in the library map",
      "src/intel/x.ts imports '../localnet/start.ts': only src/main.ts may import src/localnet/",
      'src/stray.ts is in no layer: place it in the layer map',
      'src/x402/a.ts is in no folder of x402: place it in the layer map',
      "src/x402/channels/c.ts imports '../exact/e.ts': x402/channels may not import x402/exact (a sibling)",
      "src/x402/types/low.ts imports '../stores/s.ts': x402/types may not import x402/stores (a higher layer)",
      "src/x402/up.ts imports 'uWebSockets.js': only src/http/ may import uWebSockets.js",
      'src/x402/up.ts is in no folder of x402: place it in the layer map',
    ]);
  });
});
