import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { prepareTask } from '../../../src/client/prepare.js';
import { Defaults } from '../../../src/core/constants.js';
import { DependencyError, ValidationError } from '../../../src/core/errors.js';
import { defineTask } from '../../../src/tasks/task-definition.js';

const ping = defineTask('ping', { schema: z.object({ n: z.number() }), handler: () => undefined });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('prepareTask dependsOn', () => {
  it('keeps distinct parents in the order given, and onParentDead only when run', async () => {
    const task = await prepareTask(ping, { n: 1 }, { dependsOn: ['a', 'b', 'a'] }, 1024);
    const running = await prepareTask(
      ping,
      { n: 1 },
      { dependsOn: ['a'], onParentDead: 'run' },
      1024,
    );
    const cancelling = await prepareTask(
      ping,
      { n: 1 },
      { dependsOn: ['a'], onParentDead: 'cancel' },
      1024,
    );

    expect(task.parents).toEqual(['a', 'b']);
    expect(task.onParentDead).toBeUndefined();
    expect(running.onParentDead).toBe('run');
    expect(cancelling.onParentDead).toBeUndefined();
  });

  it('reports a malformed dependsOn and onParentDead with the payload problems, at once', async () => {
    const error = await rejection(
      prepareTask(
        ping,
        { n: 'one' },
        { dependsOn: ['ok', 'has space', 7], onParentDead: 'skip' } as never,
        1024,
      ),
    );

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      'payload.n',
      'options.onParentDead',
      'options.dependsOn.1',
      'options.dependsOn.2',
    ]);
  });

  it('refuses an empty dependsOn, and onParentDead without dependsOn', async () => {
    const empty = await rejection(prepareTask(ping, { n: 1 }, { dependsOn: [] }, 1024));
    const alone = await rejection(prepareTask(ping, { n: 1 }, { onParentDead: 'run' }, 1024));

    expect((empty as ValidationError).issues[0]?.message).toContain('non-empty array');
    expect((alone as ValidationError).issues[0]?.message).toBe('expected only with dependsOn');
  });

  it('throws DependencyError for a self-dependency, too many parents and a delay', async () => {
    const many = Array.from({ length: Defaults.MAX_PARENTS + 1 }, (_, n) => `p${n}`);

    const self = await rejection(
      prepareTask(ping, { n: 1 }, { id: 'me', dependsOn: ['me'] }, 1024),
    );
    const tooMany = await rejection(prepareTask(ping, { n: 1 }, { dependsOn: many }, 1024));
    const delayed = await rejection(
      prepareTask(ping, { n: 1 }, { dependsOn: ['a'], delay: 5_000 }, 1024),
    );

    expect(self).toBeInstanceOf(DependencyError);
    expect(self).toMatchObject({ code: 'DEPENDENCY', problem: 'cycle', taskId: 'me' });
    expect((self as Error).message).toBe("DEPENDENCY: task 'me' depends on itself.");
    expect(tooMany).toMatchObject({ problem: 'too-many-parents' });
    expect((tooMany as Error).message).toContain(`at most ${Defaults.MAX_PARENTS} parents`);
    expect(delayed).toMatchObject({ problem: 'delayed', parentIds: ['a'] });
  });
});
