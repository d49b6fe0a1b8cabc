/**
 * The stream catalog: the paid live streams at `/v1/stream/<topic>` (docs/streams.md), a kind of
 * catalog entry of its own beside the paid endpoints. A stream is sold by the period: its price
 * buys `periodSeconds` of updates. Routing, the 402 terms of a period, discovery, OpenAPI,
 * llms.txt, the storefront and the CLI read streams from here, as they read endpoints from
 * endpoints.ts. Each update's `data` is typed by the topic's TypeBox schema.
 */
import type { PricedResource } from './endpoints.ts';
import { Type, type TSchema } from './params.ts';
import { NewPoolRow } from './responses.ts';

export interface StreamEntry {
  readonly kind: 'stream';
  /** The topic, the last part of the path. */
  readonly topic: string;
  /** `/v1/stream/<topic>`. */
  readonly path: string;
  /** Price of one period in atomic stablecoin units (6 decimals): 1000 = $0.001. */
  readonly priceUnits: number;
  /** How long one period lasts, seconds. */
  readonly periodSeconds: number;
  readonly summary: string;
  readonly description: string;
  /** What triggers an update. */
  readonly cadence: string;
  /** The schema of each update's `data`. */
  readonly message: TSchema;
}

/** Where every stream is served: the prefix of its path. */
export const STREAM_PATH_PREFIX = '/v1/stream/';

const Unknown = Type.Literal('unknown');
const lamportsOrUnknown = (description: string) => Type.Union([Type.Integer({ minimum: 0, description }), Unknown]);
const microLamportsOrUnknown = (description: string) => Type.Union([Type.Number({ minimum: 0, description }), Unknown]);

const TipFloorUpdate = Type.Object({
  unit: Type.Literal('lamports'),
  slotTips: Type.Integer({ minimum: 0, description: 'Jito tips of landed transactions in this slot' }),
  slotMedian: lamportsOrUnknown('median tip of this slot; unknown when the slot had none'),
  ema: lamportsOrUnknown('EMA of per-slot median tips (the floor /v1/tipfloor reports); unknown before any tipped slot'),
  emaSlots: Type.Integer({ minimum: 0, description: 'tipped slots the EMA has absorbed' }),
});

const PriorityFeeUpdate = Type.Object({
  unit: Type.Literal('micro-lamports per compute unit'),
  transactions: Type.Integer({ minimum: 0, description: 'non-vote transactions of this slot' }),
  unpriced: Type.Integer({ minimum: 0, description: 'of which set no compute-unit price' }),
  p50: microLamportsOrUnknown('nearest-rank median of this slot; unknown for an empty slot'),
  p75: microLamportsOrUnknown('75th percentile of this slot'),
  p90: microLamportsOrUnknown('90th percentile of this slot'),
});

const SlotUpdate = Type.Object({
  status: Type.Union([Type.Literal('processed'), Type.Literal('confirmed')]),
  epoch: Type.Union([Type.Integer({ minimum: 0 }), Unknown]),
  slotIndex: Type.Union([Type.Integer({ minimum: 0 }), Unknown]),
  slotsInEpoch: Type.Union([Type.Integer({ minimum: 0 }), Unknown]),
});

// biome-ignore format: a table, one compact block per stream
const entries: readonly Omit<StreamEntry, 'kind' | 'path'>[] = [
  {
    topic: 'tipfloor', priceUnits: 1_000, periodSeconds: 10,
    summary: 'Live Jito tip floor, per confirmed slot',
    description: 'Each confirmed slot: its Jito tips (count and median, lamports) and the EMA of per-slot median tips, as the Geyser stream delivers them. Paid per 10 s period.',
    cadence: 'one update per confirmed slot', message: TipFloorUpdate,
  },
  {
    topic: 'priority-fee', priceUnits: 2_000, periodSeconds: 10,
    summary: 'Live priority fees, per confirmed slot',
    description: 'Each confirmed slot: compute-unit prices of its landed non-vote transactions (p50/p75/p90, micro-lamports per CU) and how many set none. Paid per 10 s period.',
    cadence: 'one update per confirmed slot', message: PriorityFeeUpdate,
  },
  {
    topic: 'slot', priceUnits: 1_000, periodSeconds: 10,
    summary: 'Live slot and epoch position',
    description: 'Each slot as it is processed and confirmed, with its epoch, index in the epoch and epoch length. Paid per 10 s period.',
    cadence: 'one update per slot status (processed, confirmed)', message: SlotUpdate,
  },
  {
    topic: 'new-pairs', priceUnits: 1_000, periodSeconds: 10,
    summary: 'Live new liquidity pools (unvetted)',
    description: 'Each pool that appears on the market source\'s new-pools list after the stream started, pushed once, with the fields of a /v1/new-pairs row. Unvetted. Paid per 10 s period.',
    cadence: 'one update per new pool, as the market source lists it (polled every 10 s while subscribed)', message: NewPoolRow,
  },
];

/** Every paid stream. */
export const STREAM_CATALOG: readonly StreamEntry[] = Object.freeze(
  entries.map((e) => Object.freeze({ ...e, kind: 'stream' as const, path: `${STREAM_PATH_PREFIX}${e.topic}` })),
);

/** Stream by path. */
export const STREAM_BY_PATH: ReadonlyMap<string, StreamEntry> = new Map(STREAM_CATALOG.map((s) => [s.path, s]));

/**
 * The most periods one Solana `exact` payment may buy (one hour of 10 s periods). A window is paid
 * up front and cannot be refunded, so the bound caps what one mistaken payment can cost.
 */
export const STREAM_MAX_WINDOW_PERIODS = 360;

/** The networks whose `exact` payment may buy a window of several periods (docs/streams.md#paying-by-time). */
export const STREAM_WINDOW_NETWORK_PREFIX = 'solana:';

/** What the payment path sells of a stream: `periods` periods of it (default one), at the period's price each. */
export function periodResource(stream: StreamEntry, periods = 1): PricedResource {
  const bought = periods === 1 ? `One payment buys ${stream.periodSeconds} s.` : `This payment buys ${periods} periods of ${stream.periodSeconds} s.`;
  return { path: stream.path, priceUnits: stream.priceUnits * periods, description: `${stream.description} ${bought}` };
}
