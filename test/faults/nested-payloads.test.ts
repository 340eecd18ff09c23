/**
 * (q) Nested payloads. Bodies nested about 2,200 levels deep (where a recursive
 * canonicalisation overflows the stack) and 100,000 levels deep are sent to the work queue
 * in one ordering key's message group: as raw bodies, and as firings signed with the
 * scheduler's credentials (so that they pass the sender check and reach canonicalisation),
 * with the key's legitimate tasks queued behind them. A message that cannot be a task must
 * be acknowledged and audited at once, not retried until the DLQ while it holds its group:
 * the key's tasks must finish within seconds, and the worker must never crash.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, it } from 'vitest';
import { ErrorCode, TasklaneError } from '../../src/core/errors.js';
import { formatScheduledTime } from '../../src/scheduler/occurrences.js';
import { nested } from './lib/bad-inputs.js';
import { FAULT_TASK_TYPE, type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import {
  firingBody,
  queueDepth,
  rejectionOf,
  schedulerSqs,
  sendOne,
  sqsSignedBy,
  startLocalRun,
} from './lib/local.js';
import { sleep } from './lib/random.js';
import { range } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';

const KEY = 'q-key';
const ROUNDS = 2;
const TASKS_PER_ROUND = 10;
const SHALLOW = 2_200;
const DEEP = 100_000;
/** The key's tasks must all finish within this long after the last is enqueued. */
const BOUND_MS = 45_000;
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 500 };

describe('nested payloads', () => {
  it(`never blocks a key behind payloads nested ${SHALLOW} and ${DEEP} levels deep`, async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'q',
      title: '(q) Nested payloads',
      description: `On the real local executor, ${ROUNDS} rounds each send one ordering key's message group 7 bad messages (raw bodies of arrays and objects nested ${SHALLOW.toLocaleString('en-US')} deep and arrays nested ${DEEP.toLocaleString('en-US')} deep; firings whose payload is nested that deep, signed by the scheduler's credentials and by another key), then ${TASKS_PER_ROUND} legitimate tasks of the key. A producer also tries to enqueue and to schedule a payload nested ${DEEP.toLocaleString('en-US')} deep.`,
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
      scheduling: true,
    });
    const run = await startLocalRun(s, PROFILE);
    const { client } = run.local;
    const task = s.producerTask(PROFILE);
    const attacker = sqsSignedBy('AKIDATTACKER0002');
    const scheduler = schedulerSqs();
    const queueUrl = s.executor.queueUrl;
    // The leaf is the round, so that no body repeats: the queue deduplicates by content.
    let round = 0;
    const arrays = (depth: number) => `${'['.repeat(depth)}${round}${']'.repeat(depth)}`;
    const objects = (depth: number) => `${'{"a":'.repeat(depth)}${round}${'}'.repeat(depth)}`;
    const bad: { kind: string; messageId: string; firingId?: string }[] = [];
    const send = async (kind: string, sqs: SQSClient, body: string) => {
      bad.push({ kind, messageId: await sendOne(sqs, queueUrl, body, KEY) });
    };
    const sendFiring = async (
      kind: string,
      sqs: SQSClient,
      schedule: string,
      payloadJson: string,
    ) => {
      const at = Math.floor(Date.now() / 1000) * 1000;
      const body = firingBody({
        schedule,
        type: FAULT_TASK_TYPE,
        payloadJson,
        at,
        orderingKey: KEY,
      });
      const messageId = await sendOne(sqs, queueUrl, body, KEY);
      bad.push({ kind, messageId, firingId: `${schedule}@${formatScheduledTime(at)}` });
    };
    const ids: string[] = [];
    let lastEnqueued = 0;

    // Act: each round, the bad messages first, then the key's tasks behind them.
    for (round = 0; round < ROUNDS; round++) {
      await send(`raw arrays ${SHALLOW} deep`, attacker, arrays(SHALLOW));
      await send(`raw objects ${SHALLOW} deep`, attacker, objects(SHALLOW));
      await send(`raw arrays ${DEEP} deep`, attacker, arrays(DEEP));
      await sendFiring(
        `firing, arrays ${SHALLOW} deep`,
        scheduler,
        `q-arrays-${round}`,
        arrays(SHALLOW),
      );
      await sendFiring(
        `firing, objects ${SHALLOW} deep`,
        scheduler,
        `q-objects-${round}`,
        objects(SHALLOW),
      );
      await sendFiring(`firing, arrays ${DEEP} deep`, scheduler, `q-deep-${round}`, arrays(DEEP));
      await sendFiring(
        `firing ${SHALLOW} deep, another sender`,
        attacker,
        `q-forged-${round}`,
        arrays(SHALLOW),
      );
      for (const n of range(TASKS_PER_ROUND)) {
        const seq = round * TASKS_PER_ROUND + n;
        const { id } = await client.enqueue(
          task,
          { seq, mode: WorkMode.OK, runMs: 50 },
          { id: `q-${seq}`, orderingKey: KEY },
        );
        ids.push(id);
      }
      lastEnqueued = Date.now();
      if (round < ROUNDS - 1) await sleep(2000);
    }
    // The producer's boundary: enqueue and schedule refuse such a payload with a typed error.
    const refused = async (attempt: Promise<unknown>) =>
      attempt.then(
        () => 'accepted',
        (err: unknown) => (err instanceof TasklaneError ? err.code : `untyped ${String(err)}`),
      );
    const atProducer = [
      await refused(client.enqueue(task, nested(DEEP, 'array') as never, { orderingKey: KEY })),
      await refused(
        client.schedules.set('q-producer', {
          task,
          payload: nested(DEEP, 'array') as never,
          rate: '1 hour',
        }),
      ),
    ];
    await s.quiesce(ids, 120_000);
    const finishedWithin = Date.now() - lastEnqueued;
    await sleep(2000);
    await run.local.stop();

    // Assert
    const { figures, verdicts } = await s.classify(allSucceed(ids));
    const once = verdicts.filter((v) => v.category === 'exactly-once').length;
    const audited = bad.filter((b) => rejectionOf(run, b.messageId) !== undefined);
    const reasonOf = (b: (typeof bad)[number]) =>
      (rejectionOf(run, b.messageId) ?? 'no audit')
        .replace(/; body sha256 \w+$/, '')
        .replace(/^(body is not a Tasklane \w+) \(.*\)$/, '$1');
    const reasons = [...new Set(bad.map((b) => `${b.kind}: ${reasonOf(b)}`))];
    const firingRecords = (
      await Promise.all(
        bad.flatMap((b) => (b.firingId === undefined ? [] : [s.executor.store.get(b.firingId)])),
      )
    ).filter((r) => r !== undefined).length;
    const [depth, dlq] = await Promise.all([
      queueDepth(s.executor.clients.sqs, queueUrl),
      queueDepth(s.executor.clients.sqs, s.executor.deadLetterQueueUrl),
    ]);
    const crashed =
      run.local.failed.aborted ||
      run.logger.lines.some((l) => l.message.includes('event source mapping stopped'));
    s.note('bad messages sent', bad.length);
    s.note('rejection reasons', reasons.slice(0, 7).join('; '));
    s.note(
      "the key's tasks finished after the last enqueue",
      `${(finishedWithin / 1000).toFixed(1)} s`,
    );
    checkCommon(s, figures);
    s.check(
      'key-unblocked',
      `the key's ${ids.length} tasks SUCCEEDED exactly once within ${BOUND_MS / 1000} s of the last enqueue`,
      once === ids.length && finishedWithin <= BOUND_MS,
      `${once}/${ids.length} in ${(finishedWithin / 1000).toFixed(1)} s`,
    );
    s.check(
      'bad-audited',
      'every bad message acknowledged and audited as message-rejected',
      audited.length === bad.length,
      `${audited.length}/${bad.length}`,
    );
    s.check(
      'no-firing-record',
      'no record for a nested firing, and no handler run',
      firingRecords === 0 && run.runs.every((r) => ids.includes(r.taskId)),
      `${firingRecords} records, ${run.runs.filter((r) => !ids.includes(r.taskId)).length} runs`,
    );
    s.check(
      'queues-empty',
      'work queue and DLQ empty afterwards (nothing dead-lettered)',
      depth === 0 && dlq === 0,
      `queue ${depth}, DLQ ${dlq}`,
    );
    s.check(
      'producer-refuses',
      `enqueue and schedule refuse a payload nested ${DEEP.toLocaleString('en-US')} deep with ValidationError`,
      atProducer.every((code) => code === ErrorCode.VALIDATION),
      atProducer.join(', '),
    );
    s.check('no-crash', '0 worker crashes', !crashed, crashed ? 'crashed' : 0);
    await s.finish();
  });
});
