/**
 * Dependency outages. Tagged (`integrity: true`), claim-checked tasks (every payload and
 * result in the payload bucket) meet a 2-minute outage of KMS, then of S3, then of
 * EventBridge, each on the worker's side only. No outage may spend an attempt or kill a
 * task: every task ends SUCCEEDED at attempt 1, its handler run once, and its Succeeded event
 * published once the bus is back (docs/adr/0034-dependency-outages.md).
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import { describe, it } from 'vitest';
import { AuditEvent } from '../../src/core/constants.js';
import { KmsMacClient } from '../../src/integrity/kms-mac.js';
import { provisionPayloadBucket } from '../../src/local/payload-bucket.js';
import { testEventBridge, testS3, uniqueName } from '../helpers/aws.js';
import { type TaskProfile, WorkMode } from './lib/fault-tasks.js';
import { sleep } from './lib/random.js';
import { readAllRecords } from './lib/records.js';
import { enqueueAll, range, startPolling } from './lib/run.js';
import { allSucceed, checkCommon, Scenario } from './lib/scenario.js';
import { startSweeperLoop } from './lib/sweeper-loop.js';

const OUTAGE_MS = 120_000;
const TASKS_PER_OUTAGE = 12;
const PROFILE: TaskProfile = {
  // Far above the runs (10-100 ms): a handler timeout on a loaded machine would spend an attempt
  // that no outage spent.
  timeoutMs: 30_000,
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 1000,
};
const OUTAGES = ['KMS', 'S3', 'EventBridge'] as const;
type Outage = (typeof OUTAGES)[number];

/** Which dependency is down now, and how many calls each outage refused. */
const down = { now: undefined as Outage | undefined, refused: { KMS: 0, S3: 0, EventBridge: 0 } };

function refuse(outage: Outage, error: Error): never {
  down.refused[outage] += 1;
  throw error;
}

/** KMS as the worker sees it: VerifyMac fails while KMS is down. */
function workerKms(kms: KmsMacClient) {
  return {
    generateMac: (key: string, message: Uint8Array) => kms.generateMac(key, message),
    verifyMac: (key: string, message: Uint8Array, mac: Uint8Array) =>
      down.now === 'KMS'
        ? refuse(
            'KMS',
            Object.assign(new Error('KMS unavailable'), { name: 'KMSInternalException' }),
          )
        : kms.verifyMac(key, message, mac),
  };
}

/** The worker's S3 client: every call fails with a 503, past the SDK's retries, while S3 is down. */
function workerS3(): S3Client {
  const s3 = testS3();
  s3.middlewareStack.add(
    (next) => async (args) => {
      if (down.now === 'S3') {
        const error = Object.assign(new Error('Service Unavailable (injected)'), {
          name: 'ServiceUnavailable',
          $metadata: { httpStatusCode: 503 },
        });
        refuse('S3', error);
      }
      return next(args);
    },
    { step: 'initialize', name: 'outage' },
  );
  return s3;
}

/** The worker's EventBridge client: refuses PutEvents while the bus is down; notes what it accepted. */
function workerEventBridge(published: Set<string>): EventBridgeClient {
  const client = testEventBridge();
  client.middlewareStack.add(
    (next) => async (args) => {
      if (down.now === 'EventBridge') {
        const error = Object.assign(new Error('EventBridge unavailable (injected)'), {
          name: 'InternalException',
          $metadata: { httpStatusCode: 500 },
        });
        refuse('EventBridge', error);
      }
      const out = await next(args);
      const input = args.input as { Entries?: { Detail?: string; DetailType?: string }[] };
      const output = out.output as { Entries?: { EventId?: string }[] };
      input.Entries?.forEach((entry, i) => {
        if (output.Entries?.[i]?.EventId === undefined) return;
        const detail = JSON.parse(entry.Detail ?? '{}') as { taskId?: string };
        published.add(`${entry.DetailType}|${detail.taskId}`);
      });
      return out;
    },
    { step: 'initialize', name: 'outage' },
  );
  return client;
}

describe('(dependency-outages) KMS, S3 and EventBridge outages', () => {
  it(`spends no attempt and kills no task through ${OUTAGE_MS / 60_000}-minute outages of KMS, S3 and EventBridge`, async () => {
    // Arrange: tags, a payload bucket that takes every payload and result, lifecycle events.
    const s = await Scenario.open({
      id: 'dependency-outages',
      title: '(dependency-outages) KMS, S3 and EventBridge outages',
      description: `Tagged, claim-checked tasks (${TASKS_PER_OUTAGE} per outage) are enqueued as a ${OUTAGE_MS / 60_000}-minute outage of the worker's KMS (VerifyMac), then S3 (every call), then EventBridge (PutEvents) begins; each outage ends before the next.`,
      workerTimeoutSeconds: 30,
      maxAttempts: PROFILE.maxAttempts,
    });
    const kms = new KmsMacClient({
      credentialsFrom: s.executor.clients.dynamodb,
      endpoint: process.env.AWS_ENDPOINT_URL,
    });
    const keyId = await kms.createHmacKey('dependency outages');
    const bucket = await provisionPayloadBucket(testS3(), uniqueName('outage-payloads'), 45);
    const claimCheck = { payloadBucket: bucket, payloadThresholdBytes: 0 };
    const published = new Set<string>();
    const worker = s.worker(
      { profile: PROFILE },
      {
        ...claimCheck,
        s3: workerS3(),
        integrity: { keyId, mac: workerKms(kms) },
        events: {
          eventBus: 'default',
          source: 'tasklane.faults',
          client: workerEventBridge(published),
        },
      },
    );
    const producer = s.client({ ...claimCheck, s3: testS3(), integrity: { keyId, mac: kms } });
    const stop = startPolling(worker, { concurrency: 2, batchSize: 10 });
    const sweeper = startSweeperLoop(s.executor, { intervalMs: 5000, pendingAgeMs: 10_000 });

    // Act: each outage begins, its tasks are enqueued, it lasts its 2 minutes, then ends.
    const ids: string[] = [];
    for (const [n, outage] of OUTAGES.entries()) {
      down.now = outage;
      const started = Date.now();
      const tasks = range(TASKS_PER_OUTAGE).map((seq) => ({
        id: `do-${outage}-${seq}`,
        payload: { seq: n * TASKS_PER_OUTAGE + seq, mode: WorkMode.OK, runMs: s.rng.int(10, 100) },
      }));
      ids.push(...(await enqueueAll(producer, s.producerTask(PROFILE), tasks)).ids);
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - started)));
      down.now = undefined;
    }
    await s.quiesce(ids, 600_000);
    const settleUntil = Date.now() + 360_000;
    while (
      ids.some((id) => !published.has(`Tasklane Task Succeeded|${id}`)) &&
      Date.now() < settleUntil
    ) {
      await sleep(2000);
    }
    await stop();
    await sweeper.stop();

    // Assert
    const { figures } = await s.classify(allSucceed(ids));
    const records = await readAllRecords(s.executor);
    const mine = ids.map((id) => records.get(id));
    const dead = mine.filter((r) => r?.status === 'DEAD').length;
    const spent = mine.filter((r) => r?.attempt !== 1).length;
    const unclaimed = mine.reduce(
      (sum, r) => sum + (r?.history.filter((h) => h.event === AuditEvent.UNCLAIMED).length ?? 0),
      0,
    );
    const unpublished = ids.filter((id) => !published.has(`Tasklane Task Succeeded|${id}`));
    s.note('calls refused by the KMS outage', down.refused.KMS);
    s.note('calls refused by the S3 outage', down.refused.S3);
    s.note('PutEvents calls refused by the EventBridge outage', down.refused.EventBridge);
    s.note('claims given back unspent (unclaimed)', unclaimed);
    checkCommon(s, figures);
    s.check(
      'outages-bit',
      'every outage refused calls',
      Object.values(down.refused).every((n) => n > 0),
      JSON.stringify(down.refused),
    );
    s.check('dead', 'DEAD = 0', dead === 0, dead);
    s.check(
      'attempts-spent',
      'attempts spent on the outages = 0 (every task SUCCEEDED at attempt 1)',
      spent === 0,
      spent,
    );
    s.check(
      'succeeded',
      'every task SUCCEEDED, its handler run once',
      figures.exactlyOnce === ids.length && ids.length === OUTAGES.length * TASKS_PER_OUTAGE,
      `${figures.exactlyOnce} of ${ids.length}`,
    );
    s.check(
      'published',
      'every Succeeded event published',
      unpublished.length === 0,
      `${unpublished.length} unpublished`,
    );
    await s.finish();
    // Three 2-minute outages back to back, then the quiesce: longer than the suite default.
  }, 900_000);
});
