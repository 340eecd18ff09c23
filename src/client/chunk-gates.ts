/** A promise with its resolver outside. */
interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * The order between the chunks of a pipelined enqueueBatch. Each chunk announces the
 * message groups it will send once its writes land, and announces that it is done once its
 * send has returned (or it gave up). A chunk then waits only for the earlier chunks whose
 * groups overlap its own. Chunks start in order and an earlier chunk never waits for a later
 * one, so with a FIFO limiter over the chunks nothing can wait in a cycle.
 */
export class ChunkGates {
  private readonly groups: Deferred<ReadonlySet<string>>[];
  private readonly finished: Deferred<void>[];

  constructor(count: number) {
    this.groups = Array.from({ length: count }, () => deferred<ReadonlySet<string>>());
    this.finished = Array.from({ length: count }, () => deferred<void>());
  }

  /** Chunk `chunk`'s writes have landed; it will send tasks of these groups. */
  written(chunk: number, groups: ReadonlySet<string>): void {
    this.groups[chunk]?.resolve(groups);
  }

  /** Chunk `chunk` has sent (or will not send): later chunks of its groups may go. */
  done(chunk: number): void {
    this.groups[chunk]?.resolve(new Set());
    this.finished[chunk]?.resolve();
  }

  /** Resolves once every earlier chunk sharing one of `groups` is done. */
  async earlierSendsSharing(chunk: number, groups: ReadonlySet<string>): Promise<void> {
    if (groups.size === 0) return;
    for (let earlier = 0; earlier < chunk; earlier++) {
      const theirs = await (this.groups[earlier] as Deferred<ReadonlySet<string>>).promise;
      if ([...groups].some((g) => theirs.has(g))) {
        await (this.finished[earlier] as Deferred<void>).promise;
      }
    }
  }
}
