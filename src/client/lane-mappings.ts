/**
 * A lane's Lambda event source mappings, found and switched for `TaskClient.pauseLane` and
 * `resumeLane` (docs/adr/0048-durable-sleep-signals-pause.md, "Pausing a lane"). The mappings
 * are found deliberately: ListEventSourceMappings by the lane's work queue ARN, and by the
 * worker function when the client knows it (`workerFunctionName`, from the stack outputs), so
 * that no other consumer of the queue is touched. `@aws-sdk/client-lambda` is an optional peer
 * dependency, loaded only here.
 */

import { awsClientConfig } from '../aws/clients.js';
import { ConfigurationError } from '../core/errors.js';
import type { DynamoDBClient } from '../store/table.js';

/** One event source mapping of a lane's queue. */
export interface LaneMapping {
  readonly uuid: string;
  /** Lambda's state of it: `Enabled`, `Disabled`, `Enabling`, `Disabling`, `Updating`… */
  readonly state: string;
}

/** Finds and switches the event source mappings of a queue. */
export interface LaneMappings {
  /** The mappings from `queueArn` (to the worker function, when known). */
  find(queueArn: string): Promise<LaneMapping[]>;
  /** Enables or disables one mapping. */
  setEnabled(uuid: string, enabled: boolean): Promise<void>;
}

/** Whether a mapping in `state` is, or is about to be, polling its queue. */
export function isPolling(state: string): boolean {
  return state !== 'Disabled' && state !== 'Disabling';
}

/**
 * The mappings of the client's executor through a Lambda client made with the DynamoDB
 * client's region, credentials and endpoint (an emulator's, when the client has one).
 *
 * @throws ConfigurationError (at the first call) when `@aws-sdk/client-lambda` is not installed.
 */
export function lambdaLaneMappings(
  dynamodb: DynamoDBClient,
  workerFunctionName: string | undefined,
): LaneMappings {
  let made: Promise<Made> | undefined;
  const client = () => {
    made ??= makeClient(dynamodb);
    return made;
  };
  return {
    async find(queueArn) {
      const { sdk, lambda } = await client();
      const found: LaneMapping[] = [];
      for await (const page of sdk.paginateListEventSourceMappings(
        { client: lambda },
        {
          EventSourceArn: queueArn,
          ...(workerFunctionName === undefined ? {} : { FunctionName: workerFunctionName }),
        },
      )) {
        for (const mapping of page.EventSourceMappings ?? []) {
          if (mapping.UUID !== undefined) {
            found.push({ uuid: mapping.UUID, state: mapping.State ?? 'Enabled' });
          }
        }
      }
      return found;
    },
    async setEnabled(uuid, enabled) {
      const { sdk, lambda } = await client();
      await lambda.send(new sdk.UpdateEventSourceMappingCommand({ UUID: uuid, Enabled: enabled }));
    },
  };
}

type LambdaSdk = typeof import('@aws-sdk/client-lambda');
interface Made {
  readonly sdk: LambdaSdk;
  readonly lambda: InstanceType<LambdaSdk['LambdaClient']>;
}

async function makeClient(dynamodb: DynamoDBClient): Promise<Made> {
  let sdk: LambdaSdk;
  try {
    sdk = await import('@aws-sdk/client-lambda');
  } catch (err) {
    throw new ConfigurationError(
      'Pausing a lane disables its Lambda event source mapping with @aws-sdk/client-lambda, an optional peer dependency of tasklane: install it (npm install @aws-sdk/client-lambda), use the tasklane command of @tasklane/cli, which has it, or pass { mappings: false } where no mapping feeds the lane (a poller outside Lambda).',
      { cause: err },
    );
  }
  const config = dynamodb.config;
  const endpoint =
    config.isCustomEndpoint === true && config.endpoint !== undefined
      ? await config.endpoint()
      : undefined;
  const lambda = new sdk.LambdaClient({
    ...awsClientConfig(),
    region: await config.region(),
    credentials: config.credentials,
    ...(endpoint === undefined
      ? {}
      : {
          endpoint: `${endpoint.protocol}//${endpoint.hostname}${endpoint.port === undefined ? '' : `:${endpoint.port}`}${endpoint.path}`,
        }),
  });
  return { sdk, lambda };
}
