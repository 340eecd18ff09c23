import { once } from 'node:events';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { TaskClient } from '../../src/client/task-client.js';
import { TaskStatus } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/observability/logger.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { greet } from '../fixtures/cli-dev-tasks.js';
import { executorEnv, runCli, startCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

let failing = true;
const flaky = defineTask('flaky', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 1 },
  handler: () => {
    if (failing) throw new PermanentError('dependency down');
    return 'ok';
  },
});
const email = defineTask('email', { schema: z.object({ n: z.number() }), handler: () => 'sent' });

let executor: TestExecutor;
let env: Record<string, string>;

beforeEach(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
  failing = true;
});

/** Enqueues `count` flaky tasks on one key and lets them die. */
async function seedDead(count: number): Promise<string[]> {
  const client = executor.client();
  const ids: string[] = [];
  for (let n = 0; n < count; n++)
    ids.push((await client.enqueue(flaky, { n }, { orderingKey: 'k' })).id);
  await executor.drain(executor.worker([flaky]));
  return ids;
}

describe('tasklane redrive', () => {
  it('shows with --dry-run, refuses without --yes off a terminal, redrives with --yes', async () => {
    const [first, second] = await seedDead(2);

    const dry = await runCli(['redrive', '--key', 'k', '--dry-run'], env);
    const unconfirmed = await runCli(['redrive', '--ids', `${first}`], env);
    const done = await runCli(['redrive', '--key', 'k', '--yes', '--json'], env);
    failing = false;
    await executor.drain(executor.worker([flaky]));

    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`Would redrive 2 DEAD task(s)`);
    expect(unconfirmed.code).toBe(6);
    expect(unconfirmed.stderr).toContain('Pass --yes to confirm');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).redriven).toEqual([first, second]);
    const client = executor.client();
    expect((await client.get(first as string))?.status).toBe(TaskStatus.SUCCEEDED);
    expect((await client.get(second as string))?.status).toBe(TaskStatus.SUCCEEDED);
  });

  it('exits 5 naming the task when an id named is no longer DEAD', async () => {
    const [dead] = await seedDead(1);
    failing = false;
    await runCli(['redrive', '--ids', `${dead}`, '--yes'], env);
    await executor.drain(executor.worker([flaky]));

    const again = await runCli(['redrive', '--ids', `${dead}`, '--yes'], env);

    expect(again.code).toBe(5);
    expect(again.stdout).toContain(`skipped ${dead}: task is SUCCEEDED, not DEAD`);
  });

  it('with --all, drains a dead letter whose task still waits, though no task is DEAD', async () => {
    const { sqs } = executor.clients;
    const { id } = await executor.client().enqueue(email, { n: 7 }, { orderingKey: 'k' });
    // SQS's move after maxReceiveCount receives: the message leaves the work queue for the DLQ.
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: executor.queueUrl,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const [message] = received.Messages ?? [];
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: executor.deadLetterQueueUrl,
        MessageBody: message?.Body,
        MessageGroupId: message?.Attributes?.MessageGroupId,
        MessageDeduplicationId: message?.MessageId,
      }),
    );
    await sqs.send(
      new DeleteMessageCommand({
        QueueUrl: executor.queueUrl,
        ReceiptHandle: message?.ReceiptHandle,
      }),
    );

    const dry = await runCli(['redrive', '--all', '--dry-run'], env);
    const done = await runCli(['redrive', '--all', '--yes', '--json'], env);
    await executor.drain(executor.worker([email]));
    const peek = await runCli(['dlq', 'peek'], env);

    expect(dry.stdout).toContain('Would drain the dead-letter queue: 1 message(s) waiting.');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).dlq).toMatchObject({ movedBack: 1, deleted: 0 });
    expect((await executor.client().get(id))?.status).toBe(TaskStatus.SUCCEEDED);
    expect(peek.stdout).toContain('The dead-letter queue is empty.');
  });

  it('exits 2 unless exactly one of --ids, --all and --key is given', async () => {
    const run = await runCli(['redrive', '--all', '--key', 'k'], env);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('exactly one of --ids');
  });
});

describe('tasklane cancel', () => {
  it('cancels what has not started and exits 5 naming what it refused', async () => {
    const [dead] = await seedDead(1);
    const client = executor.client();
    const { id: queued } = await client.enqueue(email, { n: 1 });

    const dry = await runCli(['cancel', queued, '--dry-run', '--json'], env);
    const run = await runCli(['cancel', queued, dead as string, 'nope', '--yes'], env);

    expect(JSON.parse(dry.stdout)).toEqual([
      { id: queued, outcome: 'would-cancel', detail: 'PENDING' },
    ]);
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(new RegExp(`${queued}\\s*│\\s*cancelled`));
    expect(run.stdout).toContain('task is DEAD: it has finished');
    expect(run.stdout).toContain('no task has this id');
    expect((await client.get(queued))?.status).toBe(TaskStatus.CANCELLED);
  });
});

describe('tasklane pause and resume', () => {
  it('pauses a task by id and a key, resumes them, and exits 4 for an unknown id', async () => {
    const client = executor.client();
    const { id: single } = await client.enqueue(email, { n: 1 });
    const { id: keyed } = await client.enqueue(email, { n: 2 }, { orderingKey: 'pause-cli' });

    const paused = await runCli(['pause', single, '--yes', '--json'], env);
    const pausedKey = await runCli(['pause', '--key', 'pause-cli', '--yes'], env);
    const missing = await runCli(['pause', 'nope', '--yes'], env);
    const between = [(await client.get(single))?.status, (await client.get(keyed))?.status];
    const resumed = await runCli(['resume', single, '--yes', '--json'], env);
    const resumedKey = await runCli(['resume', '--key', 'pause-cli', '--yes'], env);

    expect(JSON.parse(paused.stdout)).toEqual([
      { id: single, outcome: 'paused', detail: 'PAUSED' },
    ]);
    expect(pausedKey.stdout).toMatch(new RegExp(`${keyed}\\s*│\\s*paused`));
    expect(missing.code).toBe(4);
    expect(between).toEqual([TaskStatus.PAUSED, TaskStatus.PAUSED]);
    expect(JSON.parse(resumed.stdout)).toEqual([
      { id: single, outcome: 'resumed', detail: 'PENDING' },
    ]);
    expect(resumedKey.stdout).toMatch(new RegExp(`${keyed}\\s*│\\s*resumed`));
    expect((await client.get(keyed))?.status).toBe(TaskStatus.PENDING);
  });
});

describe('tasklane pause --lane and resume --lane', () => {
  it('pauses and resumes a lane behind the confirmation, shows it in status, audits it, and exits 4 for an unknown lane', async () => {
    const audit = path.join(await mkdtemp(path.join(tmpdir(), 'tasklane-lane-audit-')), 'a.log');
    const withAudit = { ...env, TASKLANE_AUDIT_LOG: audit };

    const unconfirmed = await runCli(['pause', '--lane', 'default'], withAudit);
    const paused = await runCli(
      ['pause', '--lane', 'default', '--reason', 'deploy', '--yes', '--json'],
      withAudit,
    );
    const again = await runCli(['pause', '--lane', 'default', '--yes'], withAudit);
    const status = await runCli(['status'], withAudit);
    const statusJson = await runCli(['status', '--json'], withAudit);
    const unknown = await runCli(['pause', '--lane', 'nope', '--yes'], withAudit);
    const both = await runCli(['pause', '--lane', 'default', '--key', 'k', '--yes'], withAudit);
    const resumed = await runCli(['resume', '--lane', 'default', '--yes', '--json'], withAudit);
    const lines = (await readFile(audit, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

    expect(unconfirmed.code).toBe(6);
    expect(paused.code).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({
      lane: 'default',
      paused: true,
      changed: true,
      reason: 'deploy',
      switchedMappings: [],
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already paused');
    expect(status.stdout).toMatch(/paused lane[\s\S]*default[\s\S]*deploy/);
    expect(JSON.parse(statusJson.stdout).lanes).toEqual([
      expect.objectContaining({ lane: 'default', paused: true, reason: 'deploy' }),
    ]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('No lane is named "nope"');
    expect(both.code).toBe(2);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ paused: false, changed: true });
    expect(lines.filter((l) => l.audit === true).map((l) => [l.event, l.lane])).toEqual([
      ['lane-paused', 'default'],
      ['lane-resumed', 'default'],
    ]);
    expect(lines.find((l) => l.event === 'lane-paused')?.principal).toEqual(expect.any(String));
  });
});

describe('tasklane purge', () => {
  it('lists with --dry-run, then deletes with --yes', async () => {
    const [dead] = await seedDead(1);

    const young = await runCli(['purge', '--dead', '--older-than', '1h', '--dry-run'], env);
    const dry = await runCli(['purge', '--dead', '--older-than', '0s', '--dry-run'], env);
    const done = await runCli(['purge', '--dead', '--older-than', '0s', '--yes', '--json'], env);

    expect(young.stdout).toContain('No DEAD task died more than 1h ago.');
    expect(dry.stdout).toContain(`Would delete 1 DEAD task(s): ${dead}`);
    expect(JSON.parse(done.stdout)).toMatchObject({ purged: [dead], dryRun: false });
    expect(await executor.client().get(dead as string)).toBeUndefined();
  });

  it('exits 2 without --dead or with a malformed duration', async () => {
    const noDead = await runCli(['purge', '--older-than', '30d'], env);
    const badAge = await runCli(['purge', '--dead', '--older-than', 'a month', '--dry-run'], env);

    expect(noDead.code).toBe(2);
    expect(noDead.stderr).toContain('purge needs --dead and --older-than');
    expect(badAge.code).toBe(2);
    expect(badAge.stderr).toContain('expected a duration such as 90s');
  });
});

describe('tasklane schedules', () => {
  it('pauses and resumes a schedule, and exits 4 for an unknown one', async () => {
    await executor
      .client()
      .schedules.set('nightly', { rate: '1 day', task: email, payload: { n: 1 } });

    const paused = await runCli(['schedules', 'pause', 'nightly'], env);
    const listed = JSON.parse((await runCli(['schedules', 'list', '--json'], env)).stdout);
    const resumed = await runCli(['schedules', 'resume', 'nightly', '--json'], env);
    const unknown = await runCli(['schedules', 'pause', 'weekly'], env);

    expect(paused.stdout).toContain('Schedule nightly is DISABLED.');
    expect(listed).toEqual([expect.objectContaining({ name: 'nightly', state: 'DISABLED' })]);
    expect(JSON.parse(resumed.stdout)).toEqual({ name: 'nightly', state: 'ENABLED' });
    expect((await executor.client().schedules.get('nightly'))?.state).toBe('ENABLED');
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('No schedule is named "weekly"');
  });
});

describe('tasklane dev', () => {
  it("runs the user's task module in a local executor until interrupted", async () => {
    const child = startCli([
      'dev',
      '--tasks',
      'test/fixtures/cli-dev-tasks.ts',
      '--log',
      'silent',
      '--json',
    ]);
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    while (!stdout.trim().endsWith('}')) await once(child.stdout as NodeJS.ReadableStream, 'data');
    const { env: devEnv, tasks } = JSON.parse(stdout);
    const client = new TaskClient({
      tableName: devEnv.TASKLANE_TABLE_NAME,
      queueUrl: devEnv.TASKLANE_QUEUE_URL,
      sqs: executor.clients.sqs,
      dynamodb: executor.clients.dynamodb,
      logger: silentLogger,
    });

    const { id } = await client.enqueue(greet, { name: 'ada' });
    const record = await client.wait(id, { timeoutMs: 30_000 });
    child.kill('SIGINT');
    const [code] = await once(child, 'close');

    expect(tasks).toEqual(['greet']);
    expect(record).toMatchObject({ status: TaskStatus.SUCCEEDED, result: 'hello ada' });
    expect(code).toBe(0);
  });
});
