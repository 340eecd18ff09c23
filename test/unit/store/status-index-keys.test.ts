import { describe, expect, it } from 'vitest';
import { TaskStatus } from '../../../src/core/constants.js';
import { ValidationError } from '../../../src/core/errors.js';
import { statusShard } from '../../../src/store/record.js';
import {
  INDEXED_STATUSES,
  isIndexed,
  resolveStatusShards,
  statusIndexKeys,
} from '../../../src/store/status-index-keys.js';

describe('statusIndexKeys', () => {
  it('keys the statuses the sweeper and operators act on, and no finished one', () => {
    expect([...INDEXED_STATUSES].sort()).toEqual([
      'DEAD',
      'PAUSED',
      'PENDING',
      'QUEUED',
      'SCHEDULED',
      'SUSPENDED',
      'WAITING',
    ]);
    expect(isIndexed(TaskStatus.SUCCEEDED)).toBe(false);
    expect(isIndexed(TaskStatus.CANCELLED)).toBe(false);
    expect(isIndexed(TaskStatus.ROLLED_BACK)).toBe(false);
  });

  it('gives a keyed status its status#shard key and sort time, any other none', () => {
    const shard = statusShard('task-1', 32);

    expect(statusIndexKeys('task-1', TaskStatus.PENDING, 7, 32)).toEqual({
      statusShard: `PENDING#${shard}`,
      statusAt: 7,
    });
    expect(statusIndexKeys('task-1', TaskStatus.SUCCEEDED, 7, 32)).toBeUndefined();
  });
});

describe('resolveStatusShards', () => {
  it('takes the option, else TASKLANE_STATUS_SHARDS, else 8', () => {
    const env = { TASKLANE_STATUS_SHARDS: ' 32 ' };

    expect(resolveStatusShards(4, env)).toBe(4);
    expect(resolveStatusShards(undefined, env)).toBe(32);
    expect(resolveStatusShards(undefined, {})).toBe(8);
    expect(resolveStatusShards(undefined, { TASKLANE_STATUS_SHARDS: '' })).toBe(8);
  });

  it.each([
    [0, {}, 'statusShards', 'received 0'],
    [257, {}, 'statusShards', 'received 257'],
    [1.5, {}, 'statusShards', 'received 1.5'],
    [undefined, { TASKLANE_STATUS_SHARDS: 'eight' }, 'TASKLANE_STATUS_SHARDS', 'received "eight"'],
    [undefined, { TASKLANE_STATUS_SHARDS: '0' }, 'TASKLANE_STATUS_SHARDS', 'received "0"'],
  ])('rejects %s (env %j) naming %s', (value, env, path, received) => {
    const error = (() => {
      try {
        return resolveStatusShards(value, env);
      } catch (err) {
        return err;
      }
    })();

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path, message: `expected an integer from 1 to 256, ${received}` },
    ]);
  });
});
