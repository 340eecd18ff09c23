/**
 * The AWS SDK packages a worker needs only now and then, each imported on its first use: SQS
 * (a retry's visibility change, a released dependent's send, the poll loop), S3 (the claim
 * check), KMS (the integrity tag), EventBridge (lifecycle events) and EventBridge Scheduler (a
 * long sleep's wake). A Lambda worker whose
 * batches succeed loads only DynamoDB's client at cold start (docs/adr/0006-worker-bundle.md).
 *
 * Modules a worker can reach import these packages through here, never with a static import:
 * a bundler hoists every static import of an external package to the top of the bundle, where
 * it loads at cold start whether it is used or not. `test/unit/worker/cold-path.test.ts`
 * checks the example worker's bundle for it.
 */

/** The SQS SDK module. */
export type SqsSdk = typeof import('@aws-sdk/client-sqs');
/** The S3 SDK module. */
export type S3Sdk = typeof import('@aws-sdk/client-s3');
/** The KMS SDK module. */
export type KmsSdk = typeof import('@aws-sdk/client-kms');
/** The EventBridge SDK module. */
export type EventBridgeSdk = typeof import('@aws-sdk/client-eventbridge');
/** The EventBridge Scheduler SDK module. */
export type SchedulerSdk = typeof import('@aws-sdk/client-scheduler');

/** `load`, called once: the same promise for every caller, and again after a failure. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}

/** Imports `@aws-sdk/client-sqs` on first call. */
export const loadSqs: () => Promise<SqsSdk> = once(() => import('@aws-sdk/client-sqs'));
/** Imports `@aws-sdk/client-s3` on first call. */
export const loadS3: () => Promise<S3Sdk> = once(() => import('@aws-sdk/client-s3'));
/** Imports `@aws-sdk/client-kms` on first call. */
export const loadKms: () => Promise<KmsSdk> = once(() => import('@aws-sdk/client-kms'));
/** Imports `@aws-sdk/client-eventbridge` on first call. */
export const loadEventBridge: () => Promise<EventBridgeSdk> = once(
  () => import('@aws-sdk/client-eventbridge'),
);
/** Imports `@aws-sdk/client-scheduler` on first call. */
export const loadScheduler: () => Promise<SchedulerSdk> = once(
  () => import('@aws-sdk/client-scheduler'),
);

/** What every SDK v3 client has: `send`. */
export interface Sender<Input, Output> {
  send(command: Input): Promise<Output>;
}

/**
 * A client made on its first `send`, from a package loaded then: a worker's module scope
 * builds it without loading the package. Only `send` is offered; code that needs the client
 * itself (its config, its middleware) awaits `create` instead.
 */
export function clientOnFirstSend<C extends { send(command: never): Promise<unknown> }>(
  create: () => Promise<C>,
): C {
  const client = once(create);
  return {
    send: async (command: never) => (await client()).send(command),
  } as unknown as C;
}
