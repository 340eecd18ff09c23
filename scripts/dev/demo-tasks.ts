/**
 * The demo's task definitions: the example tasks, each wrapped so that its payload also
 * carries a trace (ordering key and enqueue sequence) and its handler reports every start
 * and settle to an observer. Types, schemas, retry policies and handlers are the examples'.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import * as z from 'zod/mini';
import { flakyCharge, poison, resizeImage, sendEmail } from '../../examples/tasks.js';
import { defineTask, type TaskContext, type TaskDefinition } from '../../src/index.js';
import { type Trace, traceSchema } from './start-log.js';

/** Sees every handler run of the demo tasks. */
export interface RunObserver {
  /** Called as a handler starts; the returned function is called when it settles. */
  onStart(trace: Trace, ctx: TaskContext): () => void;
}

/** Wraps a definition: the payload becomes `{ trace, input }`, and runs are observed. */
export function traced<S extends z.ZodMiniType, R>(
  definition: TaskDefinition<S, R>,
  observer: RunObserver,
) {
  return defineTask(definition.type, {
    schema: z.object({ trace: traceSchema, input: definition.schema }),
    retry: definition.retry,
    timeout: definition.timeoutMs,
    handler: async (payload, ctx) => {
      // zod cannot resolve the object's output type while S is generic; this is its shape.
      const { trace, input } = payload as { trace: Trace; input: StandardSchemaV1.InferOutput<S> };
      const settled = observer.onStart(trace, ctx);
      try {
        return await definition.handler(input, ctx);
      } finally {
        settled();
      }
    },
  });
}

/** The demo's definitions, all reporting to `observer`. */
export function demoTasks(observer: RunObserver) {
  return {
    resizeImage: traced(resizeImage, observer),
    sendEmail: traced(sendEmail, observer),
    flakyCharge: traced(flakyCharge, observer),
    poison: traced(poison, observer),
  };
}

/** The demo's definitions, by name. */
export type DemoTasks = ReturnType<typeof demoTasks>;
