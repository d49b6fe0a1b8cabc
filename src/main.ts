/**
 * Composition root: loadConfig -> lock the data directory -> startService, which opens the data
 * directory's state (identity, ledger, payment state) and only then asks for the upstreams: the
 * embedded localnet starts here when no upstream is configured, so a data directory the service
 * refuses (a corrupt ledger) is refused before the localnet is built -> listen. SIGINT/SIGTERM
 * stop accepting, let in-flight requests finish (for at most the drain time), close the ledger,
 * then the upstreams, and exit 0; a second signal exits at once. The only place the service
 * reaches the localnet package, and only through a dynamic import, so mainnet mode never loads
 * LiteSVM, EDR or the gRPC server.
 */
import { format } from 'node:util';
import { helpText, loadConfig, type Config } from './config.ts';
import { ConfigError, InUseError, logText } from './errors.ts';
import { ABORT_GRACE_MS, DRAIN_TIMEOUT_MS } from './http/server.ts';
import { createLogRedactor } from './log-redactor.ts';
import { startService, type Upstreams } from './service.ts';
import { UPSTREAM_CLOSE_MS } from './service/close-within.ts';
import { lockDataDir } from './service/data-dir-lock.ts';

/** The latest a SIGINT/SIGTERM exits: the drain, the state files, the upstreams, and a margin. */
const SHUTDOWN_DEADLINE_MS = DRAIN_TIMEOUT_MS + ABORT_GRACE_MS + UPSTREAM_CLOSE_MS + 5_000;

/** Until the options are read, only the URLs a library writes into its errors are cut. */
let redact = createLogRedactor({});

/** Every line the process prints passes the redactor: a fault's details reach the log, its secrets do not. */
function redactConsole(): void {
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const write = console[level].bind(console);
    console[level] = (...args: unknown[]) => write(redact(format(...args)));
  }
}

interface Closeable {
  close(): Promise<void>;
}

async function upstreamsFor(config: Config): Promise<{ upstreams: Upstreams; localnet: Closeable | null }> {
  if (config.mode === 'mainnet') {
    const market = { jupiter: config.jupiterUrl, geckoterminal: config.geckoterminalUrl, magiceden: config.magicedenUrl, lending: config.lendingUrl };
    return { upstreams: { rpcUrl: config.rpcUrl!, geyserUrl: config.geyserUrl!, geyserToken: config.geyserToken, market }, localnet: null };
  }
  const { startLocalnet, localnetUpstreams } = await import('@solana-x402-intel/localnet');
  const net = await startLocalnet({ host: '127.0.0.1', rpcPort: 0, geyserPort: 0, marketPort: 0, ...config.localnet });
  for (const [name, url] of Object.entries(net.urls)) console.log(`localnet ${name} ${url}`);
  console.log(`localnet stablecoin ${net.stablecoinMint} (solana), ${net.evm.usdcAddress} (evm)`);
  return {
    upstreams: localnetUpstreams(net),
    localnet: net,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(helpText());
    return;
  }
  const config = loadConfig(process.env, argv);
  redact = createLogRedactor(config);
  // Held until exit; taken before the localnet starts, so a second start on this directory fails at once.
  lockDataDir(config.dataDir);
  let localnet: Closeable | null = null;
  const upstreams = async (): Promise<Upstreams> => {
    const started = await upstreamsFor(config);
    localnet = started.localnet;
    return started.upstreams;
  };
  const service = await startService(config, { upstreams });
  if (service.identity.created) console.log(`created identity keypair ${config.keypairPath} (mode 0600)`);
  console.log(`identity ${service.identity.publicKey}`);
  // The password is never printed: `where` is the URL with it replaced by ***.
  if (service.storage.kind === 'postgres') console.log(`payment state in postgres ${service.storage.where}`);
  console.log(`admin ${service.adminUrl} (kill switch${service.adminTokenPath ? `; bearer token in ${service.adminTokenPath}` : ''})`);
  console.log(`listening ${service.url} (port ${service.port}, ${config.mode} mode)`);

  let stopping = false;
  const stop = async (signal: string) => {
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
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
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
