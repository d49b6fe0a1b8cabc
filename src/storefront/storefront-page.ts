/**
 * The storefront page at `/`: server-rendered once after listen. The catalog (prices, categories,
 * parameters) is plain HTML that works without JavaScript; the console, the live ledger, the
 * receipt check and the health panel are drawn by the bundled script (web/) into the sections
 * left for them. The console reads the endpoints' parameter rules from a JSON data block, so the
 * page needs no inline script and runs under a strict Content-Security-Policy.
 */
import { escapeHtml } from '../catalog/discovery.ts';
import { catalogSectionHtml, consoleCatalogJson } from '../catalog/storefront-catalog.ts';

/** What the page says about the service and where its assets are. */
export interface StorefrontPageContext {
  readonly serviceName: string;
  readonly version: string;
  readonly scriptUrl: string;
  readonly styleUrl: string;
}

/** The page's Content-Security-Policy: only its own origin, no inline script or style. */
export const STOREFRONT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const panel = (id: string, title: string, intro: string, noscript: string) =>
  `<section id="${id}" class="panel" aria-labelledby="${id}-title">
<h2 id="${id}-title">${title}</h2>
<p class="panel-intro">${intro}</p>
<noscript><p class="noscript">${noscript}</p></noscript>
<div id="${id}-root" class="panel-root"></div>
</section>`;

function heroHtml(ctx: StorefrontPageContext): string {
  return `<section class="hero" aria-labelledby="hero-title">
<h1 id="hero-title">Solana token, wallet and execution intelligence, paid per call</h1>
<p class="lede">JSON endpoints for trading bots and agents: token risk and a pre-trade decision with a policy firewall, holder concentration, wallet and transaction forensics, swap quotes and slippage, priority fees and Jito tip floors, epoch timing, market and lending data. Each request is paid in USDC over <a href="https://github.com/coinbase/x402">x402</a> v2 on Solana or Base: no account, no API key.</p>
<ol class="steps">
<li><strong>Try.</strong> Build a request in the console: see its price, the exact payment terms and the <code>curl</code> command, and run one free preview a day.</li>
<li><strong>Pay.</strong> Call with any x402 client; invalid parameters are refused before payment and only a 200 is charged.</li>
<li><strong>Verify.</strong> Every paid answer carries a signed receipt logged in a public Merkle ledger: check it here, in your browser.</li>
</ol>
<p class="machine-links">For agents: <a href="/.well-known/x402">/.well-known/x402</a>, <a href="/openapi.json">/openapi.json</a>, <a href="/llms.txt">/llms.txt</a>, MCP at <code>POST /mcp</code>, <a href="/pricing">/pricing</a>, <a href="/trust/sir">/trust/sir</a>. Version ${escapeHtml(ctx.version)}.</p>
</section>`;
}

/** The whole page. */
export function buildStorefrontHtml(ctx: StorefrontPageContext): string {
  const name = escapeHtml(ctx.serviceName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}: Solana intelligence paid per call over x402</title>
<meta name="description" content="Pay-per-call Solana token, wallet and execution intelligence over x402 v2 on Solana or Base, with signed receipts and a public Merkle ledger.">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(ctx.styleUrl)}">
<script type="module" src="${escapeHtml(ctx.scriptUrl)}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><div class="wrap">
<p class="brand"><a href="/">${name}</a></p>
<nav aria-label="Sections"><ul>
<li><a href="#console">Console</a></li><li><a href="#ledger">Live ledger</a></li><li><a href="#receipt">Verify a receipt</a></li><li><a href="#health">Health</a></li><li><a href="#catalog">Catalog</a></li>
</ul></nav>
</div></header>
<main id="main" class="wrap">
${heroHtml(ctx)}
<div class="grid">
${panel('console', 'Console', 'Pick an endpoint and fill in its parameters: the form checks them as the service does.', 'The console runs in your browser and needs JavaScript. Every endpoint, its price and its parameters are in the <a href="#catalog">catalog</a> below; a request to a paid path without payment answers 402 with its payment terms.')}
<div class="side">
${panel('ledger', 'Live ledger', 'Every settled payment and every operator action, as it is appended: hash-chained and under a Merkle root.', 'Without JavaScript, read the newest entries at <a href="/ledger?limit=20">/ledger?limit=20</a>.')}
${panel('health', 'Health', 'The service as it reports itself, refreshed every few seconds.', 'Without JavaScript, read <a href="/health">/health</a>.')}
</div>
</div>
${panel('receipt', 'Verify a receipt', 'Paste the <code>X-Service-Receipt</code> header of a paid answer (base64 or JSON). Your browser checks the signature, the signed checkpoint and the Merkle inclusion proof itself; the service only hands over public data.', 'Without JavaScript, verify on the service: <code>GET /trust/verify?receipt=&lt;header value&gt;</code>.')}
<section id="catalog" aria-labelledby="catalog-title">
<h2 id="catalog-title">Catalog</h2>
<p>Every paid endpoint is a <code>GET</code> answered in JSON, priced per call in USDC (6 decimals) and payable on Solana or Base. A request without payment answers 402 with the terms; invalid parameters answer 400 before any payment is asked.</p>
${catalogSectionHtml()}
</section>
</main>
<footer class="site-footer"><div class="wrap"><p>Answers state facts with their thresholds; what cannot be determined is reported as <code>unknown</code>. Not financial advice.</p></div></footer>
<script type="application/json" id="catalog-data">${consoleCatalogJson()}</script>
</body>
</html>
`;
}
