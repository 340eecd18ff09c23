import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { taskMessage } from '../../src/core/message.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const email = defineTask('email', { schema: z.object({ n: z.number() }), handler: () => 'sent' });
const doomed = defineTask('doomed', {
  schema: z.object({ n: z.number() }),
  handler: () => {
    throw new PermanentError('bad input');
  },
});

let executor: TestExecutor;
let env: Record<string, string>;
let dead: string;
let succeeded: string;

beforeAll(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
  const client = executor.client();
  dead = (await client.enqueue(doomed, { n: 1 }, { orderingKey: 'k' })).id;
  succeeded = (await client.enqueue(email, { n: 1 })).id;
  await executor.deliver(executor.worker([email, doomed]), await executor.receive());
  for (let n = 2; n < 5; n++) await client.enqueue(email, { n });
  await executor.clients.sqs.send(
    new SendMessageCommand({
      QueueUrl: executor.deadLetterQueueUrl,
      ...taskMessage({ id: dead, type: 'doomed', generation: 1, messageGroupId: 'k' }),
    }),
  );
});

describe('tasklane status', () => {
  it('prints counts per status, the dead-letter queue and the schedules', async () => {
    const run = await runCli(['status'], env);

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/PENDING\s*│\s*3/);
    expect(run.stdout).toMatch(/DEAD\s*│\s*1/);
    expect(run.stdout).toContain('Dead-letter queue: 1 waiting');
    expect(run.stdout).toContain('Schedules: none');
  });

  it('prints counts per type as parsable JSON with --json --by-type', async () => {
    const run = await runCli(['status', '--by-type', '--json'], env);

    const parsed = JSON.parse(run.stdout);
    expect(run.code).toBe(0);
    expect(parsed.counts.byType).toEqual({
      email: { PENDING: 3, SUCCEEDED: 1 },
      doomed: { DEAD: 1 },
    });
    expect(parsed.deadLetters.visible).toBe(1);
  });
});

describe('tasklane list', () => {
  it('lists tasks newest first with filters', async () => {
    const all = JSON.parse((await runCli(['list', '--json'], env)).stdout);
    const deadOnly = JSON.parse(
      (await runCli(['list', '--status', 'dead', '--key', 'k', '--json'], env)).stdout,
    );
    const table = await runCli(['list', '--type', 'email', '--limit', '2'], env);

    const times = all.items.map((t: { updatedAt: string }) => t.updatedAt);
    expect(all.items).toHaveLength(5);
    expect([...times].sort().reverse()).toEqual(times);
    expect(deadOnly.items.map((t: { id: string }) => t.id)).toEqual([dead]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('email');
    expect(table.stderr).toMatch(/More: tasklane list --type email --limit 2 --cursor \S+\n/);
  });

  it('exits 2 naming a bad status, limit or time', async () => {
    const status = await runCli(['list', '--status', 'DONE'], env);
    const limit = await runCli(['list', '--limit', 'ten'], env);
    const since = await runCli(['list', '--since', 'yesterday'], env);

    expect(status.code).toBe(2);
    expect(status.stderr).toContain('expected one or more of WAITING, SCHEDULED');
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit expects a whole number');
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since expects a duration');
  });
});

describe('tasklane show', () => {
  it('prints the record and its timeline with the run duration', async () => {
    const run = await runCli(['show', succeeded], env);
    const json = JSON.parse((await runCli(['show', succeeded, '--json'], env)).stdout);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('SUCCEEDED');
    expect(run.stdout).toContain('"sent"');
    expect(json.timeline.map((e: { event: string }) => e.event)).toEqual([
      'submitted',
      'claimed',
      'succeeded',
    ]);
    expect(json.timeline[2].durationMs).toBeGreaterThanOrEqual(0);
  });

  it('exits 4 for an unknown id, saying how to find one', async () => {
    const run = await runCli(['show', 'no-such-task'], env);

    expect(run.code).toBe(4);
    expect(run.stderr).toContain('No task has the id "no-such-task"');
    expect(run.stderr).toContain('tasklane list');
  });
});

describe('tasklane dlq peek', () => {
  it('shows dead letters and leaves them in the queue', async () => {
    const first = await runCli(['dlq', 'peek'], env);
    const second = JSON.parse((await runCli(['dlq', 'peek', '--json'], env)).stdout);

    expect(first.code).toBe(0);
    expect(first.stdout).toContain(dead);
    expect(second.map((m: { taskId: string }) => m.taskId)).toEqual([dead]);
    expect(second[0].receiveCount).toBeGreaterThanOrEqual(2);
  });
});

describe('tasklane --stack', () => {
  it("reads the executor from the stack's outputs", async () => {
    const outputs = {
      TableName: executor.tableName,
      WorkQueueUrl: executor.queueUrl,
      WorkQueueArn: executor.queueArn,
      DeadLetterQueueUrl: executor.deadLetterQueueUrl,
      ScheduleGroupName: executor.scheduler.scheduleGroup,
      SchedulerRoleArn: executor.scheduler.schedulerRoleArn,
      ScheduleDeadLetterQueueArn: executor.scheduler.scheduleDeadLetterArn,
      WorkerFunctionName: 'worker',
    };
    const template = {
      Resources: { Marker: { Type: 'AWS::SQS::Queue' } },
      Outputs: Object.fromEntries(
        Object.entries(outputs).map(([k, v]) => [`Executor${k}`, { Value: v }]),
      ),
    };
    const cloudformation = new CloudFormationClient({
      region: 'us-east-1',
      endpoint: process.env.AWS_ENDPOINT_URL as string,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    await cloudformation.send(
      new CreateStackCommand({ StackName: 'CliStack', TemplateBody: JSON.stringify(template) }),
    );

    const run = await runCli(['status', '--stack', 'CliStack', '--executor', 'Executor', '--json']);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).counts.byStatus).toMatchObject({ PENDING: 3, DEAD: 1 });
  });
});

describe('tasklane (configuration and usage errors)', () => {
  it('exits 3 when no executor is given, naming the ways to give one', async () => {
    const run = await runCli(['status']);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('--stack <name>');
    expect(run.stderr).toContain('TASKLANE_TABLE_NAME');
  });

  it('exits 3 for a stack that does not exist', async () => {
    const run = await runCli(['status', '--stack', 'NoSuchStack']);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Stack NoSuchStack does not exist');
  });

  it('exits 2 for an unknown command and lists the commands in --help', async () => {
    const bad = await runCli(['stauts'], env);
    const help = await runCli(['--help']);

    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown command 'stauts'");
    expect(help.code).toBe(0);
    for (const command of [
      'status',
      'list',
      'show',
      'dlq',
      'redrive',
      'cancel',
      'purge',
      'schedules',
      'tail',
      'dev',
      'console',
    ]) {
      expect(help.stdout).toContain(`  ${command}`);
    }
  });

  it('reports errors as JSON on stdout with --json', async () => {
    const run = await runCli(['show', 'missing', '--json'], env);

    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout).error).toMatchObject({ exitCode: 4, code: 'TASK_NOT_FOUND' });
  });
});

describe('tasklane tail', () => {
  it('prints one task’s transitions as JSON lines until it ends', async () => {
    const run = await runCli(['tail', '--id', succeeded, '--json', '--interval', '100'], env);

    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event);
    expect(run.code).toBe(0);
    expect(events).toEqual(['submitted', 'claimed', 'succeeded']);
    expect(TaskStatus.SUCCEEDED).toBe('SUCCEEDED');
  });
});
