import {
  CloudFormationClient,
  DescribeStacksCommand,
  type Output as StackOutputEntry,
} from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { TaskClientOptions } from 'tasklane';
import { awsClientConfig, EnvVars, locationFromStackOutputs } from 'tasklane';
import { CliError, ExitCode } from './exit-codes.js';

/** The global options that say where the executor is. */
export interface LocationOptions {
  /** A CloudFormation stack holding a TaskExecutor. */
  readonly stack?: string;
  /** The TaskExecutor construct's id, when the stack holds several. */
  readonly executor?: string;
  /** An emulator's URL (moto, LocalStack): every AWS call goes there. */
  readonly endpoint?: string;
  readonly region?: string;
}

/**
 * Resolves the executor's location and clients, in this order: `--stack` (the stack's
 * outputs, read with DescribeStacks), else the `TASKLANE_*` variables (read by TaskClient
 * itself). `--endpoint` sends every call to an emulator, with dummy credentials when none
 * are set. Credentials and region otherwise come from the usual AWS chain, as for the AWS CLI.
 *
 * @throws CliError (configuration) when the stack cannot be read or has no executor.
 */
export async function resolveClientOptions(options: LocationOptions): Promise<TaskClientOptions> {
  const config = clientConfig(options);
  const clients = {
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    dynamodb: new DynamoDBClient(config),
    scheduler: new SchedulerClient(config),
  };
  if (options.stack === undefined) {
    if (options.executor !== undefined) {
      throw new CliError(
        '--executor needs --stack: it picks one TaskExecutor among those of a stack.',
        ExitCode.USAGE,
      );
    }
    assertConfigured();
    return clients;
  }
  const outputs = await stackOutputs(options.stack, config);
  try {
    return { ...locationFromStackOutputs(outputs, options.executor), ...clients };
  } catch (err) {
    throw new CliError((err as Error).message, ExitCode.CONFIGURATION, {
      cause: err,
      hint: `Stack ${options.stack} must hold a TaskExecutor; when it holds several, pass --executor <construct id>.`,
    });
  }
}

/**
 * The AWS SDK configuration the global options give: the endpoint (with dummy credentials
 * when none are set), the region, and Tasklane's retry settings. For clients the CLI makes
 * besides the TaskClient's (the console's CloudWatch client).
 */
export function clientConfig(options: LocationOptions) {
  const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL;
  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const noCredentials =
    process.env.AWS_ACCESS_KEY_ID === undefined && process.env.AWS_PROFILE === undefined;
  return {
    ...awsClientConfig(),
    ...(endpoint === undefined || endpoint === '' ? {} : { endpoint }),
    ...(region === undefined || region === ''
      ? endpoint === undefined
        ? {}
        : { region: 'us-east-1' }
      : { region }),
    ...(endpoint !== undefined && endpoint !== '' && noCredentials
      ? { credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }
      : {}),
  };
}

function assertConfigured(): void {
  const missing = [EnvVars.TABLE_NAME, EnvVars.QUEUE_URL].filter(
    (name) => (process.env[name] ?? '') === '',
  );
  if (missing.length === 0) return;
  throw new CliError('No executor given.', ExitCode.CONFIGURATION, {
    hint: `Pass --stack <name> (a deployed TaskExecutor stack), or set ${missing.join(' and ')} (and ${EnvVars.DLQ_URL} for the dead-letter queue), e.g. by sourcing the env file \`tasklane dev\` writes.`,
  });
}

async function stackOutputs(
  stack: string,
  config: ReturnType<typeof clientConfig>,
): Promise<StackOutputEntry[]> {
  const cloudformation = new CloudFormationClient(config);
  try {
    const out = await cloudformation.send(new DescribeStacksCommand({ StackName: stack }));
    return out.Stacks?.[0]?.Outputs ?? [];
  } catch (err) {
    const message = (err as Error).message;
    const missing = /does not exist/i.test(message);
    throw new CliError(
      missing
        ? `Stack ${stack} does not exist in this account and region.`
        : `Cannot read stack ${stack} (${(err as Error).name}: ${message}).`,
      ExitCode.CONFIGURATION,
      {
        cause: err,
        hint: missing
          ? "Check --stack, --region (or AWS_REGION) and the credentials' account."
          : 'Check the credentials (cloudformation:DescribeStacks), --region and --endpoint.',
      },
    );
  } finally {
    cloudformation.destroy();
  }
}
