/**
 * How Tasklane calls AWS: the SDK clients' configuration, clients made on first use, and how
 * many calls run at once where the SDK issues many.
 */
import pLimit from 'p-limit';

/**
 * Configuration for the AWS SDK clients Tasklane creates itself (injected clients are used
 * as given). Spread it into the clients you inject (`new DynamoDBClient({ ...awsClientConfig(),
 * region })`, and for SQS add `useQueueUrlAsEndpoint: false`) so that they retry as
 * Tasklane's own do; the `tasklane` CLI builds its clients from it.
 *
 * Retries happen in exactly one layer: the SDK's. Its `standard` mode retries throttling and
 * transient errors with capped exponential backoff and jitter, and a retry quota that stops
 * a fleet from amplifying an outage. `adaptive` mode adds client-side rate limiting per
 * client instance; in Lambda, where every execution environment has its own client, that
 * limiter learns little and can delay work needlessly, so it is not used. Tasklane never
 * loops over SDK calls itself: a call that still fails fails the message, and SQS's
 * redelivery (with the task's backoff) is the outer safety net, not a second retry layer.
 */
export function awsClientConfig(): { retryMode: 'standard'; maxAttempts: number } {
  return { retryMode: 'standard', maxAttempts: 5 };
}

/**
 * Configuration for the SQS clients Tasklane creates: {@link awsClientConfig} plus
 * `useQueueUrlAsEndpoint: false`.
 *
 * By default the SDK sends each SQS request to the host of the request's `QueueUrl` when it
 * differs from the client's endpoint. Emulators (moto, LocalStack) report queue URLs on
 * AWS's host, so a test or `npm run dev` could then reach real AWS with whatever
 * credentials are around. With the option off, requests go to the client's own endpoint
 * (`AWS_ENDPOINT_URL`, or the region's SQS endpoint), whatever the URL says. A queue in
 * another region than the client's is therefore not reachable through it; Tasklane's
 * queues live in the executor's region.
 */
export function sqsClientConfig(): ReturnType<typeof awsClientConfig> & {
  useQueueUrlAsEndpoint: false;
} {
  return { ...awsClientConfig(), useQueueUrlAsEndpoint: false };
}

/**
 * Configuration for the S3 client of the claim-check bucket: {@link awsClientConfig}, with
 * path-style addressing when an endpoint override is set (`AWS_ENDPOINT_URL` or
 * `AWS_ENDPOINT_URL_S3`). Emulators serve every bucket on one host (`localhost:PORT/<bucket>`),
 * where a virtual-hosted name (`<bucket>.localhost`) may not resolve; AWS itself keeps the
 * SDK's default, virtual-hosted style.
 */
export function s3ClientConfig(
  env: NodeJS.ProcessEnv = process.env,
): ReturnType<typeof awsClientConfig> & { forcePathStyle: boolean } {
  const overridden = Boolean(env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL);
  return { ...awsClientConfig(), forcePathStyle: overridden };
}

/**
 * A client made on first use, for Lambda's cold start: a worker's module scope builds its
 * clients without paying for them until the first batch. Every property read goes to the
 * client (made then, once); its methods are bound to it.
 */
export function lazyClient<T extends object>(create: () => T): T {
  let client: T | undefined;
  const real = (): T => {
    client ??= create();
    return client;
  };
  return new Proxy({} as T, {
    get: (_target, property) => {
      const value = Reflect.get(real(), property);
      return typeof value === 'function' ? value.bind(real()) : value;
    },
    has: (_target, property) => Reflect.has(real(), property),
  });
}

/**
 * How many conditional writes (or sends) run at once where the SDK issues many: a batch's
 * records, the outbox's marks, a redrive. Enough to keep up with SendMessageBatch without
 * bursting the table's capacity.
 */
export const WRITE_CONCURRENCY = 16;

/** How many status-index queries an operator read (a filtered list, counts) runs at once. */
export const QUERY_CONCURRENCY = 8;

/** `fn` over `items`, at most `concurrency` at once; results in input order. */
export function mapConcurrently<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R>,
  concurrency = WRITE_CONCURRENCY,
): Promise<R[]> {
  const limit = pLimit(concurrency);
  return Promise.all(items.map((item, index) => limit(() => fn(item, index))));
}
