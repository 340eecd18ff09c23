/**
 * A feature a worker loads on first use: an object with some of the feature's async methods,
 * whose first call imports and makes the feature, and every call then goes to it. The
 * construct's bundle puts a module imported this way in a chunk of its own, which a worker
 * whose tasks never use it never loads (docs/adr/0069-worker-chunks.md).
 */

/** The names of `T`'s methods that return a promise. */
export type AsyncMethodNames<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T];

/**
 * `names` of what `load` makes, made on the first call of any of them. Calls keep their
 * order: each waits for the one load. A load that fails fails its calls, and the next call
 * loads again (a chunk that could not be read, a client that could not be made).
 */
export function onFirstUse<T extends object, K extends AsyncMethodNames<T>>(
  load: () => Promise<T>,
  names: readonly K[],
): Pick<T, K> {
  let loading: Promise<T> | undefined;
  const loaded = (): Promise<T> => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
  const facade: Partial<Record<K, unknown>> = {};
  for (const name of names) {
    facade[name] = (...args: unknown[]) =>
      loaded().then((target) =>
        (target[name] as (...args: unknown[]) => Promise<unknown>).apply(target, args),
      );
  }
  return facade as Pick<T, K>;
}
