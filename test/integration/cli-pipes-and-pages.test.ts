/**
 * The CLI's rough edges a new user hit (issue 27, item 11): a reader that leaves early, a
 * "More" hint that could not be pasted, and `--json` errors that named only the CLI's wrapper.
 */
import { once } from 'node:events';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli, startCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const note = defineTask('note', { schema: z.object({ text: z.string() }), handler: () => 'ok' });

let executor: TestExecutor;
let env: Record<string, string>;
let big: string;

beforeAll(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
  const client = executor.client();
  // A show of this task prints far more than a pipe holds (64 KiB).
  big = (await client.enqueue(note, { text: 'x'.repeat(200_000) }, { id: 'big' })).id;
  for (let n = 0; n < 5; n++) {
    await client.enqueue(note, { text: `n${n}` }, { id: `note-${n}`, orderingKey: 'k&1' });
  }
});

/** The words of a line printed for a POSIX shell (plain words and single-quoted ones). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) {
    words.push(match[1] === undefined ? (match[2] ?? '') : match[1].replaceAll(`'\\''`, "'"));
  }
  return words;
}

describe('tasklane with a reader that leaves early', () => {
  it('show <id> | head: exits 0, printing no stack trace', async () => {
    // Arrange
    const child = startCli(['show', big], env);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });

    // Act: read the first chunk, then close the pipe, as `head` does.
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    child.stdout?.destroy();
    const [code] = (await once(child, 'close')) as [number | null];

    // Assert
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('tail | head: the follow ends, with 0, once its reader has gone', async () => {
    // Arrange
    const child = startCli(['tail', '--json'], env);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    while (!stderr.includes('Following every task')) {
      await once(child.stderr as NodeJS.ReadableStream, 'data');
    }
    const exited = once(child, 'close') as Promise<[number | null]>;

    // Act: one line read, then the pipe closed; the next transitions find no reader.
    const client = executor.client();
    await client.enqueue(note, { text: 'first' });
    await once(child.stdout as NodeJS.ReadableStream, 'data');
    child.stdout?.destroy();
    for (let n = 0; n < 3; n++) await client.enqueue(note, { text: `after ${n}` });
    const [code] = await exited;

    // Assert
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });
});

describe('tasklane list: the next page', () => {
  it('prints a command that, pasted as it is, lists the next page of the same filters', async () => {
    // Arrange: an executor found only through --stack, as a user on AWS would name it.
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
    const cloudformation = new CloudFormationClient({
      region: 'us-east-1',
      endpoint: process.env.AWS_ENDPOINT_URL as string,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    await cloudformation.send(
      new CreateStackCommand({
        StackName: 'PagesStack',
        TemplateBody: JSON.stringify({
          Resources: { Marker: { Type: 'AWS::SQS::Queue' } },
          Outputs: Object.fromEntries(
            Object.entries(outputs).map(([k, v]) => [`Tasks${k}`, { Value: v }]),
          ),
        }),
      }),
    );
    const first = ['--stack', 'PagesStack', 'list', '--key', 'k&1', '--since', '1h'];

    // Act
    const page1 = await runCli([...first, '--limit', '3']);
    const more = /^More: (.*)$/m.exec(page1.stderr)?.[1] ?? '';
    const [program, ...pasted] = shellWords(more);
    const page2 = await runCli([...pasted, '--json']);

    // Assert
    expect(page1.code).toBe(0);
    expect(program).toBe('tasklane');
    expect(pasted.slice(0, 3)).toEqual(['--stack', 'PagesStack', 'list']);
    expect(pasted).toEqual(expect.arrayContaining(['--key', 'k&1', '--limit', '3']));
    expect(pasted[pasted.indexOf('--since') + 1]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(page2.code).toBe(0);
    const shown = [...page1.stdout.matchAll(/note-\d/g)].map((m) => m[0]);
    const next = JSON.parse(page2.stdout).items.map((t: { id: string }) => t.id);
    expect(shown).toHaveLength(3);
    expect(next).toHaveLength(2);
    expect([...shown, ...next].sort()).toEqual(['note-0', 'note-1', 'note-2', 'note-3', 'note-4']);
  });
});

describe('tasklane --json errors', () => {
  it('carry the name, code and hint of the error behind them', async () => {
    // Act
    const missingTask = await runCli(['show', 'no-such-task', '--json'], env);
    const noExecutor = await runCli(['status', '--json']);
    const noStack = await runCli(['status', '--stack', 'NoSuchStack', '--json']);
    const badId = await runCli(['show', 'has space', '--json'], env);

    // Assert
    const error = (run: { stdout: string }) => JSON.parse(run.stdout).error;
    expect(error(missingTask)).toEqual({
      exitCode: 4,
      code: 'TASK_NOT_FOUND',
      name: 'TaskNotFoundError',
      message: 'No task has the id "no-such-task".',
      hint: expect.stringContaining('tasklane list shows recent ones'),
    });
    expect(error(noExecutor)).toMatchObject({
      exitCode: 3,
      code: 'CONFIGURATION',
      name: 'CliError',
      hint: expect.stringContaining('--stack <name>'),
    });
    expect(error(noStack)).toMatchObject({
      exitCode: 3,
      code: 'ValidationError',
      name: 'ValidationError',
      hint: expect.stringContaining('--region'),
    });
    expect(error(badId)).toMatchObject({
      exitCode: 2,
      code: 'VALIDATION',
      name: 'ValidationError',
    });
  });
});
