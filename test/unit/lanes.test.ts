import { describe, expect, it } from 'vitest';
import { ConfigurationError, ValidationError } from '../../src/core/errors.js';
import { executorSettings } from '../../src/settings/executor.js';
import {
  DEFAULT_LANE,
  LaneQueues,
  laneEnvironment,
  laneIssues,
  laneQueueNames,
  laneSettings,
  lanesFromEnvironment,
  UnknownLaneError,
} from '../../src/settings/lanes.js';
import { resolveLaneQueues } from '../../src/settings/location.js';
import { locationFromStackOutputs } from '../../src/settings/stack-outputs.js';
import { defineTask } from '../../src/tasks/task-definition.js';

const schema = {
  '~standard': { version: 1, vendor: 'test', validate: (v: unknown) => ({ value: v }) },
} as const;
const url = (name: string) => `http://localhost:4566/000000000000/${name}`;

describe('LaneQueues', () => {
  it('routes the default lane (or none) to the work queue and each lane to its queue', () => {
    const queues = new LaneQueues(
      { queueUrl: url('shop-work.fifo') },
      { bulk: { queueUrl: url('shop-bulk-work.fifo') } },
    );

    expect(queues.queueUrl(undefined)).toBe(url('shop-work.fifo'));
    expect(queues.queueUrl(DEFAULT_LANE)).toBe(url('shop-work.fifo'));
    expect(queues.queueUrl('bulk')).toBe(url('shop-bulk-work.fifo'));
    expect(queues.names()).toEqual(['default', 'bulk']);
    expect(queues.hasLanes).toBe(true);
  });

  it('throws an UnknownLaneError, a ConfigurationError naming the lanes it knows, for another lane', () => {
    const queues = new LaneQueues({ queueUrl: url('shop-work.fifo') });

    const read = () => queues.queueUrl('bulk', "Task type 'import'");

    expect(read).toThrow(UnknownLaneError);
    expect(read).toThrow(ConfigurationError);
    expect(read).toThrow(/Task type 'import' names the lane 'bulk'.*expected one of 'default'/);
  });
});

describe('lanesFromEnvironment', () => {
  it('reads the lanes written by laneEnvironment, and nothing when none is set', () => {
    const lanes = {
      default: { queueUrl: url('a'), queueArn: 'arn:a', deadLetterQueueUrl: url('a-dlq') },
      bulk: { queueUrl: url('b'), queueArn: 'arn:b', deadLetterQueueUrl: url('b-dlq') },
    };

    expect(lanesFromEnvironment(laneEnvironment(lanes))).toEqual(lanes);
    expect(lanesFromEnvironment({})).toBeUndefined();
  });

  it('refuses a variable that is not a JSON object of lane → string', () => {
    expect(() => lanesFromEnvironment({ TASKLANE_LANE_QUEUE_URLS: '["a"]' })).toThrow(
      ConfigurationError,
    );
    expect(() => lanesFromEnvironment({ TASKLANE_LANE_QUEUE_URLS: '{"Bulk":"x"}' })).toThrow(
      /TASKLANE_LANE_QUEUE_URLS must be a JSON object/,
    );
  });

  it('lets explicit lanes win over the environment in resolveLaneQueues', () => {
    const env = laneEnvironment({ bulk: { queueUrl: url('env-bulk') } });

    const explicit = resolveLaneQueues(
      { lanes: { urgent: { queueUrl: url('u') } } },
      url('w'),
      env,
    );
    const fromEnv = resolveLaneQueues({}, url('w'), env);

    expect(explicit.names()).toEqual(['default', 'urgent']);
    expect(fromEnv.queueUrl('bulk')).toBe(url('env-bulk'));
    expect(fromEnv.queueUrl('default')).toBe(url('w'));
  });
});

describe('locationFromStackOutputs with lanes', () => {
  it('reads the lanes’ queues from the LaneQueueUrls, LaneQueueArns and LaneDeadLetterQueueUrls outputs', () => {
    const outputs = {
      ExecutorTableName: 'shop-tasks',
      ExecutorWorkQueueUrl: url('shop-work.fifo'),
      ExecutorWorkQueueArn: 'arn:w',
      ExecutorDeadLetterQueueUrl: url('shop-dlq.fifo'),
      ExecutorScheduleGroupName: 'shop',
      ExecutorSchedulerRoleArn: 'arn:role',
      ExecutorScheduleDeadLetterQueueArn: 'arn:sdlq',
      ExecutorWorkerFunctionName: 'fn',
      ExecutorLaneQueueUrls: JSON.stringify({
        default: url('shop-work.fifo'),
        bulk: url('shop-bulk-work.fifo'),
      }),
      ExecutorLaneQueueArns: JSON.stringify({ default: 'arn:w', bulk: 'arn:b' }),
      ExecutorLaneDeadLetterQueueUrls: JSON.stringify({
        default: url('shop-dlq.fifo'),
        bulk: url('shop-bulk-dlq.fifo'),
      }),
    };

    const location = locationFromStackOutputs(outputs);

    expect(location.queueUrl).toBe(url('shop-work.fifo'));
    expect(location.lanes?.bulk).toEqual({
      queueUrl: url('shop-bulk-work.fifo'),
      queueArn: 'arn:b',
      deadLetterQueueUrl: url('shop-bulk-dlq.fifo'),
    });
  });
});

describe('laneSettings', () => {
  it('names each lane’s queues after the executor and keeps the default lane’s names', () => {
    const settings = executorSettings({ name: 'shop', lanes: { bulk: { maxConcurrency: 2 } } });

    expect(Object.keys(settings.lanes)).toEqual(['default', 'bulk']);
    expect(settings.lanes.default?.workQueue.name).toBe('shop-work.fifo');
    expect(settings.lanes.bulk?.workQueue.name).toBe('shop-bulk-work.fifo');
    expect(settings.lanes.bulk?.deadLetterQueue.name).toBe('shop-bulk-dlq.fifo');
    expect(settings.lanes.bulk?.workQueue.attributes).toEqual(settings.workQueue.attributes);
    expect(settings.lanes.bulk?.maxConcurrency).toBe(2);
    expect(executorSettings({ name: 'shop' }).lanes).toEqual({});
    expect(
      laneSettings('shop', undefined, { work: settings.workQueue, dlq: settings.deadLetterQueue }),
    ).toEqual({});
    expect(laneQueueNames('shop', DEFAULT_LANE)).toEqual({
      work: 'shop-work.fifo',
      dlq: 'shop-dlq.fifo',
    });
  });

  it('lists every bad lane name, prop and queue name length at once', () => {
    const issues = laneIssues('a'.repeat(60), {
      Bulk: {},
      slow: { maxConcurrency: 1, batchSize: 0 },
      abcdefghijklmnopqrst: {},
    });

    expect(issues.map((i) => i.path)).toEqual([
      'lanes.Bulk',
      'lanes.slow.maxConcurrency',
      'lanes.slow.batchSize',
      // 60 + 1 + 20 + 10 characters: over SQS's 80.
      'lanes.abcdefghijklmnopqrst',
    ]);
    expect(() => executorSettings({ lanes: { 'no-dash': {} } })).toThrow(ValidationError);
  });
});

describe('defineTask lane', () => {
  it('keeps a lane, drops the default one, and refuses a bad lane name', () => {
    const handler = () => undefined;

    expect(defineTask('a', { schema, handler, lane: 'bulk' }).lane).toBe('bulk');
    expect(defineTask('b', { schema, handler, lane: 'default' }).lane).toBeUndefined();
    expect(() => defineTask('c', { schema, handler, lane: 'Bulk' })).toThrow(ValidationError);
  });
});
