/**
 * The compiled contracts are committed (a compile costs about 10 s of CPU a first start should not
 * pay): each artifact must be built from the sources beside it and the solc installed, or the
 * localnet would deploy code that is not what the sources say. Edit a .sol without
 * `npm run build:contracts`, or move solc in the lockfile, and this fails.
 */
import { describe, expect, it } from 'vitest';
import { staleArtifacts } from '../../src/evm/compile-contracts.ts';

describe('the committed contract artifacts', () => {
  it('are built from the sources and the solc at hand', () => {
    expect(staleArtifacts()).toBeNull();
  });
});
