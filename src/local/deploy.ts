/**
 * Deploying a CDK app's stack into a local emulator with the app's own CDK CLI (`cdk synth`,
 * `cdk bootstrap`, `cdk deploy`), then doing what the emulator's CloudFormation leaves
 * undone, so that `startLocalExecutor({ location })` can run the stack's tasks
 * (docs/deploying.md, "Deploying into the emulator").
 *
 * What moto 5.2.1 needs, and why:
 * - The endpoint is `http://localhost:PORT`, never an IP literal: asset upload addresses the
 *   bootstrap bucket as `<bucket>.<host>`, which resolves for localhost only.
 * - The environment is bootstrapped first (`cdk bootstrap`), as for any account.
 * - FIFO queues have explicit `.fifo` names (the construct does that): moto adds no suffix.
 * - `cdk deploy --method=direct`: moto loses a new stack's outputs when it is created
 *   through a change set (it never rebuilds them after ExecuteChangeSet).
 * - moto's CloudFormation skips AWS::Scheduler::* and AWS::CloudWatch::Alarm resources:
 *   the executor's schedule groups are created here from the stack outputs (only when
 *   missing: moto replaces an existing group, schedules and all); alarms and the sweeper's
 *   schedule have no emulator counterpart.
 * - moto runs an enabled event source mapping's function in Docker on every send to its
 *   queue, and logs `error running docker` where there is none: every mapping of the
 *   executor's work queues is disabled, and the local poller (`startLocalExecutor`) plays it.
 *
 * Disabling a mapping takes the Lambda client, `@aws-sdk/client-lambda`, an optional peer
 * dependency: an app that only enqueues and runs tasks does not install it for this.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { ConfigurationError } from '../core/errors.js';
import { type ExecutorOutputs, locationFromStackOutputs } from '../settings/stack-outputs.js';
import { onEmulator } from './emulator.js';
import {
  applyEmulatorEnvironment,
  EMULATOR_ACCESS_KEY_ID,
  executorEnvironment,
} from './emulator-env.js';
import { provisionScheduleGroup } from './provision.js';

/** Options of {@link deployToEmulator}. */
export interface EmulatorDeployOptions {
  /** The emulator, e.g. `http://localhost:4566` (a host name: see the module comment). */
  readonly endpoint: string;
  /** The stack to deploy, as the CDK app names it. */
  readonly stack: string;
  /** The CDK app's directory, where its `cdk.json` is. @default process.cwd() */
  readonly app?: string;
  /** Where the cloud assembly goes, relative to `app`. @default 'cdk.out' */
  readonly outdir?: string;
  /**
   * Run `cdk bootstrap` first. It is idempotent; turn it off when the emulator was
   * bootstrapped already, to save its few seconds. @default true
   */
  readonly bootstrap?: boolean;
  /** The environment to bootstrap, `aws://ACCOUNT/REGION`. @default the emulator's own */
  readonly environment?: string;
  /** The construct id of the executor in the stack's outputs. @default the only one */
  readonly executorId?: string;
  /** Receives the CDK CLI's output, line by line. @default discarded */
  readonly log?: (line: string) => void;
}

/** What {@link deployToEmulator} deployed. */
export interface EmulatorDeployment {
  readonly stack: string;
  /** The stack outputs, key → value, as `cdk deploy --outputs-file` wrote them. */
  readonly outputs: Readonly<Record<string, string>>;
  /**
   * The executor read from the outputs, its queue URLs moved onto the emulator (moto's
   * CloudFormation reports them on AWS's host): `startLocalExecutor({ location })` takes it
   * as it is, and so does a `TaskClient`.
   */
  readonly executor: ExecutorOutputs;
  /**
   * Every variable another process (a shell, your app, `tasklane`) needs to use the deployed
   * executor: the emulator's endpoint, region and dummy credentials, and the `TASKLANE_*`
   * location.
   */
  readonly environment: Readonly<Record<string, string>>;
  /** The schedule groups created because the emulator's CloudFormation skipped them. */
  readonly createdScheduleGroups: readonly string[];
  /**
   * The event source mappings of the executor's work queues that were disabled (their
   * UUIDs), for the local poller to play.
   */
  readonly disabledMappings: readonly string[];
  /** The cloud assembly that was deployed (it holds the bundled function assets). */
  readonly outdir: string;
  /** Seconds per step. */
  readonly timings: { readonly synth: number; readonly bootstrap: number; readonly deploy: number };
}

/**
 * Synthesizes, bootstraps and deploys `stack` into the emulator at `endpoint` with the CDK
 * CLI of the app (`aws-cdk` in its `node_modules`), then creates the executor's schedule
 * groups and disables its work queues' event source mappings (see the module comment).
 *
 * The CLI runs with the emulator's environment only: `AWS_ENDPOINT_URL`, dummy credentials,
 * no profile or session token of the caller's, so nothing reaches AWS.
 *
 * @throws ConfigurationError when the endpoint is not `localhost`, the app has no CDK CLI, a
 *   CLI step fails (with the tail of its output), the stack holds no executor, or
 *   `@aws-sdk/client-lambda` (an optional peer dependency) is not installed.
 */
export async function deployToEmulator(
  options: EmulatorDeployOptions,
): Promise<EmulatorDeployment> {
  assertLocalhostEndpoint(options.endpoint);
  const cwd = path.resolve(options.app ?? process.cwd());
  const outdir = path.resolve(cwd, options.outdir ?? 'cdk.out');
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: '1' };
  applyEmulatorEnvironment(options.endpoint, env);
  const cdk = (args: string[]) => runCdk(args, { cwd, env, log: options.log });
  const timed = async (step: () => Promise<void>) => {
    const started = performance.now();
    await step();
    return Math.round((performance.now() - started) / 100) / 10;
  };

  const synth = await timed(() => cdk(['synth', '--quiet', '--output', outdir, options.stack]));
  const bootstrap =
    options.bootstrap === false
      ? 0
      : await timed(() =>
          cdk([
            'bootstrap',
            '--app',
            outdir,
            ...(options.environment ? [options.environment] : []),
          ]),
        );
  const outputsFile = path.join(outdir, 'outputs.json');
  const deploy = await timed(() =>
    cdk([
      'deploy',
      options.stack,
      '--app',
      outdir,
      '--require-approval',
      'never',
      '--method=direct',
      '--outputs-file',
      outputsFile,
    ]),
  );
  const all = JSON.parse(await readFile(outputsFile, 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  const outputs = all[options.stack] ?? {};
  let reported: ExecutorOutputs;
  try {
    reported = locationFromStackOutputs(outputs, options.executorId);
  } catch (err) {
    throw new ConfigurationError(
      `${(err as Error).message} Stack ${options.stack} was deployed, but Tasklane can run only a stack that holds a TaskExecutor; when it holds several, name one (executorId).`,
      { cause: err },
    );
  }
  const executor = {
    ...reported,
    queueUrl: onEmulator(reported.queueUrl, options.endpoint),
    deadLetterQueueUrl: onEmulator(reported.deadLetterQueueUrl, options.endpoint),
    ...(reported.lanes === undefined
      ? {}
      : {
          lanes: Object.fromEntries(
            Object.entries(reported.lanes).map(([lane, l]) => [
              lane,
              {
                ...l,
                queueUrl: onEmulator(l.queueUrl, options.endpoint),
                ...(l.deadLetterQueueUrl === undefined
                  ? {}
                  : { deadLetterQueueUrl: onEmulator(l.deadLetterQueueUrl, options.endpoint) }),
              },
            ]),
          ),
        }),
  };
  const completed = await completeInEmulator(executor, options.endpoint);
  return {
    stack: options.stack,
    outputs,
    executor,
    environment: executorEnvironment(options.endpoint, executor),
    ...completed,
    outdir,
    timings: { synth, bootstrap, deploy },
  };
}

/** The steps the emulator's CloudFormation leaves undone (see the module comment). */
async function completeInEmulator(
  executor: ExecutorOutputs,
  endpoint: string,
): Promise<{ createdScheduleGroups: string[]; disabledMappings: string[] }> {
  // An explicit endpoint and the emulator's dummy credentials, whatever the environment says.
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: EMULATOR_ACCESS_KEY_ID, secretAccessKey: 'test' },
  };
  const scheduler = new SchedulerClient(config);
  try {
    const createdScheduleGroups: string[] = [];
    for (const group of [executor.scheduleGroup, executor.delayedScheduleGroup]) {
      if (await provisionScheduleGroup(group, scheduler)) createdScheduleGroups.push(group);
    }
    const queueArns = [
      executor.queueArn,
      ...Object.values(executor.lanes ?? {}).flatMap((lane) => lane.queueArn ?? []),
    ];
    const disabledMappings = await disableMappings([...new Set(queueArns)], config);
    return { createdScheduleGroups, disabledMappings };
  } finally {
    scheduler.destroy();
  }
}

/**
 * Disables every event source mapping of the queues, whichever function it feeds, and
 * returns their UUIDs. Only these queues' mappings: other stacks' stay as they are.
 */
async function disableMappings(
  queueArns: readonly string[],
  config: {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  },
): Promise<string[]> {
  const sdk = await lambdaSdk();
  const lambda = new sdk.LambdaClient(config);
  try {
    const disabled: string[] = [];
    for (const queueArn of queueArns) {
      for await (const page of sdk.paginateListEventSourceMappings(
        { client: lambda },
        { EventSourceArn: queueArn },
      )) {
        for (const mapping of page.EventSourceMappings ?? []) {
          if (mapping.UUID === undefined) continue;
          await lambda.send(
            new sdk.UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: false }),
          );
          disabled.push(mapping.UUID);
        }
      }
    }
    return disabled;
  } finally {
    lambda.destroy();
  }
}

/**
 * The Lambda client's module, an optional peer dependency.
 *
 * @throws ConfigurationError saying how to install it when it is missing.
 */
async function lambdaSdk(): Promise<typeof import('@aws-sdk/client-lambda')> {
  try {
    return await import('@aws-sdk/client-lambda');
  } catch (err) {
    throw new ConfigurationError(
      'deployToEmulator disables the deployed event source mappings with @aws-sdk/client-lambda, an optional peer dependency of tasklane: install it (npm install --save-dev @aws-sdk/client-lambda), or use the tasklane command of @tasklane/cli, which has it.',
      { cause: err },
    );
  }
}

/**
 * Refuses an endpoint that is not `localhost` (an IP address breaks the template's S3 URL;
 * see the module comment), which also keeps deployments to local emulators.
 *
 * @throws ConfigurationError naming the endpoint.
 */
export function assertLocalhostEndpoint(endpoint: string): void {
  let hostname: string | undefined;
  try {
    hostname = new URL(endpoint).hostname;
  } catch {
    hostname = undefined;
  }
  if (hostname === 'localhost' || hostname?.endsWith('.localhost') === true) return;
  throw new ConfigurationError(
    `Deploying into an emulator needs an endpoint on http://localhost:PORT, received ${JSON.stringify(endpoint)}. ` +
      'With an IP address, the emulator cannot find the bootstrap bucket from the template URL (NoSuchBucket).',
    { endpoint },
  );
}

/** Runs the app's CDK CLI; rejects with the output's tail if it exits non-zero. */
function runCdk(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; log: ((line: string) => void) | undefined },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no-install', 'cdk', ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4_000);
      for (const line of text.split('\n')) if (line.trim() !== '') options.log?.(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) return resolve();
      const missing = /could not determine executable|npx canceled|missing packages/i.test(tail);
      reject(
        new ConfigurationError(
          missing
            ? `The CDK CLI is not installed in ${options.cwd}: add it to the app (npm install --save-dev aws-cdk), then deploy again.`
            : `cdk ${args.join(' ')} exited with ${code}\n--- output tail ---\n${tail}`,
        ),
      );
    });
  });
}
