/** Task definitions and helpers shared by the dependency tests. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { PermanentError } from '../../src/core/errors.js';
import type { ParentResult } from '../../src/tasks/task-definition.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { testClients } from './aws.js';

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

/** A DynamoDB client whose writes to `taskId` fail, as if the process died before them. */
export function crashingBefore(taskId: () => string | undefined): DynamoDBClient {
  const client = testClients().dynamodb;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const key = (args.input as { Key?: { pk?: unknown } }).Key?.pk;
      const pk = typeof key === 'string' ? key : (key as { S?: string } | undefined)?.S;
      if (
        context.commandName?.startsWith('Update') === true &&
        pk !== undefined &&
        pk === taskId()
      ) {
        throw new Error('injected crash before the release');
      }
      return next(args);
    },
    { step: 'initialize', name: 'crash-before-release' },
  );
  return client;
}
