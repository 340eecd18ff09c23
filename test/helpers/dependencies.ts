/** Task definitions and helpers shared by the dependency tests. */
import * as z from 'zod';
import { PermanentError } from '../../src/errors.js';
import type { ParentResult } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';

/** What the handlers saw, in run order. */
export interface Runs {
  readonly order: string[];
  readonly parents: Map<string, readonly ParentResult[]>;
}

/** A `step` type that records its run and its parents, and a `fail` type that dies at once. */
export function dependencyTasks(runs: Runs) {
  const step = defineTask('step', {
    schema: z.object({ name: z.string() }),
    handler: async ({ name }, ctx) => {
      runs.order.push(name);
      runs.parents.set(name, await ctx.parents());
      return { name, done: true };
    },
  });
  const fail = defineTask('fail', {
    schema: z.object({ name: z.string() }),
    handler: ({ name }) => {
      runs.order.push(name);
      throw new PermanentError(`${name} fails`);
    },
  });
  return { step, fail, all: [step, fail] };
}

export function newRuns(): Runs {
  return { order: [], parents: new Map() };
}
