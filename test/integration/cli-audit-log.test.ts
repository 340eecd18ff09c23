/**
 * The CLI appends each operator action, with who acted, to its audit log
 * (docs/adr/0039-operator-audit.md).
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AuditEvent } from '../../src/core/constants.js';
import { PermanentError } from '../../src/core/errors.js';
import { defineTask } from '../../src/tasks/task-definition.js';
import { executorEnv, runCli } from '../helpers/cli.js';
import { setupExecutor, type TestExecutor } from '../helpers/executor.js';

const broken = defineTask('broken', {
  schema: z.object({ n: z.number() }),
  retry: { maxAttempts: 1 },
  handler: () => {
    throw new PermanentError('always fails');
  },
});

let executor: TestExecutor;
let env: Record<string, string>;

beforeEach(async () => {
  executor = await setupExecutor();
  env = executorEnv(executor);
});

async function auditLines(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('tasklane audit log', () => {
  it('appends a redrive and a purge, each with the principal, to the file named', async () => {
    const client = executor.client();
    const first = await client.enqueue(broken, { n: 1 });
    const second = await client.enqueue(broken, { n: 2 });
    await executor.drain(executor.worker([broken]));
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'tasklane-audit-')), 'a', 'audit.log');

    const redrive = await runCli(['redrive', '--ids', first.id, '--yes', '--audit-log', file], env);
    const purge = await runCli(['purge', '--dead', '--older-than', '0s', '--yes'], {
      ...env,
      TASKLANE_AUDIT_LOG: file,
    });

    expect(redrive.code).toBe(0);
    expect(purge.code).toBe(0);
    const lines = await auditLines(file);
    const redriven = lines.find((l) => l.event === AuditEvent.REDRIVEN);
    const purged = lines.find((l) => l.event === AuditEvent.PURGED);
    expect(redriven).toMatchObject({ taskId: first.id, audit: true });
    expect(purged).toMatchObject({ taskId: second.id, audit: true });
    expect(redriven?.principal).toMatch(/^arn:aws:/);
    expect(purged?.principal).toBe(redriven?.principal);
    expect((await stat(file)).mode & 0o077).toBe(0);
  });
});
