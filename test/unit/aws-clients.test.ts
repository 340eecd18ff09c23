import { SendMessageCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { awsClientConfig, lazyClient, sqsClientConfig } from '../../src/aws/clients.js';

/** Where an SQS client built with `config` sends a request for a queue URL on AWS's host. */
async function requestHost(config: SQSClientConfig): Promise<string> {
  const hosts: string[] = [];
  const client = new SQSClient({
    ...config,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    // Records the request instead of sending it: no network.
    requestHandler: {
      handle: async (request: { protocol: string; hostname: string; port?: number }) => {
        hosts.push(
          `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}`,
        );
        throw new Error('not sent');
      },
    },
  });
  await client
    .send(
      new SendMessageCommand({
        QueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/jobs.fifo',
        MessageBody: '{}',
      }),
    )
    .catch(() => undefined);
  client.destroy();
  return hosts[0] ?? '';
}

describe('sqsClientConfig', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('turns off useQueueUrlAsEndpoint and keeps the shared retry settings', () => {
    expect(sqsClientConfig()).toEqual({ ...awsClientConfig(), useQueueUrlAsEndpoint: false });
  });

  it("keeps requests on the configured endpoint when a queue URL names AWS's host", async () => {
    // An emulator endpoint, and a queue URL as moto or LocalStack report it.
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://localhost:4566');

    const host = await requestHost(sqsClientConfig());

    expect(host).toBe('http://localhost:4566');
  });

  it("(control) without it, the SDK follows the queue URL to AWS's host", async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://localhost:4566');
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);

    const host = await requestHost({});

    expect(host).toBe('https://sqs.us-east-1.amazonaws.com');
  });
});

describe('lazyClient', () => {
  it('makes the client on first use, once, with its methods bound to it', async () => {
    let made = 0;
    const client = lazyClient(() => {
      made += 1;
      return new SQSClient({ region: 'eu-west-1' });
    });

    expect(made).toBe(0);
    const region = await client.config.region();
    const send = client.send;

    expect(region).toBe('eu-west-1');
    expect(typeof send).toBe('function');
    expect(made).toBe(1);
    client.destroy();
  });
});
