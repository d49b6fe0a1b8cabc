/**
 * Composition root: loadConfig -> the ports and the data directory checked (nothing is built or
 * written before; a second copy on a busy port says so at once) -> the embedded localnet's process
 * started when no upstream is configured, building its world while the service opens its data
 * directory's state (identity, ledger, payment state) -> startService, which asks for the
 * upstreams once that state opened, so a directory it refuses (a corrupt ledger) stops the
 * localnet before it has written anything -> listen. SIGINT/SIGTERM stop accepting, let in-flight
 * requests finish (for at most the drain time), close the ledger, then the localnet, and exit 0;
 * a second signal exits at once. A localnet that dies stops the service (exit 1): its chain is gone.
 *
 * The only place the service reaches the localnet package, and only through a dynamic import of
 * its process starter, which loads nothing of the chain: LiteSVM, EDR and the gRPC server run in
 * the localnet's own process, off this event loop, and mainnet mode never starts it.
 */
import { join } from 'node:path';
import { format } from 'node:util';
import { helpText, loadConfig, type Config } from './config.ts';
import { ConfigError, InUseError, logText } from './errors.ts';
import { ABORT_GRACE_MS, DRAIN_TIMEOUT_MS } from './http/server/server.ts';
import { createLogRedactor } from './log-redactor.ts';
import type { RunningService, Upstreams } from './service/service.ts';
import { UPSTREAM_CLOSE_MS } from './service/close-within.ts';
import { lockDataDir } from './service/data-dir-lock.ts';
import { checkStart } from './service/start-checks.ts';

/** How long the localnet's process may take to save its state and stop (it is killed after: the save is atomic). */
const LOCALNET_CLOSE_MS = 15_000;
/** The latest a SIGINT/SIGTERM exits: the drain, the state files, the upstreams, the localnet, and a margin. */
const SHUTDOWN_DEADLINE_MS = DRAIN_TIMEOUT_MS + ABORT_GRACE_MS + UPSTREAM_CLOSE_MS + LOCALNET_CLOSE_MS + 5_000;

/** Until the options are read, only the URLs a library writes into its errors are cut. */
let redact = createLogRedactor({});

/** Every line the process prints passes the redactor: a fault's details reach the log, its secrets do not. */
function redactConsole(): void {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const write = console[level].bind(console);
    console[level] = (...args: unknown[]) => write(redact(format(...args)));
  }
}

/** The running localnet process, as main uses it. */
type LocalnetChild = Awaited<ReturnType<typeof import('@solana-x402-intel/localnet/spawn').spawnLocalnet>>;

/** Seconds since `from`, for the progress lines. */
const since = (from: number): string => `${((performance.now() - from) / 1000).toFixed(1)} s`;

/** Starts the localnet's process now; its world builds while the service opens its own state. */
async function startLocalnetProcess(config: Config): Promise<LocalnetChild> {
  const started = performance.now();
  const { spawnLocalnet } = await import('@solana-x402-intel/localnet/spawn');
  const { fresh, worldDir, ...chain } = config.localnet;
  const state = { dir: join(config.dataDir, 'localnet'), fresh };
  const world = worldDir ? { worldSnapshotDir: worldDir } : {};
  const child = await spawnLocalnet({ host: '127.0.0.1', ...chain, state, ...world }, (line) => console.log(`localnet: ${line}`));
  const kept = child.state ? (child.state.restored ? `state restored from ${child.state.dir}` : `new state in ${child.state.dir}`) : 'state not kept';
  console.log(`localnet ready in ${since(started)} (process ${child.pid}; ${kept})`);
  for (const [name, url] of Object.entries(child.urls)) console.log(`localnet ${name} ${url}`);
  console.log(`localnet stablecoin ${child.stablecoinMint} (solana), ${child.upstreams.evm.asset} (evm)`);
  return child;
}

function mainnetUpstreams(config: Config): Upstreams {
  const market = { jupiter: config.jupiterUrl, geckoterminal: config.geckoterminalUrl, magiceden: config.magicedenUrl, lending: config.lendingUrl };
  return { rpcUrl: config.rpcUrl!, geyserUrl: config.geyserUrl!, geyserToken: config.geyserToken, market };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(helpText());
    return;
  }
  const started = performance.now();
  const config = loadConfig(process.env, argv);
  redact = createLogRedactor(config);
  await checkStart(config);
  // Held until exit; taken before the localnet starts, so a second start on this directory fails at once.
  lockDataDir(config.dataDir);
  const localnetStart = config.mode === 'embedded' ? startLocalnetProcess(config) : null;
  // Read once the service's own state opened; until then a failure here waits for it.
  localnetStart?.catch(() => {});
  const upstreams = async (): Promise<Upstreams> => {
    if (!localnetStart) return mainnetUpstreams(config);
    const child = await localnetStart;
    return { ...child.upstreams, prepareAccounts: (accounts) => child.prepareAccounts(accounts) };
  };
  let service: RunningService;
  try {
    console.log(`opening ${config.dataDir} (identity, ledger, payment state) and starting the service`);
    // Loaded now, not with this file: the localnet's process builds its world while the service's modules load.
    const { startService } = await import('./service/service.ts');
    service = await startService(config, { upstreams });
  } catch (err) {
    // A refused data directory: the localnet (nothing written yet) goes with the service.
    await localnetStart?.then((child) => child.close()).catch(() => {});
    throw err;
  }
  // Resolved by now: the service asked for its upstreams before it listened.
  const localnet = localnetStart ? await localnetStart : null;
  if (service.identity.created) console.log(`created identity keypair ${config.keypairPath} (mode 0600)`);
  console.log(`identity ${service.identity.publicKey}`);
  // The password is never printed: `where` is the URL with it replaced by ***.
  if (service.storage.kind === 'postgres') console.log(`payment state in postgres ${service.storage.where}`);
  console.log(`admin ${service.adminUrl} (kill switch${service.adminTokenPath ? `; bearer token in ${service.adminTokenPath}` : ''})`);
  console.log(`listening ${service.url} (port ${service.port}, ${config.mode} mode) ${since(started)} after start`);

  stopOnSignals(service, localnet);
}

/**
 * SIGINT/SIGTERM: drain, close, then the localnet; a second signal exits at once. A localnet that
 * dies stops the service too (exit 1): without its chain it can take no payment.
 */
function stopOnSignals(service: RunningService, localnet: LocalnetChild | null): void {
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) {
      console.error(`${signal} again: exiting at once`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: draining in-flight requests (at most ${DRAIN_TIMEOUT_MS / 1000} s; a second signal exits at once)`);
    // The close is bounded by construction; this backstop holds even if a part of it is not.
    setTimeout(() => {
      console.error(`shutdown did not finish within ${SHUTDOWN_DEADLINE_MS} ms: exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    const { unclosed } = await service.close();
    if (unclosed.length > 0) console.error(`not closed in time, left to the exit: ${unclosed.join(', ')} (the ledger is closed)`);
    await localnet?.close();
    console.log('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // Watched: without its chain the service can take no payment, so it stops too, and says why.
  void localnet?.exited.then(({ code, signal }) => {
    if (stopping) return;
    console.error(`the localnet process exited (${signal ?? `code ${code}`}): stopping the service`);
    void stop('localnet exit', 1);
  });
}

redactConsole();
// Node would print an escaped fault itself, past the redactor.
process.on('uncaughtException', (err) => {
  console.error(`fatal: ${logText(err)}`);
  process.exit(1);
});

main().catch((err: unknown) => {
  // Another process holds our port or data directory: the message says which.
  if (err instanceof InUseError) {
    console.error(err.message);
    process.exit(2);
  }
  if (err instanceof ConfigError) {
    console.error(err.message);
    console.error('run with --help for the list of options');
    process.exit(2);
  }
  // undici's "fetch failed" says nothing by itself: the system error (code, address) is its cause.
  console.error(`fatal: ${logText(err)}`);
  process.exit(1);
});
