/**
 * The files the console serves itself, under `/assets/`: its stylesheet, its one script
 * (browser/console.js: local times, the live channel, the charts) and the chart library,
 * uPlot, from the package's own dependency. Nothing comes from another origin, so the
 * Content-Security-Policy can say `script-src 'self'; style-src 'self'`.
 *
 * They are served before the session check: the sign-in page needs the stylesheet, and none
 * of them holds any data.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { STYLESHEET } from './pages/style.js';

/** The assets by name, and where each comes from. */
const SOURCES = {
  'console.css': { type: 'text/css; charset=utf-8', read: async () => STYLESHEET },
  'console.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => readFile(fileURLToPath(new URL('./browser/console.js', import.meta.url)), 'utf8'),
  },
  'uplot.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => readFile(dependencyFile('uplot/dist/uPlot.iife.min.js'), 'utf8'),
  },
  'uplot.css': {
    type: 'text/css; charset=utf-8',
    read: () => readFile(dependencyFile('uplot/dist/uPlot.min.css'), 'utf8'),
  },
} as const;

/** The name of one of the console's assets. */
export type AssetName = keyof typeof SOURCES;

/** The path a page links an asset at. */
export function assetPath(name: AssetName): string {
  return `/assets/${name}`;
}

function dependencyFile(specifier: string): string {
  return createRequire(import.meta.url).resolve(specifier);
}

interface Loaded {
  readonly body: string;
  readonly etag: string;
}

const loaded = new Map<string, Promise<Loaded>>();

function load(name: AssetName): Promise<Loaded> {
  let found = loaded.get(name);
  if (found === undefined) {
    found = SOURCES[name].read().then((body) => ({
      body,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    }));
    // A failed read is not kept: the next request tries again.
    found.catch(() => loaded.delete(name));
    loaded.set(name, found);
  }
  return found;
}

/** The handler of `GET /assets/:name`: the asset, 304 when unchanged, 404 for another name. */
export async function serveAsset(c: Context): Promise<Response> {
  const name = c.req.param('name') ?? '';
  if (!Object.hasOwn(SOURCES, name)) return c.text('no such asset', 404);
  const asset = await load(name as AssetName);
  c.header('Cache-Control', 'private, no-cache');
  c.header('ETag', asset.etag);
  if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304);
  c.header('Content-Type', SOURCES[name as AssetName].type);
  return c.body(asset.body);
}
