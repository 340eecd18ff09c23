/**
 * "cdklocal deploy": deploys a CDK app's stack into a local AWS emulator with the real CDK
 * CLI (`cdk synth`, `cdk bootstrap`, `cdk deploy`), then does the few things the emulator's
 * CloudFormation leaves undone. Used by `npm run deploy:local` and the deploy test.
 *
 * What moto 5.2.1 needs, and why:
 * - The endpoint is `http://localhost:PORT`, never an IP literal: asset upload addresses
 *   the bootstrap bucket as `<bucket>.<host>`, which resolves for localhost only.
 * - FIFO queues have explicit `.fifo` names (the construct does that): moto adds no suffix.
 * - `cdk deploy --method=direct`: moto loses a new stack's outputs when it is created
 *   through a change set (it never rebuilds them after ExecuteChangeSet).
 * - moto's CloudFormation skips AWS::Scheduler::* and AWS::CloudWatch::Alarm resources:
 *   the schedule group is created here from the stack outputs; alarms and the sweeper's
 *   schedule have no emulator counterpart.
 * - moto would run the deployed event source mapping's function in Docker on every send;
 *   the mapping is disabled, and the local poller (runEventSourceMapping) plays it instead.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { onEmulator } from '../../src/local/emulator.js';
import { applyEmulatorEnvironment } from '../../src/local/emulator-env.js';
import { provisionScheduleGroup } from '../../src/local/provision.js';
import {
  type ExecutorOutputs,
  locationFromStackOutputs,
} from '../../src/settings/stack-outputs.js';

/** Options of {@link deployToEmulator}. */
export interface LocalDeployOptions {
  /** The emulator, e.g. `http://localhost:4566`. */
  readonly endpoint: string;
  /** The stack to deploy. */
  readonly stack: string;
  /** Where the cloud assembly goes. @default 'cdk.out' */
  readonly outdir?: string;
  /** The CDK app's root, where cdk.json is. @default process.cwd() */
  readonly cwd?: string;
  /** Bootstrap this environment, `aws://ACCOUNT/REGION`. @default - the emulator's, from STS */
  readonly environment?: string;
  /** The construct id of the executor in the stack's outputs. @default - the only one */
  readonly executorId?: string;
  /** Receives the CLI's output, line by line. @default - discarded */
  readonly log?: (line: string) => void;
  /**
   * Run `cdk bootstrap` first. Turn it off when the environment was bootstrapped already
   * (the consumer test bootstraps while it installs the app). @default true
   */
  readonly bootstrap?: boolean;
}

/** What {@link deployToEmulator} deployed. */
export interface LocalDeployment {
  /** The stack outputs, key → value, as `cdk deploy --outputs-file` wrote them. */
  readonly outputs: Readonly<Record<string, string>>;
  /**
   * The executor read from the outputs, with its queue URLs moved onto the emulator
   * (moto's CloudFormation reports them on AWS's host; see `onEmulator`).
   */
  readonly executor: ExecutorOutputs;
  /** The cloud assembly that was deployed (it holds the bundled function assets). */
  readonly outdir: string;
  /** Seconds per step. */
  readonly timings: { synth: number; bootstrap: number; deploy: number };
}

/**
 * Synthesizes, bootstraps and deploys `stack` into the emulator at `endpoint`.
 *
 * @throws Error if the endpoint is not a local host name, or a CLI step fails (with the
 * tail of its output).
 */
export async function deployToEmulator(options: LocalDeployOptions): Promise<LocalDeployment> {
  assertLocalEndpoint(options.endpoint);
  const cwd = options.cwd ?? process.cwd();
  const outdir = path.resolve(cwd, options.outdir ?? 'cdk.out');
  const env: NodeJS.ProcessEnv = { ...process.env };
  applyEmulatorEnvironment(options.endpoint, env);
  Object.assign(env, {
    CDK_DISABLE_CLI_TELEMETRY: '1',
  });
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
  const reported = locationFromStackOutputs(outputs, options.executorId);
  const executor = {
    ...reported,
    queueUrl: onEmulator(reported.queueUrl, options.endpoint),
    deadLetterQueueUrl: onEmulator(reported.deadLetterQueueUrl, options.endpoint),
  };
  await completeInEmulator(executor, options.endpoint);
  return { outputs, executor, outdir, timings: { synth, bootstrap, deploy } };
}

/** The steps the emulator's CloudFormation skips (see the module comment). */
async function completeInEmulator(executor: ExecutorOutputs, endpoint: string): Promise<void> {
  // An explicit endpoint and the emulator's dummy credentials, whatever the environment says.
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  const scheduler = new SchedulerClient(config);
  const lambda = new LambdaClient(config);
  try {
    await provisionScheduleGroup(executor.scheduleGroup, scheduler);
    await provisionScheduleGroup(executor.delayedScheduleGroup, scheduler);
    const { EventSourceMappings = [] } = await lambda.send(
      new ListEventSourceMappingsCommand({ FunctionName: executor.workerFunctionName }),
    );
    for (const mapping of EventSourceMappings) {
      await lambda.send(
        new UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: false }),
      );
    }
  } finally {
    scheduler.destroy();
    lambda.destroy();
  }
}

/**
 * Rejects an endpoint that is not `localhost` (an IP address breaks the template's S3 URL;
 * see the module comment), which also keeps this helper to local emulators.
 */
export function assertLocalEndpoint(endpoint: string): void {
  const { hostname } = new URL(endpoint);
  if (hostname !== 'localhost' && !hostname.endsWith('.localhost')) {
    throw new Error(
      `deployToEmulator needs an endpoint on http://localhost:PORT, received ${JSON.stringify(endpoint)}. ` +
        'With an IP address, the emulator cannot find the bootstrap bucket from the template URL (NoSuchBucket).',
    );
  }
}

/** Runs the project's CDK CLI; rejects with the output's tail if it exits non-zero. */
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
      if (code === 0) resolve();
      else
        reject(
          new Error(`cdk ${args.join(' ')} exited with ${code}\n--- output tail ---\n${tail}`),
        );
    });
  });
}
