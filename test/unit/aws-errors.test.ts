import { describe, expect, it } from 'vitest';
import {
  AwsFault,
  AwsService,
  classifyAwsError,
  endpointOf,
  toConfigurationError,
} from '../../src/aws/faults.js';
import { ConfigurationError } from '../../src/core/errors.js';

/** An error shaped as the AWS SDK v3 throws it for a service exception. */
function serviceError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name} happened`), { name, $fault: 'client', ...extra });
}

/** An error shaped as Node's networking throws it. */
function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

const staticClient = (endpoint: string | undefined, region: string | undefined) => ({
  config: {
    region: async () => {
      if (region === undefined) throw new Error('Region is missing');
      return region;
    },
    ...(endpoint === undefined
      ? {}
      : {
          endpoint: async () => {
            const url = new URL(endpoint);
            return {
              protocol: url.protocol,
              hostname: url.hostname,
              port: url.port === '' ? undefined : Number(url.port),
              path: url.pathname,
            };
          },
        }),
  },
});

describe('classifyAwsError', () => {
  it.each([
    ['SQS QueueDoesNotExist', serviceError('QueueDoesNotExist'), AwsFault.MISSING_RESOURCE],
    [
      'the SQS query-protocol code',
      serviceError('Error', { Code: 'AWS.SimpleQueueService.NonExistentQueue' }),
      AwsFault.MISSING_RESOURCE,
    ],
    [
      'DynamoDB ResourceNotFoundException',
      serviceError('ResourceNotFoundException'),
      AwsFault.MISSING_RESOURCE,
    ],
    ['AccessDeniedException', serviceError('AccessDeniedException'), AwsFault.ACCESS_DENIED],
    ['SQS AccessDenied', serviceError('AccessDenied'), AwsFault.ACCESS_DENIED],
    ['KMS access denied', serviceError('KMSAccessDeniedException'), AwsFault.ACCESS_DENIED],
    [
      'UnrecognizedClientException',
      serviceError('UnrecognizedClientException'),
      AwsFault.INVALID_CREDENTIALS,
    ],
    ['InvalidClientTokenId', serviceError('InvalidClientTokenId'), AwsFault.INVALID_CREDENTIALS],
    [
      'no credentials at all',
      serviceError('CredentialsProviderError'),
      AwsFault.INVALID_CREDENTIALS,
    ],
    ['ECONNREFUSED', networkError('ECONNREFUSED'), AwsFault.UNREACHABLE],
    ['ENOTFOUND', networkError('ENOTFOUND'), AwsFault.UNREACHABLE],
    [
      'a refused dual-stack connect',
      Object.assign(
        new AggregateError([networkError('ECONNREFUSED'), networkError('ECONNREFUSED')]),
        {
          code: 'ECONNREFUSED',
        },
      ),
      AwsFault.UNREACHABLE,
    ],
    ['a missing region', new Error('Region is missing'), AwsFault.NO_REGION],
  ])('calls %s a permanent misconfiguration', (_, error, expected) => {
    const fault = classifyAwsError(error);

    expect(fault).toBe(expected);
  });

  it.each([
    ['throttling', serviceError('ThrottlingException')],
    ['a server error', serviceError('InternalServerError', { $fault: 'server' })],
    ['a lost conditional write', serviceError('ConditionalCheckFailedException')],
    ['a reset connection', networkError('ECONNRESET')],
    ['a timeout', networkError('ETIMEDOUT')],
    ['a DNS hiccup', networkError('EAI_AGAIN')],
    ['a plain Error', new Error('boom')],
    ['a string', 'boom'],
    ['undefined', undefined],
  ])('leaves %s to the transient path', (_, error) => {
    const fault = classifyAwsError(error);

    expect(fault).toBeUndefined();
  });
});

describe('endpointOf', () => {
  it("names the client's explicit endpoint", async () => {
    const client = staticClient('http://localhost:4566/', 'us-east-1');

    const endpoint = await endpointOf(client, AwsService.SQS, {});

    expect(endpoint).toBe('http://localhost:4566');
  });

  it('prefers the service variable to AWS_ENDPOINT_URL', async () => {
    const client = staticClient(undefined, 'us-east-1');
    const env = { AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_DYNAMODB: 'http://b:2' };

    const endpoint = await endpointOf(client, AwsService.DYNAMODB, env);

    expect(endpoint).toBe('http://b:2');
  });

  it("falls back to AWS's regional endpoint, and says when there is no region", async () => {
    const regional = await endpointOf(
      staticClient(undefined, 'eu-west-1'),
      AwsService.SCHEDULER,
      {},
    );
    const none = await endpointOf(staticClient(undefined, undefined), AwsService.SQS, {});

    expect(regional).toBe('https://scheduler.eu-west-1.amazonaws.com');
    expect(none).toBe("AWS's SQS endpoint (no region set)");
  });
});

describe('toConfigurationError', () => {
  const target = {
    kind: 'queue',
    resource: 'http://localhost:4566/000000000000/jobs.fifo',
    client: staticClient('http://localhost:4566', 'us-east-1'),
    service: AwsService.SQS,
    setting: 'queueUrl (or TASKLANE_QUEUE_URL)',
    note: 'Task x is stored PENDING.',
  };

  it('names the resource, the endpoint and the setting, and keeps the SDK error as cause', async () => {
    const sdkError = serviceError('QueueDoesNotExist');

    const error = await toConfigurationError(sdkError, target);

    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({
      code: 'CONFIGURATION',
      resource: target.resource,
      endpoint: 'http://localhost:4566',
      cause: sdkError,
    });
    expect(error?.message).toContain(
      `queue '${target.resource}' does not exist at http://localhost:4566`,
    );
    expect(error?.message).toContain('queueUrl (or TASKLANE_QUEUE_URL)');
    expect(error?.message).toMatch(/stored PENDING\.$/);
    expect(error?.problems).toHaveLength(1);
  });

  it('returns undefined for a transient fault', async () => {
    const error = await toConfigurationError(serviceError('ThrottlingException'), target);

    expect(error).toBeUndefined();
  });
});
