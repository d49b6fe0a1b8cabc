/**
 * The client library's stream across a dropped socket (docs/client.md#streams): the real service
 * on port 0 against the embedded localnet, the client paying by channel voucher through a TCP
 * relay the test resets mid-period (the server's end of the socket closes with it, no `closing`
 * is sent). The client reconnects after its backoff and resumes with its last payment: no second
 * charge, no second ledger entry. The backoff's wait is the test's: it resolves when the test says,
 * never on the wall clock; the stream clock is the test's too.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createIntelClient } from '../../src/client/intel-client.ts';
import { DEFAULT_RECONNECT } from '../../src/client/stream-reconnect.ts';
import { evmAddressOfKey, generateEvmKey } from '../../src/chain/keys/evm-key-file.ts';
import { FULL_TRAFFIC } from '../helpers/localnet-traffic.ts';
import { manualStreamClock } from '../helpers/stream-client.ts';
import { startTcpFaultRelay, type TcpFaultRelay } from '../helpers/tcp-fault-relay.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const TEST_MS = 180_000;
const clock = manualStreamClock();
let t: TestService;
let relay: TcpFaultRelay;

beforeAll(async () => {
  t = await startTestService({ streamClock: clock }, [], FULL_TRAFFIC);
  relay = await startTcpFaultRelay(Number(new URL(t.url).port));
}, 120_000);
afterAll(async () => {
  await relay?.close();
  await t?.close();
});

const entries = () => t.service.ledger.head().treeSize;

async function fundedClient() {
  const evmKey = generateEvmKey();
  await t.localnet!.evm.fundUsdc(evmAddressOfKey(evmKey), 1_000_000n);
  return createIntelClient({ url: relay.url, evmKey, anyAsset: true, depositCalls: 20 });
}

/** A backoff wait the test releases: each call is recorded, and resolves when `release` is called. */
function heldWaits() {
  const asked: number[] = [];
  let release: (() => void) | null = null;
  return {
    asked,
    wait: (ms: number) => {
      asked.push(ms);
      return new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release?.(),
  };
}

describe('client.stream after a dropped socket', () => {
  it(
    'reconnects after its backoff and resumes the paid period with its last payment: no second charge',
    async () => {
      const client = await fundedClient();
      const waits = heldWaits();
      const stop = new AbortController();
      const slots: number[] = [];
      relay.mode = 'pass';
      const ended = client.stream('tipfloor', { signal: stop.signal, onUpdate: (u) => slots.push(u.slot as number), reconnect: { wait: waits.wait } });
      await vi.waitUntil(() => slots.length > 0, { timeout: 60_000 });
      const charged = entries();

      // Mid-period: the connection is cut under both ends.
      relay.mode = 'reset';
      await vi.waitUntil(() => waits.asked.length === 1, { timeout: 60_000 });
      expect(waits.asked).toEqual([DEFAULT_RECONNECT.firstDelayMs]);
      const seen = slots.length;
      relay.mode = 'pass';
      waits.release();
      await vi.waitUntil(() => slots.length > seen + 1, { timeout: 60_000 });
      expect(entries()).toBe(charged);

      stop.abort();
      const result = await ended;
      expect(result).toMatchObject({ reason: 'ended', periods: 1, paidUnits: 1000n, reconnects: 1 });
      expect(result.receipts).toHaveLength(1);
      expect(client.totals()).toMatchObject({ chargedUnits: 1000n, heldUnits: 0n });
      expect(entries()).toBe(charged);
      client.close();
    },
    TEST_MS,
  );

  it(
    'gives up after its attempts in a row, each wait doubling; nothing more is charged',
    async () => {
      const client = await fundedClient();
      const asked: number[] = [];
      const slots: number[] = [];
      relay.mode = 'pass';
      const ended = client.stream('tipfloor', {
        onUpdate: (u) => slots.push(u.slot as number),
        reconnect: { attempts: 3, wait: async (ms) => void asked.push(ms) },
      });
      await vi.waitUntil(() => slots.length > 0, { timeout: 60_000 });
      const charged = entries();
      relay.mode = 'reset';
      const result = await ended;
      relay.mode = 'pass';
      expect(asked).toEqual([250, 500, 1000]);
      expect(result).toMatchObject({ reason: 'closed', periods: 1, reconnects: 3 });
      expect(entries()).toBe(charged);
      client.close();
    },
    TEST_MS,
  );

  it(
    'a closing the service means (a lapse) is not reconnected',
    async () => {
      const client = await fundedClient();
      const asked: number[] = [];
      const slots: number[] = [];
      relay.mode = 'pass';
      const ended = client.stream('tipfloor', { onUpdate: (u) => slots.push(u.slot as number), reconnect: { wait: async (ms) => void asked.push(ms) } });
      await vi.waitUntil(() => slots.length > 0, { timeout: 60_000 });
      // One move far past the window: the wheel's one look finds it lapsed before any renew was said.
      clock.advance(60_000);
      const result = await ended;
      expect(result).toMatchObject({ reason: 'lapsed', reconnects: 0 });
      expect(asked).toEqual([]);
      client.close();
    },
    TEST_MS,
  );
});
