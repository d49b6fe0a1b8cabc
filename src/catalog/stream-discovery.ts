/**
 * What the discovery documents say of the paid streams, from the stream catalog: the
 * `/.well-known/x402` `streams` member (each stream's WebSocket URL, its period and price, and the
 * `accepts` of one period, the same terms its first message offers), the llms.txt section and the
 * OpenAPI paths (a plain GET answers 426; the profile is docs/streams.md).
 */
import { formatUsd } from './format-usd.ts';
import { STREAM_CATALOG, STREAM_MAX_WINDOW_PERIODS, STREAM_WINDOW_NETWORK_PREFIX } from './streams.ts';

/** A Solana `exact` payment may buy up to this many periods at once (stream-window.ts). */
const EXACT_WINDOW = Object.freeze({ network: `${STREAM_WINDOW_NETWORK_PREFIX}*`, maxPeriods: STREAM_MAX_WINDOW_PERIODS });

/** What of the discovery context the streams read (discovery.ts's DiscoveryContext has it). */
interface StreamDiscoveryContext {
  readonly baseUrl: string;
  readonly acceptsFor: (entry: { readonly path: string }) => readonly unknown[];
}

const wsUrl = (ctx: Pick<StreamDiscoveryContext, 'baseUrl'>, path: string) => `${ctx.baseUrl.replace(/^http/, 'ws')}${path}`;

/** The `streams` member of `/.well-known/x402`. */
export function wellKnownStreams(ctx: StreamDiscoveryContext): object[] {
  return STREAM_CATALOG.map((s) => ({
    resource: wsUrl(ctx, s.path),
    type: 'websocket',
    x402Version: 2,
    profile: 'docs/streams.md: x402 over WebSocket, paid by the period',
    accepts: ctx.acceptsFor(s),
    description: s.description,
    metadata: {
      topic: s.topic,
      periodSeconds: s.periodSeconds,
      pricePerPeriod: formatUsd(s.priceUnits),
      cadence: s.cadence,
      exactWindow: EXACT_WINDOW,
      update: s.message,
    },
  }));
}

/** The llms.txt section of the streams. */
export function llmsTxtStreams(ctx: StreamDiscoveryContext): string[] {
  return [
    '',
    '## Paid live streams (WebSocket)',
    '',
    `Connect; the first message is {"type":"payment-required"} with the x402 PaymentRequired of one period. Send {"type":"payment","payment":<x402 PaymentPayload>} (a Base channel voucher for one period, or a Solana exact payment of n periods: amount = n x the period price, n at most ${STREAM_MAX_WINDOW_PERIODS}); updates follow while paid, {"type":"renew"} comes 2 s before the window ends, {"type":"closing","reason":…} ends it. Reconnect with the last payment to resume a paid window without a second charge.`,
    '',
    ...STREAM_CATALOG.map((s) => `- ${wsUrl(ctx, s.path)} ${formatUsd(s.priceUnits)} per ${s.periodSeconds} s (${s.cadence}): ${s.description}`),
  ];
}

/** The OpenAPI paths of the streams. */
export function openApiStreams(ctx: StreamDiscoveryContext): Record<string, object> {
  const paths: Record<string, object> = {};
  for (const s of STREAM_CATALOG) {
    paths[s.path] = {
      get: {
        operationId: `stream${s.topic.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}`,
        summary: `${s.summary} (WebSocket)`,
        description: `${s.description} A WebSocket stream (docs/streams.md): a plain GET answers 426.`,
        tags: ['streams'],
        'x-x402-stream': {
          url: wsUrl(ctx, s.path),
          periodSeconds: s.periodSeconds,
          pricePerPeriod: formatUsd(s.priceUnits),
          exactWindow: EXACT_WINDOW,
          update: s.message,
        },
        responses: { '426': { description: 'Upgrade required: connect with a WebSocket client' } },
      },
    };
  }
  return paths;
}
