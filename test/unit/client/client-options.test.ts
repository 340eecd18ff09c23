import { describe, expect, it } from 'vitest';
import { TASK_CLIENT_OPTION_KEYS } from '../../../src/client/options.js';
import { TaskClient } from '../../../src/client/task-client.js';
import { ValidationError } from '../../../src/core/errors.js';
import type { LocalExecutorLocation } from '../../../src/local/local-executor.js';
import type { ProvisionedExecutor, ProvisionedScheduler } from '../../../src/local/provision.js';
import type { ExecutorOutputs } from '../../../src/settings/stack-outputs.js';

/**
 * Every field of the locations Tasklane hands out to be passed to a client as they are; the
 * compiler keeps the record complete when one of them gains a field.
 */
const HANDED_OUT: Record<
  keyof ExecutorOutputs | keyof LocalExecutorLocation | keyof ProvisionedScheduler,
  true
> &
  Partial<Record<Exclude<keyof ProvisionedExecutor, 'scheduler'>, true>> = {
  tableName: true,
  queueUrl: true,
  queueArn: true,
  deadLetterQueueUrl: true,
  scheduleGroup: true,
  delayedScheduleGroup: true,
  scheduleKmsKeyArn: true,
  schedulerRoleArn: true,
  delayedSchedulerRoleArn: true,
  scheduleDeadLetterArn: true,
  scheduleDeadLetterQueueUrl: true,
  payloadBucket: true,
  lanes: true,
  workerFunctionName: true,
  integrity: true,
  statusShards: true,
  eventBus: true,
  schedulerSenderId: true,
  delayedSchedulerSenderId: true,
};

const where = { tableName: 't', queueUrl: 'http://localhost:1/000000000000/q.fifo' };

/** What a call threw, or undefined. */
function thrown(call: () => unknown): unknown {
  try {
    call();
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('new TaskClient options', () => {
  it('accepts every field of the locations Tasklane hands out', () => {
    const missing = Object.keys(HANDED_OUT).filter((key) => !TASK_CLIENT_OPTION_KEYS.includes(key));

    expect(missing).toEqual([]);
  });

  it('reports every unknown option at once, with the likely one meant', () => {
    const error = thrown(() => new TaskClient({ ...where, queueURL: 'x', bogus: 1 } as never));

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      'options.queueURL',
      'options.bogus',
    ]);
    expect((error as ValidationError).issues[0]?.message).toMatch(
      /^unknown option "queueURL" \(did you mean "queueUrl"\?\); expected one of tableName, queueUrl, /,
    );
  });

  it.each([
    ['endpoint', 'AWS_ENDPOINT_URL'],
    ['region', 'AWS_REGION'],
    ['credentials', 'AWS_PROFILE'],
  ])('says how to set %s, which is the SDK clients’ business', (option, remedy) => {
    const error = thrown(() => new TaskClient({ ...where, [option]: 'x' } as never));

    expect((error as ValidationError).issues).toEqual([
      {
        path: `options.${option}`,
        message: expect.stringContaining(`TaskClient has no ${option} option; `),
      },
    ]);
    expect((error as Error).message).toContain(remedy);
  });
});
