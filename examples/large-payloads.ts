/**
 * The example of docs/large-payloads.md: large payloads and results through the payload
 * bucket (claim check). Type-checked in CI; in an application, import from 'tasklane' and
 * 'tasklane/cdk'.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as z from 'zod';
import { TaskExecutor } from '../src/cdk/index.js';
import {
  ClaimCheckMismatchError,
  createWorker,
  defineTask,
  EnvVars,
  TaskClient,
} from '../src/index.js';

/** A task whose payload (a whole document) and result can run to megabytes. */
export const summarize = defineTask('summarize', {
  schema: z.object({ documentId: z.string(), text: z.string().max(50_000_000) }),
  handler: async ({ documentId, text }, ctx) => {
    ctx.logger.info('summarizing', { documentId, chars: text.length });
    // A result above 64 KB is stored in the payload bucket before the task completes.
    return { documentId, sentences: text.split('. ').map((s) => s.slice(0, 200)) };
  },
});

// With the construct's `payloadBucket`, the worker gets TASKLANE_PAYLOAD_BUCKET and the
// client reads it from the stack outputs (or the same variable): nothing else to configure.
export const handler = createWorker([summarize]).lambdaHandler;

const client = new TaskClient({ payloadThresholdBytes: 32 * 1024 });

export async function summarizeDocument(documentId: string, text: string): Promise<unknown> {
  // A 5 MB payload goes to S3 first (payloads/<id>/<hash>), then the record holds its reference.
  const { id } = await client.enqueue(summarize, { documentId, text }, { id: `sum-${documentId}` });
  // wait() and get() read a claim-checked result from S3 and check its SHA-256.
  const done = await client.wait(id, { timeoutMs: 120_000 });
  return done.result;
}

export async function whereIsTheResult(id: string): Promise<string | undefined> {
  // { fetch: false }: no GetObject; resultRef says where the result is, and its size.
  const ref = (await client.get(id, { fetch: false }))?.resultRef;
  return ref === undefined ? undefined : `s3://${ref.bucket}/${ref.key} (${ref.size} bytes)`;
}

export async function resultOrNothing(id: string): Promise<unknown> {
  try {
    return (await client.get(id))?.result;
  } catch (err) {
    // The object expired by the lifecycle rule, was deleted, or was altered.
    if (err instanceof ClaimCheckMismatchError) return undefined;
    throw err;
  }
}

/** The executor with a payload bucket, and a producer allowed to write payloads, read results. */
export function documentsApp(): App {
  const app = new App();
  const stack = new Stack(app, 'Documents');
  const executor = new TaskExecutor(stack, 'Tasks', {
    workerEntry: 'src/worker.ts',
    // Encrypted, private, TLS-only; objects expire 30 + 14 days after they are written.
    payloadBucket: true,
    retention: Duration.days(30),
  });
  const api = new NodejsFunction(stack, 'Api', {
    entry: 'src/api.ts',
    runtime: Runtime.NODEJS_LATEST,
    environment: {
      [EnvVars.TABLE_NAME]: executor.table.tableName,
      [EnvVars.QUEUE_URL]: executor.workQueue.queueUrl,
      [EnvVars.PAYLOAD_BUCKET]: executor.payloadBucket?.bucketName ?? '',
    },
  });
  executor.grantEnqueue(api); // + s3:PutObject on payloads/*
  executor.grantRead(api); // + s3:GetObject on results/*
  return app;
}
