/**
 * Tells a permanent misconfiguration apart from a transient fault in an AWS SDK error, and
 * turns the first into a {@link ConfigurationError} that names the resource and endpoint.
 *
 * The split matters because the outbox (a PENDING record the sweeper sends later) is for
 * faults that go away by themselves: throttling, a 5xx, a dropped connection. A queue that
 * does not exist, a role without permission or an endpoint nobody listens on does not go
 * away; the caller has to hear about it at once.
 */
import { ConfigurationError, type ConfigurationProblem } from '../core/errors.js';

/** The kinds of permanent misconfiguration an AWS call can reveal. */
export const AwsFault = {
  /** The queue, table or schedule group does not exist. */
  MISSING_RESOURCE: 'MISSING_RESOURCE',
  /** The caller's identity is not allowed the action (IAM, KMS). */
  ACCESS_DENIED: 'ACCESS_DENIED',
  /** No credentials, or credentials the service does not recognize. */
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  /** Nothing answers at the endpoint: connection refused, or the host name does not resolve. */
  UNREACHABLE: 'UNREACHABLE',
  /** The SDK client has no region, so it cannot even form an endpoint. */
  NO_REGION: 'NO_REGION',
} as const;

/** One of the {@link AwsFault} values. */
export type AwsFault = (typeof AwsFault)[keyof typeof AwsFault];

const MISSING_RESOURCE_CODES = new Set([
  'QueueDoesNotExist',
  'AWS.SimpleQueueService.NonExistentQueue',
  'ResourceNotFoundException',
]);
const CREDENTIAL_CODES = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'CredentialsProviderError',
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/**
 * Classifies an error thrown by an AWS SDK v3 call. Returns the kind of permanent
 * misconfiguration, or undefined for everything else (throttling, server errors, timeouts,
 * conditional-check failures, validation errors), which callers handle as before.
 *
 * Pure: it looks only at the error's `name`, `Code`, `code` and message. A Scheduler
 * `ResourceNotFoundException` means "no such schedule" as often as "no such group", so
 * callers classify only calls whose resource they know.
 */
export function classifyAwsError(err: unknown): AwsFault | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { name, Code, code, message, errors } = err as {
    name?: unknown;
    Code?: unknown;
    code?: unknown;
    message?: unknown;
    errors?: unknown;
  };
  const names = [name, Code].filter((n): n is string => typeof n === 'string');
  if (names.some((n) => MISSING_RESOURCE_CODES.has(n))) return AwsFault.MISSING_RESOURCE;
  if (names.some((n) => n.includes('AccessDenied'))) return AwsFault.ACCESS_DENIED;
  if (names.some((n) => CREDENTIAL_CODES.has(n))) return AwsFault.INVALID_CREDENTIALS;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return AwsFault.UNREACHABLE;
  // Node reports a refused dual-stack connect (::1 and 127.0.0.1) as an AggregateError.
  if (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => classifyAwsError(e) === AwsFault.UNREACHABLE)
  ) {
    return AwsFault.UNREACHABLE;
  }
  if (typeof message === 'string' && /^Region is missing/i.test(message)) return AwsFault.NO_REGION;
  return undefined;
}

/** The services Tasklane calls, with the suffix of their `AWS_ENDPOINT_URL_*` variable. */
export const AwsService = {
  SQS: { name: 'SQS', envSuffix: 'SQS', hostPrefix: 'sqs' },
  DYNAMODB: { name: 'DynamoDB', envSuffix: 'DYNAMODB', hostPrefix: 'dynamodb' },
  SCHEDULER: { name: 'Scheduler', envSuffix: 'SCHEDULER', hostPrefix: 'scheduler' },
} as const;

/** One of the {@link AwsService} entries. */
export type AwsService = (typeof AwsService)[keyof typeof AwsService];

/** The part of an SDK v3 client this module reads: its resolved configuration. */
export interface AwsClientLike {
  readonly config: object;
}

/**
 * Where a client sends its requests, for error messages: the client's explicit endpoint,
 * else `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL`, else the service's regional AWS
 * endpoint. Never throws.
 */
export async function endpointOf(
  client: AwsClientLike,
  service: AwsService,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const config = client.config as { endpoint?: unknown; region?: unknown };
  try {
    if (typeof config.endpoint === 'function') {
      const endpoint = (await config.endpoint()) as {
        protocol?: string;
        hostname?: string;
        port?: number;
        path?: string;
      };
      if (endpoint?.hostname !== undefined) {
        const protocol = (endpoint.protocol ?? 'https:').replace(/:?$/, ':');
        const port = endpoint.port === undefined ? '' : `:${endpoint.port}`;
        return `${protocol}//${endpoint.hostname}${port}${(endpoint.path ?? '/').replace(/\/$/, '')}`;
      }
    }
  } catch {
    // fall through to the environment
  }
  const fromEnv = env[`AWS_ENDPOINT_URL_${service.envSuffix}`] || env.AWS_ENDPOINT_URL;
  if (fromEnv) return fromEnv;
  try {
    const region = typeof config.region === 'function' ? await config.region() : config.region;
    if (typeof region === 'string' && region !== '') {
      return `https://${service.hostPrefix}.${region}.amazonaws.com`;
    }
  } catch {
    // no region: said below
  }
  return `AWS's ${service.name} endpoint (no region set)`;
}

/** What a failed call addressed, for {@link toConfigurationError}. */
export interface AwsCallTarget {
  /** What the resource is, in words: `queue`, `table`, `schedule group`. */
  readonly kind: string;
  /** Its URL or name. */
  readonly resource: string;
  /** The client that made the call. */
  readonly client: AwsClientLike;
  readonly service: AwsService;
  /** The setting that names the resource, e.g. `queueUrl (or TASKLANE_QUEUE_URL)`. */
  readonly setting?: string;
  /** Said after the explanation, e.g. what became of a record already written. */
  readonly note?: string;
}

/**
 * The {@link ConfigurationProblem} behind a failed call, or undefined when the error is not a
 * permanent misconfiguration (see {@link classifyAwsError}).
 */
export async function configurationProblem(
  err: unknown,
  target: Omit<AwsCallTarget, 'note'>,
): Promise<ConfigurationProblem | undefined> {
  const fault = classifyAwsError(err);
  if (fault === undefined) return undefined;
  const endpoint = await endpointOf(target.client, target.service);
  return {
    message: describe(fault, err, target, endpoint),
    resource: target.resource,
    endpoint,
    cause: err,
  };
}

/**
 * Turns a failed call into a {@link ConfigurationError} naming the resource and endpoint,
 * with the SDK error as `cause`; undefined when the error is transient or otherwise not a
 * misconfiguration, so the caller keeps its usual handling.
 */
export async function toConfigurationError(
  err: unknown,
  target: AwsCallTarget,
): Promise<ConfigurationError | undefined> {
  const problem = await configurationProblem(err, target);
  if (problem === undefined) return undefined;
  const note = target.note === undefined ? '' : ` ${target.note}`;
  return new ConfigurationError(`${problem.message}${note}`, {
    resource: problem.resource,
    endpoint: problem.endpoint,
    problems: [problem],
    cause: err,
  });
}

function describe(
  fault: AwsFault,
  err: unknown,
  target: Omit<AwsCallTarget, 'note'>,
  endpoint: string,
): string {
  const what = `${target.kind} '${target.resource}'`;
  const detail = err instanceof Error ? err.message : String(err);
  switch (fault) {
    case AwsFault.MISSING_RESOURCE:
      return (
        `The ${what} does not exist at ${endpoint}. Check ${target.setting ?? `the ${target.kind} setting`} ` +
        "against the stack's outputs, and that the executor is deployed (or provisioned) in " +
        'this account and region.'
      );
    case AwsFault.ACCESS_DENIED:
      return (
        `Access to the ${what} at ${endpoint} was denied (${detail}). Grant this identity ` +
        "the executor's permissions, e.g. with the construct's grantEnqueue or grantRead."
      );
    case AwsFault.INVALID_CREDENTIALS:
      return (
        `The AWS credentials were refused by ${endpoint} when calling the ${what} (${detail}). ` +
        'Check AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the role in use.'
      );
    case AwsFault.UNREACHABLE:
      return (
        `Nothing answers at ${endpoint} for the ${what} (${detail}). Check AWS_ENDPOINT_URL ` +
        `(or AWS_ENDPOINT_URL_${target.service.envSuffix}, or the endpoint of the client you ` +
        'injected), and that the emulator or network is up.'
      );
    case AwsFault.NO_REGION:
      return (
        `No AWS region is set for the ${what}. Set AWS_REGION, or inject a client ` +
        'configured with a region.'
      );
  }
}
