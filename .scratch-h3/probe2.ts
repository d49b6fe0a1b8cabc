import { LiteSVM } from 'litesvm';
import { address, lamports } from '@solana/kit';
const loader = address('BPFLoaderUpgradeab1e11111111111111111111111');
function tryset(name: string, addr: string, data: Uint8Array, exec: boolean, owner = loader) {
  const svm = new LiteSVM();
  try { svm.setAccount({ address: address(addr), lamports: lamports(10_000_000n), programAddress: owner, executable: exec, data, space: BigInt(data.length) } as any); console.log(name, 'ok'); }
  catch (e) { console.log(name, 'FAIL', (e as Error).message); }
}
const pd45 = new Uint8Array(45); pd45[0] = 3;
tryset('pd45 nonexec', 'HookData11111111111111111111111111111111111', pd45, false);
const prog = new Uint8Array(36); prog[0] = 2;
tryset('prog exec', 'HookProg11111111111111111111111111111111111', prog, true);
tryset('prog nonexec', 'HookProg11111111111111111111111111111111111', prog, false);
tryset('random owner exec', 'HookProg11111111111111111111111111111111111', prog, true, address('Hook111111111111111111111111111111111111111'));
const buf = new Uint8Array(37); buf[0]=1;
tryset('buffer', 'HookProg11111111111111111111111111111111111', buf, false);
