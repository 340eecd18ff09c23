/**
 * (p) Forged firings. The real local executor runs three genuine recurring schedules (its
 * pump signs with the scheduler's own credentials, and the emulator stamps the signing key
 * as SenderId). Meanwhile an attacker with another access key sends the work queue forged
 * firings (for an existing schedule, now and at its next firing; for a schedule that does
 * not exist; dated in the future; with a reserved name), and task envelopes of existing
 * tasks in another message group, and a producer tries to take a firing's id. Firings sent
 * with the scheduler's credentials but future-dated, reserved or conflicting with a firing
 * already run show the checks behind the sender's (docs/adr/0013-firing-admission.md).
 * No forgery may run; every genuine firing must run exactly once.
 */
import { GetScheduleCommand } from '@aws-sdk/client-scheduler';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, it } from 'vitest';
import { MESSAGE_SCHEMA_VERSION, TaskStatus } from '../../src/core/constants.js';
import { ErrorCode, TasklaneError } from '../../src/core/errors.js';
import { parseScheduleExpression } from '../../src/scheduler/expression.js';
import { formatScheduledTime, occurrences } from '../../src/scheduler/occurrences.js';
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

const SCHEDULES = 3;
const KEYED = 10;
const MINUTE = 60_000;
/** The payload of every forgery: its runs are the forged runs. */
const HOSTILE = { seq: 666_666, mode: WorkMode.OK, runMs: 0 };
const PROFILE: TaskProfile = { timeoutMs: 5000, maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 500 };

interface Forgery {
  readonly kind: string;
  readonly messageId: string;
  readonly reason: RegExp;
}

describe('forged firings', () => {
  it('runs no forged firing and every genuine firing exactly once', async () => {
    // Arrange
    const s = await Scenario.open({
      id: 'p',
      title: '(p) Forged firings',
      description: `The real local executor runs ${SCHEDULES} recurring schedules (rate 1 minute) for about 70 s; its pump signs with the scheduler's credentials. An attacker with another access key sends forged firings (an existing schedule now and at its next firing, a nonexistent schedule, future-dated, a reserved name) and ${KEYED} task envelopes in the wrong message group; a producer enqueues an id with '@'. Firings signed by the scheduler but future-dated, reserved or conflicting with a run firing are sent too.`,
      workerTimeoutSeconds: 5,
      maxAttempts: PROFILE.maxAttempts,
      scheduling: true,
    });
    const run = await startLocalRun(s, PROFILE);
    const { client } = run.local;
    const task = s.producerTask(PROFILE);
    const attacker = sqsSignedBy('AKIDATTACKER0001');
    const scheduler = schedulerSqs();
    const queueUrl = s.executor.queueUrl;
    const names = range(SCHEDULES).map((i) => `p-nightly-${i}`);
    const first0 = 'p-nightly-0';
    const forgeries: Forgery[] = [];
    const bySender = /not sent by the scheduler role/;
    const forge = async (
      kind: string,
      reason: RegExp,
      sqs: SQSClient,
      body: string,
      group: string,
    ) => {
      forgeries.push({ kind, messageId: await sendOne(sqs, queueUrl, body, group), reason });
    };
    const forgeFiring = (
      kind: string,
      reason: RegExp,
      sqs: SQSClient,
      schedule: string,
      at: number,
    ) =>
      forge(
        kind,
        reason,
        sqs,
        firingBody({ schedule, type: FAULT_TASK_TYPE, payloadJson: JSON.stringify(HOSTILE), at }),
        schedule,
      );

    // Act: the genuine schedules, then the forgeries while they fire.
    for (const [i, name] of names.entries()) {
      await client.schedules.set(name, {
        task,
        payload: { seq: i, mode: WorkMode.OK, runMs: 50 },
        rate: '1 minute',
      });
    }
    const timings = await Promise.all(
      names.map(async (name) => {
        const out = await s.executor.clients.scheduler?.send(
          new GetScheduleCommand({ Name: name, GroupName: s.executor.scheduler?.scheduleGroup }),
        );
        const parsed = parseScheduleExpression(out?.ScheduleExpression ?? '');
        if (!parsed.ok) throw new Error(`schedule ${name}: ${parsed.problem}`);
        const startDate = out?.StartDate?.getTime() ?? out?.CreationDate?.getTime() ?? Date.now();
        return { name, timing: { expression: parsed.expression, startDate }, startDate };
      }),
    );
    const firstOf = (t: { startDate: number }) => Math.ceil(t.startDate / 1000) * 1000;
    const first0At = firstOf(timings[0] ?? { startDate: Date.now() });
    const now = Date.now();
    for (const timing of timings) {
      const { name } = timing;
      const first = firstOf(timing);
      await forgeFiring('existing schedule, its first firing', bySender, attacker, name, first);
      await forgeFiring(
        'existing schedule, its next firing',
        bySender,
        attacker,
        name,
        first + MINUTE,
      );
    }
    const second = Math.floor(now / 1000) * 1000;
    await forgeFiring('nonexistent schedule', bySender, attacker, 'p-ghost', second);
    await forgeFiring('future-dated', bySender, attacker, first0, now + 60 * MINUTE);
    await forgeFiring('reserved name', bySender, attacker, 'task.p-forged', second);
    await forgeFiring(
      'future-dated, scheduler-signed',
      /skew allowance/,
      scheduler,
      first0,
      now + 60 * MINUTE,
    );
    await forgeFiring(
      'reserved name, scheduler-signed',
      /reserved/,
      scheduler,
      'task_p-forged',
      second,
    );

    const keyed = range(KEYED).map((seq) => `p-keyed-${seq}`);
    for (const [seq, id] of keyed.entries()) {
      await client.enqueue(
        task,
        { seq: 1000 + seq, mode: WorkMode.OK, runMs: 100 },
        { id, orderingKey: 'pk' },
      );
      const envelope = JSON.stringify({
        tasklane: MESSAGE_SCHEMA_VERSION,
        id,
        type: FAULT_TASK_TYPE,
      });
      await forge(
        'task envelope, wrong message group',
        /message group/,
        attacker,
        envelope,
        'p-elsewhere',
      );
    }

    // A producer tries to take the next genuine firing's id.
    const takenId = `${first0}@${formatScheduledTime(first0At + MINUTE)}`;
    const atId = await client.enqueue(task, HOSTILE, { id: takenId }).then(
      () => 'accepted',
      (err: unknown) => (err instanceof TasklaneError ? err.code : 'untyped error'),
    );

    // A firing that ran, sent again by the scheduler's credentials with another payload.
    const ranFirst = `${first0}@${formatScheduledTime(first0At)}`;
    for (
      let waited = 0;
      waited < 30_000 && (await s.executor.store.get(ranFirst))?.status !== TaskStatus.SUCCEEDED;
      waited += 500
    ) {
      await sleep(500);
    }
    await forgeFiring(
      'conflicting firing, scheduler-signed',
      /conflicting firing/,
      scheduler,
      first0,
      first0At,
    );

    // Every schedule fires twice (at its start and a minute later), then is deleted.
    const lastSecond = Math.max(...timings.map(firstOf)) + MINUTE;
    await sleep(Math.max(0, lastSecond + 3000 - Date.now()));
    const cutoff = Date.now() - 2000;
    for (const name of names) await client.schedules.delete(name);
    const genuine = timings.flatMap((t) =>
      occurrences(t.timing, t.startDate - 1000, cutoff).map(
        (at) => `${t.name}@${formatScheduledTime(at)}`,
      ),
    );
    await s.quiesce([...genuine, ...keyed], 60_000);
    await sleep(2000);
    await run.local.stop();

    // Assert
    const { figures, verdicts } = await s.classify(allSucceed([...genuine, ...keyed]));
    const forgedRuns = run.runs.filter(
      (r) =>
        r.payload.seq === HOSTILE.seq ||
        r.taskId.includes('p-ghost') ||
        r.taskId.startsWith('task'),
    ).length;
    const genuineOnce = verdicts.filter(
      (v) => genuine.includes(v.id) && v.category === 'exactly-once',
    ).length;
    const keyedOnce = verdicts.filter(
      (v) => keyed.includes(v.id) && v.category === 'exactly-once',
    ).length;
    const audited = forgeries.filter((f) =>
      f.reason.test(rejectionOf(run, f.messageId) ?? '\u0000'),
    );
    const missed = forgeries
      .filter((f) => !audited.includes(f))
      .map((f) => `${f.kind}: ${rejectionOf(run, f.messageId) ?? 'no audit'}`);
    const [depth, dlq] = await Promise.all([
      queueDepth(s.executor.clients.sqs, queueUrl),
      queueDepth(s.executor.clients.sqs, s.executor.deadLetterQueueUrl),
    ]);
    const ghostRecord = await s.executor.store.get(
      `p-ghost@${formatScheduledTime(Math.floor(now / 1000) * 1000)}`,
    );
    // The id a producer tried to take is a genuine firing's: it must have run the schedule's
    // own payload (p-nightly-<i> runs seq i).
    const foreignPayloads = run.runs.filter(
      (r) => genuine.includes(r.taskId) && `p-nightly-${r.payload.seq}` !== r.taskId.split('@')[0],
    ).length;
    s.note('genuine firings in the window', genuine.length);
    s.note('forgeries sent', forgeries.length);
    s.note('forgeries not audited as expected', missed.slice(0, 3).join('; ') || 'none');
    checkCommon(s, figures);
    s.check('no-forged-run', '0 forged handler runs', forgedRuns === 0, forgedRuns);
    s.check(
      'genuine-once',
      'every genuine firing in the window ran exactly once',
      genuineOnce === genuine.length && genuine.length >= 2 * SCHEDULES,
      `${genuineOnce}/${genuine.length}`,
    );
    s.check(
      'keyed-once',
      `${KEYED}/${KEYED} keyed tasks ran exactly once despite the wrong-group copies`,
      keyedOnce === KEYED,
      `${keyedOnce}/${KEYED}`,
    );
    s.check(
      'forgeries-audited',
      'every forgery acknowledged and audited as message-rejected, with its reason',
      audited.length === forgeries.length,
      `${audited.length}/${forgeries.length}`,
    );
    s.check(
      'queues-empty',
      'work queue and DLQ empty afterwards (nothing dead-lettered)',
      depth === 0 && dlq === 0,
      `queue ${depth}, DLQ ${dlq}`,
    );
    s.check(
      'no-forged-record',
      "no record for the nonexistent schedule's firing; every genuine firing ran its own schedule's payload",
      ghostRecord === undefined && foreignPayloads === 0,
      `${ghostRecord === undefined ? 0 : 1} record(s), ${foreignPayloads} foreign payload(s)`,
    );
    s.check(
      'producer-at-id',
      "enqueue with an '@' id refused with ValidationError",
      atId === ErrorCode.VALIDATION,
      atId,
    );
    s.check(
      'no-crash',
      "the worker's event source mapping never failed",
      !run.local.failed.aborted,
      run.local.failed.aborted ? 'failed' : 'ran',
    );
    await s.finish();
  });
});
