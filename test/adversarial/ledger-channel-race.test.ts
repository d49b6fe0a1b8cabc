/**
 * Attack (issue 28 row 9, first half): two instances on one PostgreSQL race one channel with the
 * same voucher. Before the fix each instance appended the ledger entry (with the receipt) before
 * storing the charge, so the loser, refused `channel_busy` for a call it never charged, left a
 * ledger entry behind. Now the charge takes the channel's revision first: one entry per charge.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/evm-key-file.ts';
import { loadConfig } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/service.ts';
import { createPgClient, type PgClient } from '../../src/store/pg-client.ts';
import { channelOf, channelPayer, channelTerms, voucherHeader } from '../helpers/channel-payer.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { startTestLocalnet, type TestService } from '../helpers/test-service.ts';

const PRICE = 1000n;
const ROUNDS = 8;
let db: TestDatabase;
let client: PgClient;
let root: string;
let localnet: NonNullable<TestService['localnet']>;
const services: RunningService[] = [];

beforeAll(async () => {
  db = await createTestDatabase('adversarial-ledger-race');
  root = mkdtempSync(join(tmpdir(), 'ledger-race-'));
  const started = await startTestLocalnet('adversarial-ledger-race');
  localnet = started.localnet;
  const authorizer = join(root, 'authorizer.key');
  writeFileSync(authorizer, generateEvmKey(), { mode: 0o600 });
  const shared = ['--database-url', db.url, '--keypair', join(root, 'identity.json'), '--evm-pay-to', evmAddressOfKey(generateEvmKey())];
  const channels = ['--channel-authorizer-key', authorizer, '--channel-claim-threshold', '999999999', '--channel-claim-age', '999999'];
  for (let i = 0; i < 2; i++) {
    const argv = ['--port', '0', '--admin-port', '0', '--data-dir', join(root, `instance-${i}`), '--free-rate-per-second', '0', ...shared, ...channels];
    services.push(await startService(loadConfig({}, argv), { upstreams: started.upstreams }));
  }
  client = createPgClient({ url: db.url });
}, 180_000);
afterAll(async () => {
  await client?.close();
  for (const s of services) await s.close();
  await localnet?.close();
  await db?.drop();
  rmSync(root, { recursive: true, force: true });
});

const paymentEntries = async (): Promise<number> =>
  Number((await client.query<{ n: string }>(`select count(*) as n from ledger_entries where line like '%"kind":"payment"%'`, []))[0]!.n);

describe('one voucher raced on two instances', () => {
  it('leaves exactly one ledger entry per charge: none for the instance that lost the channel', async () => {
    const [a, b] = services.map((s) => s.url);
    const terms = await channelTerms(`${a}/v1/epoch`);
    const payer = await channelPayer(localnet.evm, 1_000_000n, 100n * PRICE);
    expect((await payer.pay(`${a}/v1/epoch`)).status).toBe(200);
    const { config, channelId } = channelOf(payer, terms);
    let charges = 1;
    for (let round = 0; round < ROUNDS; round++) {
      const header = await voucherHeader(terms, payer.key, config, channelId, BigInt(charges + 1) * PRICE);
      const replies = await Promise.all([a, b].map((url) => fetch(`${url}/v1/epoch`, { headers: { 'PAYMENT-SIGNATURE': header } })));
      await Promise.all(replies.map((r) => r.arrayBuffer()));
      expect(replies.some((r) => r.status === 200)).toBe(true);
      charges++;
    }
    expect(await paymentEntries()).toBe(charges);
  }, 120_000);
});
