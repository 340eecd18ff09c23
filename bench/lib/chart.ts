/**
 * A small line chart, drawn as SVG by hand and rasterized to PNG with resvg (a prebuilt
 * renderer shipped in its npm package). Points carry min–max whiskers.
 */

/** One series: a name, a style, and points (x, median, min, max). */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly dashed?: boolean;
  readonly points: readonly { x: number; y: number; min: number; max: number }[];
}

/** One panel of the chart. */
export interface Panel {
  readonly title: string;
  readonly yLabel: string;
  readonly logY: boolean;
  readonly series: readonly Series[];
}

const W = 480;
const H = 340;
const M = { left: 64, right: 16, top: 36, bottom: 92 };
const FONT = 'font-family="DejaVu Sans, Arial, sans-serif"';

function ticks(min: number, max: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++)
      out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10(max || 1));
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(v);
  return out;
}

function panelSvg(panel: Panel, xs: readonly number[], offsetX: number): string {
  const all = panel.series.flatMap((s) => s.points.flatMap((p) => [p.min, p.max]));
  const yTicks = ticks(Math.max(Math.min(...all), 1e-3), Math.max(...all), panel.logY);
  const y0 = panel.logY ? (yTicks[0] as number) : 0;
  const y1 = yTicks[yTicks.length - 1] as number;
  const x0 = Math.log10(Math.min(...xs));
  const x1 = Math.log10(Math.max(...xs));
  const px = (x: number) =>
    M.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const py = (y: number) => {
    const f = panel.logY
      ? (Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))
      : (y - y0) / (y1 - y0);
    return H - M.bottom - f * (H - M.top - M.bottom);
  };
  const parts: string[] = [
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold" ${FONT}>${panel.title}</text>`,
    `<text transform="translate(16 ${(H - M.bottom + M.top) / 2}) rotate(-90)" text-anchor="middle" font-size="12" ${FONT}>${panel.yLabel}</text>`,
  ];
  for (const t of yTicks) {
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${py(t)}" y2="${py(t)}" stroke="#ddd"/>`,
      `<text x="${M.left - 6}" y="${py(t) + 4}" text-anchor="end" font-size="11" ${FONT}>${t}</text>`,
    );
  }
  for (const x of xs) {
    parts.push(
      `<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle" font-size="11" ${FONT}>${x}</text>`,
    );
  }
  parts.push(
    `<text x="${(W + M.left) / 2}" y="${H - M.bottom + 34}" text-anchor="middle" font-size="12" ${FONT}>tasks per run</text>`,
  );
  panel.series.forEach((s, i) => {
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    const path = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p.x)},${py(p.y)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const p of s.points) {
      parts.push(
        `<line x1="${px(p.x)}" x2="${px(p.x)}" y1="${py(p.min)}" y2="${py(p.max)}" stroke="${s.color}"/>`,
        `<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3" fill="${s.color}"/>`,
      );
    }
    const ly = H - M.bottom + 52 + Math.floor(i / 2) * 16;
    const lx = M.left + (i % 2) * 200;
    parts.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 30}" y="${ly}" font-size="11" ${FONT}>${s.name}</text>`,
    );
  });
  return `<g transform="translate(${offsetX} 0)">${parts.join('')}</g>`;
}

/** The SVG of panels side by side, sharing the x values. */
export function chartSvg(panels: readonly Panel[], xs: readonly number[]): string {
  const width = W * panels.length;
  const body = panels.map((p, i) => panelSvg(p, xs, i * W)).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}"><rect width="100%" height="100%" fill="white"/>${body}</svg>`;
}

/** Rasterizes SVG to PNG; undefined when the renderer cannot load on this platform. */
export async function svgToPng(svg: string): Promise<Buffer | undefined> {
  try {
    const { Resvg } = await import('@resvg/resvg-js');
    return new Resvg(svg, { font: { loadSystemFonts: true } }).render().asPng();
  } catch {
    return undefined;
  }
}
