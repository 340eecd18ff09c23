/**
 * The example of docs/durable-tasks.md: a 40-minute import done in 10-minute slices. Each
 * slice imports batches from the checkpoint on, saves the checkpoint after every batch, and
 * continues (on any worker, without spending an attempt) when its time runs low; the steps
 * that must not run twice (creating the import job, announcing it) are memoized.
 * Type-checked in CI, and run against the emulator with short slices by
 * test/integration/durable/example.test.ts. In an application, import from 'tasklane'.
 */
import * as z from 'zod';
import { defineTask, type TaskClient } from '../src/index.js';

/** Where the rows go; your warehouse's client. */
export interface Warehouse {
  /** Opens an import job; not idempotent, so it is a step. */
  createJob(file: string): Promise<string>;
  /** Imports rows `from` to `to` (exclusive) into the job; idempotent per row range. */
  importRows(job: string, from: number, to: number): Promise<void>;
  /** Announces the finished import; not idempotent, so it is a step. */
  announce(job: string, rows: number): Promise<void>;
}

/** How long a slice may run, how big a batch is, and when to hand over. */
export interface ImportTiming {
  /** The slice's timeout: 10 minutes on Lambda. */
  readonly sliceMs: number;
  /** Rows per batch (one checkpoint each). */
  readonly batchRows: number;
  /** Continue once less than this is left of the slice: a batch's worst time, and margin. */
  readonly handOverMs: number;
}

/** The settings for a 40-minute import: four 10-minute slices, as on Lambda. */
export const LAMBDA_TIMING: ImportTiming = {
  sliceMs: 10 * 60_000,
  batchRows: 5_000,
  handOverMs: 60_000,
};

/** The import task, bound to a warehouse and a timing. */
export function importTask(warehouse: Warehouse, timing: ImportTiming = LAMBDA_TIMING) {
  return defineTask('import.customers', {
    schema: z.object({ file: z.string(), rows: z.number().int().positive() }),
    timeout: timing.sliceMs,
    // Four slices need three continuations; leave room for a few more.
    maxContinuations: 8,
    handler: async ({ file, rows }, ctx) => {
      // Every slice calls its steps in the same order; later slices get the stored job id.
      const job = await ctx.step('create-job', () => warehouse.createJob(file));
      let next = (ctx.checkpoint as { row: number } | undefined)?.row ?? 0;
      while (next < rows) {
        // Hand over before the slice's timeout: the next slice starts from the checkpoint.
        if (ctx.remainingMs() < timing.handOverMs) return ctx.continue();
        const to = Math.min(rows, next + timing.batchRows);
        await warehouse.importRows(job, next, to);
        // One fenced write: a crash from here on redoes at most this one batch.
        await ctx.saveCheckpoint({ row: to });
        next = to;
      }
      await ctx.step('announce', () => warehouse.announce(job, rows));
      return { job, rows };
    },
  });
}

/** Enqueues an import and waits for it, through every slice. */
export async function runImport(client: TaskClient, warehouse: Warehouse, file: string) {
  const task = importTask(warehouse);
  const { id } = await client.enqueue(task, { file, rows: 1_200_000 }, { orderingKey: file });
  const record = await client.wait(id, { timeoutMs: 60 * 60_000 });
  const steps = (await client.get(id, { steps: true }))?.steps ?? [];
  console.log(
    record.status,
    record.continuations,
    steps.map((s) => s.name),
  );
  return record;
}
