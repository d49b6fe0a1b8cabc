/**
 * A small SVG line-chart renderer for bench reports: one or more panels in a grid, each with its
 * own y axis and any number of series over a shared kind of x (time in a soak, connections in a
 * throughput sweep). Axes get "nice" ticks and labels; the output is a self-contained SVG string
 * that renders the same in a browser and on GitHub. No dependency: the bench plots are simple.
 */

export interface Series {
  readonly name: string;
  /** [x, y] points; null y leaves a gap (no sample in that interval). */
  readonly points: ReadonlyArray<readonly [number, number | null]>;
}

export interface Panel {
  readonly title: string;
  /** The y axis label, with its unit, e.g. "RSS (MiB)". */
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Start the y axis at zero (default) so a flat line reads as flat. */
  readonly yFromZero?: boolean;
  /** Where the legend sits inside the plot (default top-left); 'none' when a neighbouring panel has it. */
  readonly legend?: 'top-left' | 'bottom-right' | 'none';
}

export interface LineChartConfig {
  readonly title: string;
  readonly xLabel: string;
  readonly panels: readonly Panel[];
  /** Panels per row (default 2). */
  readonly columns?: number;
  readonly panelWidth?: number;
  readonly panelHeight?: number;
  /** A base-2 log x axis, for sweeps that double (connections, batch sizes); x must be > 0. */
  readonly xLog2?: boolean;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'] as const;
const MARGIN = { left: 64, right: 16, top: 28, bottom: 42 } as const;
const TITLE_HEIGHT_PX = 36;
const TICKS = 5;

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number): string => (Math.abs(n) >= 1000 || Number.isInteger(n) ? n.toFixed(0) : Number(n.toPrecision(3)).toString());

/** Ticks at 1, 2 or 5 times a power of ten covering [min, max]; the axis snaps to them. */
export function niceTicks(min: number, max: number, count = TICKS): number[] {
  if (!(max > min)) return niceTicks(min - 1 < 0 && min >= 0 ? 0 : min - 1, max + 1, count);
  const rough = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

/** Powers of two covering [min, max] (both > 0), for a log2 axis. */
export function log2Ticks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log2(min)); e <= Math.ceil(Math.log2(max)); e++) ticks.push(2 ** e);
  return ticks.length > 1 ? ticks : [ticks[0]!, ticks[0]! * 2];
}

interface Frame {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

function extent(values: readonly number[], fromZero: boolean): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  return [fromZero ? Math.min(0, ...finite) : Math.min(...finite), Math.max(...finite)];
}

function axes(frame: Frame, xTicks: readonly number[], yTicks: readonly number[], sx: (v: number) => number, sy: (v: number) => number): string[] {
  const out: string[] = [];
  const bottom = frame.y + frame.height;
  for (const t of yTicks) {
    const y = sy(t).toFixed(1);
    out.push(`<line x1="${frame.x}" x2="${frame.x + frame.width}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${frame.x - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${fmt(t)}</text>`);
  }
  for (const t of xTicks) {
    const x = sx(t).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}" stroke="#444"/>`);
    out.push(`<text x="${x}" y="${bottom + 16}" text-anchor="middle">${fmt(t)}</text>`);
  }
  out.push(`<rect x="${frame.x}" y="${frame.y}" width="${frame.width}" height="${frame.height}" fill="none" stroke="#444"/>`);
  return out;
}

/** Polylines of one series, split where a point has no y. */
function seriesPaths(series: Series, color: string, sx: (v: number) => number, sy: (v: number) => number): string[] {
  const runs: string[][] = [[]];
  for (const [x, y] of series.points) {
    if (y === null || !Number.isFinite(y)) runs.push([]);
    else runs[runs.length - 1]!.push(`${sx(x).toFixed(1)},${sy(y).toFixed(1)}`);
  }
  return runs
    .filter((run) => run.length > 0)
    .map((run) =>
      run.length === 1
        ? `<circle cx="${run[0]!.split(',')[0]}" cy="${run[0]!.split(',')[1]}" r="2" fill="${color}"/>`
        : `<polyline points="${run.join(' ')}" fill="none" stroke="${color}" stroke-width="1.6"/>`,
    );
}

function legend(panel: Panel, frame: Frame): string[] {
  if (panel.series.length < 2 || panel.legend === 'none') return [];
  const width = 26 + 6 * Math.max(...panel.series.map((s) => s.name.length));
  const height = panel.series.length * 14 + 2;
  const left = panel.legend === 'bottom-right' ? frame.x + frame.width - width - 4 : frame.x + 4;
  const top = panel.legend === 'bottom-right' ? frame.y + frame.height - height - 4 : frame.y + 4;
  // A see-through backdrop: the legend stays readable and a line under it still shows.
  const backdrop = `<rect x="${left}" y="${top}" width="${width}" height="${height}" fill="#fff" fill-opacity="0.7"/>`;
  return [
    backdrop,
    ...panel.series.map((s, i) => {
      const y = top + 8 + i * 14;
      const x = left + 4;
      return `<line x1="${x}" x2="${x + 14}" y1="${y}" y2="${y}" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/><text x="${x + 18}" y="${y}" dominant-baseline="middle">${escapeXml(s.name)}</text>`;
    }),
  ];
}

function renderPanel(panel: Panel, frame: Frame, xLabel: string, xLog2: boolean): string {
  const xs = panel.series.flatMap((s) => s.points.map((p) => p[0])).filter((x) => !xLog2 || x > 0);
  const ys = panel.series.flatMap((s) => s.points.map((p) => p[1]).filter((y): y is number => y !== null));
  const [x0, x1] = extent(xs, false);
  const [y0, y1] = extent(ys, panel.yFromZero ?? true);
  const xTicks = xLog2 ? log2Ticks(x0 > 0 ? x0 : 1, x1 > 0 ? x1 : 2) : niceTicks(x0, x1);
  const yTicks = niceTicks(y0, y1);
  const scaleX = xLog2 ? Math.log2 : (v: number) => v;
  const [xa, xb] = [scaleX(xTicks[0]!), scaleX(xTicks[xTicks.length - 1]!)];
  const [ya, yb] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const sx = (v: number) => frame.x + ((scaleX(v) - xa) / (xb - xa)) * frame.width;
  const sy = (v: number) => frame.y + frame.height - ((v - ya) / (yb - ya)) * frame.height;
  const midY = frame.y + frame.height / 2;
  return [
    `<text x="${frame.x + frame.width / 2}" y="${frame.y - 10}" text-anchor="middle" font-weight="bold">${escapeXml(panel.title)}</text>`,
    ...axes(frame, xTicks, yTicks, sx, sy),
    ...panel.series.flatMap((s, i) => seriesPaths(s, COLORS[i % COLORS.length]!, sx, sy)),
    ...legend(panel, frame),
    `<text x="${frame.x + frame.width / 2}" y="${frame.y + frame.height + 34}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text transform="translate(${frame.x - 48} ${midY}) rotate(-90)" text-anchor="middle">${escapeXml(panel.yLabel)}</text>`,
  ].join('\n');
}

/** Renders the panels of `config` as one SVG document. */
export function renderLineChart(config: LineChartConfig): string {
  const columns = Math.max(1, Math.min(config.columns ?? 2, config.panels.length));
  const rows = Math.ceil(config.panels.length / columns);
  const panelWidth = config.panelWidth ?? 440;
  const panelHeight = config.panelHeight ?? 240;
  const width = columns * panelWidth;
  const height = TITLE_HEIGHT_PX + rows * panelHeight;
  const panels = config.panels.map((panel, i) => {
    const frame: Frame = {
      x: (i % columns) * panelWidth + MARGIN.left,
      y: TITLE_HEIGHT_PX + Math.floor(i / columns) * panelHeight + MARGIN.top,
      width: panelWidth - MARGIN.left - MARGIN.right,
      height: panelHeight - MARGIN.top - MARGIN.bottom,
    };
    return renderPanel(panel, frame, config.xLabel, config.xLog2 ?? false);
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" fill="#222">`,
    `<title>${escapeXml(config.title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(config.title)}</text>`,
    ...panels,
    '</svg>',
    '',
  ].join('\n');
}
