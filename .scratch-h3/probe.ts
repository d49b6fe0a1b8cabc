import { LiteSVM } from 'litesvm';
import { address, lamports } from '@solana/kit';
import { encodeMintAccount } from '../src/chain/token-extensions.ts';
const svm = new LiteSVM();
const loader = address('BPFLoaderUpgradeab1e11111111111111111111111');
const prog = address('HookProg11111111111111111111111111111111111');
const pd = address('HookData11111111111111111111111111111111111');
const progData = new Uint8Array(36); progData[0] = 2; 
try {
  svm.setAccount({ address: pd, lamports: lamports(10_000_000n), programAddress: loader, executable: false, data: new Uint8Array(45 + 8), space: 53n } as any);
  svm.setAccount({ address: prog, lamports: lamports(10_000_000n), programAddress: loader, executable: true, data: progData, space: 36n } as any);
  console.log('set ok', svm.getAccount(prog));
} catch (e) { console.log('set failed', e); }
const bpf2 = address('BPFLoader2111111111111111111111111111111111');
try {
  svm.setAccount({ address: address('HookProg21111111111111111111111111111111111'), lamports: lamports(10_000_000n), programAddress: bpf2, executable: true, data: new Uint8Array(10), space: 10n } as any);
  console.log('bpf2 ok');
} catch (e) { console.log('bpf2 failed', e); }
console.log(svm.getAccount(address('So11111111111111111111111111111111111111112')));
console.log(svm.getClock(), svm.getEpochSchedule());
console.log('blockhash', svm.latestBlockhash(), new LiteSVM().latestBlockhash());
