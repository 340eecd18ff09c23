/**
 * What a split bundle loads at start, read from esbuild's metafile: its entry file and every
 * chunk reached from it by static imports. The chunks reached only by dynamic imports are
 * the features a worker loads on first use (docs/adr/0069-worker-chunks.md).
 */

/** The part of esbuild's metafile read here. */
export interface BundleMetafile {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly outputs: Readonly<
    Record<
      string,
      {
        readonly bytes: number;
        readonly entryPoint?: string;
        readonly imports?: readonly {
          readonly path: string;
          readonly kind: string;
          readonly external?: boolean;
        }[];
        readonly inputs?: Readonly<Record<string, { readonly bytesInOutput: number }>>;
      }
    >
  >;
}

/** A split bundle's sizes. */
export interface BundleLoad {
  /** The entry's output file, as the metafile names it. */
  readonly entry: string;
  /** JavaScript bytes loaded at start: the entry and its static chunks. */
  readonly startBytes: number;
  /** JavaScript bytes of the whole bundle, every chunk included (source maps left out). */
  readonly totalBytes: number;
  /** The output files loaded at start, the entry first. */
  readonly startFiles: readonly string[];
  /** Packages outside the bundle that the start files import statically (`@aws-sdk/…`). */
  readonly startExternals: readonly string[];
  /** Packages outside the bundle that any file imports only on first use. */
  readonly laterExternals: readonly string[];
  /** Input files whose code is in a start file, with their bytes there. */
  readonly startInputs: ReadonlyMap<string, number>;
}

/** A file's name without its directories. */
function fileName(output: string): string {
  return output.slice(output.lastIndexOf('/') + 1);
}

/**
 * The load of a bundle built with the worker's options (`workerBuildOptions`): its entry is
 * `index.mjs`, its chunks are under `chunks/`, every chunk's name is unique (a content hash).
 * Outputs are matched by file name: esbuild's metafile does not always write an import's
 * path as it writes the output's key (a dynamic import's may be absolute).
 *
 * @throws Error when the metafile has no `index.mjs` entry output.
 */
export function bundleLoad(metafile: BundleMetafile): BundleLoad {
  const outputs = metafile.outputs;
  const byName = new Map(Object.keys(outputs).map((key) => [fileName(key), key]));
  const entry = Object.keys(outputs).find(
    (key) => fileName(key) === 'index.mjs' && outputs[key]?.entryPoint !== undefined,
  );
  if (entry === undefined) throw new Error('expected an index.mjs entry output in the metafile');
  const start: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (start.includes(name)) continue;
    start.push(name);
    for (const imported of outputs[name]?.imports ?? []) {
      if (imported.external === true || imported.kind !== 'import-statement') continue;
      const key = byName.get(fileName(imported.path));
      if (key === undefined) throw new Error(`no output for the import ${imported.path}`);
      queue.push(key);
    }
  }
  const js = Object.keys(outputs).filter((name) => !name.endsWith('.map'));
  const startExternals = new Set<string>();
  const laterExternals = new Set<string>();
  const startInputs = new Map<string, number>();
  for (const name of js) {
    const output = outputs[name];
    const atStart = start.includes(name);
    for (const imported of output?.imports ?? []) {
      if (imported.external !== true || imported.path.startsWith('node:')) continue;
      if (atStart && imported.kind === 'import-statement') startExternals.add(imported.path);
      else laterExternals.add(imported.path);
    }
    if (!atStart) continue;
    for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
      if (bytesInOutput > 0) startInputs.set(input, (startInputs.get(input) ?? 0) + bytesInOutput);
    }
  }
  for (const name of startExternals) laterExternals.delete(name);
  const bytes = (names: readonly string[]) =>
    names.reduce((sum, name) => sum + (outputs[name]?.bytes ?? 0), 0);
  return {
    entry,
    startBytes: bytes(start),
    totalBytes: bytes(js),
    startFiles: start,
    startExternals: [...startExternals].sort(),
    laterExternals: [...laterExternals].sort(),
    startInputs,
  };
}
