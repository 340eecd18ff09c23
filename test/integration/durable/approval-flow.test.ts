import { beforeAll, describe, expect, it } from 'vitest';
import { approvalTask, type Mailer, onDecision } from '../../../examples/approval-flow.js';
import { AuditEvent, TaskStatus } from '../../../src/core/constants.js';
import { KmsMacClient } from '../../../src/integrity/kms-mac.js';
import { executor, runWorker, useDurableExecutor } from '../../helpers/durable.js';

useDurableExecutor();

/** A real HMAC_256 key in the emulator's KMS, for the signal tokens. */
let integrity: { keyId: string; endpoint: string | undefined };

beforeAll(async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL;
  const kms = new KmsMacClient({ credentialsFrom: executor.clients.dynamodb, endpoint });
  integrity = { keyId: await kms.createHmacKey('approval flow'), endpoint };
});

/** A mailer that records what it sent and hands the link's token to the test. */
function recordingMailer() {
  const sent: string[] = [];
  const tokens = new Map<string, string>();
  const mailer: Mailer = {
    askForApproval: async (expense, _manager, token) => {
      sent.push(`ask ${expense}`);
      tokens.set(expense, token);
    },
    remind: async (expense, _manager, round) => {
      sent.push(`remind ${expense} ${round}`);
    },
    tellEmployee: async (expense, outcome) => {
      sent.push(`tell ${expense} ${outcome}`);
    },
  };
  return { mailer, sent, tokens };
}

describe('the approval-flow guide example', () => {
  it('waits, reminds once, and ends with the decision the link delivered', async () => {
    const { mailer, sent, tokens } = recordingMailer();
    runWorker(approvalTask(mailer, { waitMs: 2_000, reminders: 3 }), { integrity });
    const client = executor.client({ integrity });

    const { id } = await client.enqueue(approvalTask(mailer), {
      expenseId: 'exp-1',
      manager: 'bob@example.com',
    });
    await expect.poll(() => sent, { timeout: 20_000 }).toContain('remind exp-1 1');
    await onDecision(client, tokens.get('exp-1') ?? '', { approved: true, by: 'bob' });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.status).toBe(TaskStatus.SUCCEEDED);
    expect(record.result).toEqual({ outcome: 'approved', by: 'bob' });
    expect(sent.filter((line) => line === 'ask exp-1')).toHaveLength(1);
    expect(sent.at(-1)).toBe('tell exp-1 approved');
    expect(record.attempt).toBe(1);
    expect(record.history.filter((h) => h.event === AuditEvent.SUSPENDED).length).toBeGreaterThan(
      1,
    );
  });

  it('expires after its last reminder when no decision comes', async () => {
    const { mailer, sent } = recordingMailer();
    runWorker(approvalTask(mailer, { waitMs: 1_000, reminders: 1 }), { integrity });
    const client = executor.client({ integrity });

    const { id } = await client.enqueue(approvalTask(mailer), {
      expenseId: 'exp-2',
      manager: 'carol@example.com',
    });
    const record = await client.wait(id, { timeoutMs: 30_000 });

    expect(record.result).toEqual({ outcome: 'expired' });
    expect(sent).toEqual(['ask exp-2', 'remind exp-2 1', 'tell exp-2 expired']);
  });
});
