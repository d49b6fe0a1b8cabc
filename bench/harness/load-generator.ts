/**
 * A closed-loop HTTP load generator on node:http with keep-alive: `connections` loops each send
 * the next request when the previous answer is read. Run in its own process so it never competes
 * with the server's event loop. Prints one JSON line: requests, rps, statuses, latency percentiles.
 */
import { Agent, request } from 'node:http';

const [url, connectionsArg, secondsArg] = process.argv.slice(2);
if (!url) throw new Error('usage: load-generator URL [connections] [seconds]');
const connections = Number(connectionsArg ?? 32);
const durationMs = Number(secondsArg ?? 5) * 1000;
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const target = new URL(url);
const latencies: number[] = [];
const statuses: Record<number, number> = {};
let done = 0;
const deadline = performance.now() + durationMs;

function once(): Promise<void> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: target.hostname, port: target.port, path: `${target.pathname}${target.search}` }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
        latencies.push(performance.now() - started);
        done++;
        resolve();
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function loop(): Promise<void> {
  while (performance.now() < deadline) await once();
}

const t0 = performance.now();
await Promise.all(Array.from({ length: connections }, loop));
const seconds = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const pct = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 1000) / 1000;
console.log(JSON.stringify({ requests: done, rps: Math.round(done / seconds), statuses, latencyMs: { p50: pct(0.5), p99: pct(0.99) } }));
agent.destroy();
