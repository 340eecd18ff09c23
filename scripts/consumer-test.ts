/**
 * `npm run test:consumer`: proves the package works for an app outside the repository.
 *
 * 1. `npm pack` of the SDK (prepack builds dist/ and the CLI's), then of the CLI package
 *    (`@tasklane/cli`, packages/cli), and a fresh app in a temporary directory: the files of
 *    examples/consumer/ and their own package.json, with `tasklane` and `@tasklane/cli`
 *    pointing at the two tarballs.
 * 2. `npm install` there (from the registry; `--prefer-offline` reuses npm's cache). The app
 *    holds one copy of the SDK: the CLI's peer dependency is the app's `tasklane`.
 *    Meanwhile the emulator is bootstrapped for the CDK (the repository's CLI).
 * 3. At once: `tsc` over the app (strict, skipLibCheck false), and a deploy into the emulator
 *    with the app's own CDK CLI (synth runs cdk-nag's AwsSolutions and NIST 800-53 R5 packs
 *    as validation plugins: a finding fails it).
 * 4. `node run.ts`: 50 tasks through the deployed resources, with `tasklane/local/testing` standing in
 *    for Lambda and EventBridge Scheduler; it asserts how each one ends.
 * 5. `node require.cjs`: the CommonJS build, through require(); then the CLI package's
 *    `tasklane` bin: `npx tasklane status --stack <the deployed stack>`, whose counts must be
 *    the 50 tasks of step 4.
 * 6. `node produce.ts`: the producer function's handler, run with only the environment
 *    `connectProducer` gave the deployed function (read back from the emulator) plus region
 *    and credentials: an immediate and a delayed enqueue, read back (the delayed one SCHEDULED).
 * 7. `node quickstart.ts`: the README's quick start (startLocalExecutor provisions its own
 *    executor on the same emulator).
 *
 * Uses the emulator at AWS_ENDPOINT_URL (a http://localhost:PORT address) when set, else
 * starts moto_server. `--keep` leaves the temporary directory in place.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { deployToEmulator } from '../src/local/deploy.js';
import { type EmulatorHandle, startEmulator } from '../src/local/index.js';
import { emulatorEnvironment } from '../src/local/testing/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const APP_FILES = [
  'tasks.ts',
  'worker.ts',
  'app.ts',
  'run.ts',
  'producer.ts',
  'produce.ts',
  'quickstart.ts',
  'require.cjs',
  'cdk.json',
];
const STACK = 'TasklaneConsumer';
/** moto's account and the emulator's region. */
const MOTO_ENVIRONMENT = 'aws://123456789012/us-east-1';
const started = performance.now();

function elapsed(): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}

function step(message: string): void {
  console.log(`[consumer ${elapsed().padStart(7)}] ${message}`);
}

/** Runs a command; resolves with its stdout, rejects with the tail of its output. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; echo?: boolean },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      tail = (tail + chunk.toString('utf8')).slice(-6_000);
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-6_000);
      if (options.echo) process.stderr.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${tail}`));
    });
  });
}

/** The app's package.json, with `tasklane` and `@tasklane/cli` installed from the tarballs. */
async function appManifest(sdk: string, cli: string): Promise<string> {
  const manifest = JSON.parse(
    await readFile(path.join(ROOT, 'examples/consumer/package.json'), 'utf8'),
  ) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  manifest.dependencies.tasklane = `file:${sdk}`;
  manifest.devDependencies['@tasklane/cli'] = `file:${cli}`;
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `npm pack` of the package in `cwd` (the root, or a workspace with `-w`): its tarball. */
async function pack(work: string, workspace?: string): Promise<string> {
  const args = ['pack', '--json', '--pack-destination', work];
  const output = await run('npm', workspace === undefined ? args : [...args, '-w', workspace], {
    cwd: ROOT,
  });
  // The build's own output comes first; npm's JSON report is the array at the end.
  const packed = JSON.parse(output.slice(output.search(/^\[/m))) as {
    filename: string;
    size: number;
    entryCount: number;
  }[];
  const { filename, size, entryCount } = packed[0] ?? { filename: '', size: 0, entryCount: 0 };
  step(`${filename}: ${(size / 1024).toFixed(1)} KB, ${entryCount} files`);
  return path.join(work, filename);
}

/** The paths of every installed copy of the SDK under the app's node_modules. */
async function sdkCopies(app: string): Promise<string[]> {
  const manifests = await readdir(path.join(app, 'node_modules'), { recursive: true });
  return manifests.filter((f) =>
    /(^|\/)node_modules\/tasklane\/package\.json$|^tasklane\/package\.json$/.test(f),
  );
}

/**
 * `tasklane status` of the deployed stack after run.ts: 49 tasks SUCCEEDED and 1 DEAD of 50,
 * with the stack's dead-letter queue and schedule group found from its outputs.
 */
function assertStatus(output: string): void {
  const row = (label: string) => new RegExp(`^\\W*${label}\\W+(\\d+)\\W*$`, 'm').exec(output);
  const problems = [
    Number(row('SUCCEEDED')?.[1]) === 49 ? '' : 'no row "SUCCEEDED 49"',
    Number(row('DEAD')?.[1]) === 1 ? '' : 'no row "DEAD 1"',
    Number(row('total')?.[1]) === 50 ? '' : 'no row "total 50"',
    /^Dead-letter queue: \d+ waiting/m.test(output) ? '' : 'no dead-letter queue line',
    /^Schedules: not configured/m.test(output) ? 'the schedule group was not found' : '',
  ].filter((p) => p !== '');
  if (problems.length > 0) {
    throw new Error(`tasklane status printed what run.ts did not leave: ${problems.join('; ')}`);
  }
}

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const work = await mkdtemp(path.join(tmpdir(), 'tasklane-consumer-'));
  const app = path.join(work, 'app');
  let emulator: EmulatorHandle | undefined;
  try {
    let endpoint = process.env.AWS_ENDPOINT_URL;
    if (endpoint === undefined) {
      emulator = await startEmulator({ log: path.join(work, 'moto.log') });
      endpoint = emulator.endpoint;
    }
    const emulated = { ...process.env, ...emulatorEnvironment(endpoint) };
    step(`cdk bootstrap of ${endpoint}, while npm pack (builds dist/) runs`);
    const bootstrapped = run(
      path.join(ROOT, 'node_modules/.bin/cdk'),
      ['bootstrap', MOTO_ENVIRONMENT],
      // A directory without cdk.json, so that the CLI synthesizes no app to bootstrap.
      { cwd: work, env: { ...emulated, CDK_DISABLE_CLI_TELEMETRY: '1' } },
    ).then(() => step('bootstrapped'));
    const sdk = await pack(work);
    const cli = await pack(work, '@tasklane/cli');

    await mkdir(app);
    for (const file of APP_FILES) {
      await cp(path.join(ROOT, 'examples/consumer', file), path.join(app, file));
    }
    await cp(path.join(ROOT, 'examples/consumer/tsconfig.json'), path.join(app, 'tsconfig.json'));
    await writeFile(path.join(app, 'package.json'), await appManifest(sdk, cli));
    step('npm install in the app');
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app });
    const copies = await sdkCopies(app);
    if (copies.length !== 1) {
      throw new Error(`the app holds ${copies.length} copies of tasklane: ${copies.join(', ')}`);
    }

    await bootstrapped;
    step(`tsc (strict, skipLibCheck false) and cdk deploy into ${endpoint}, at once`);
    const [, deployment] = await Promise.all([
      run('npx', ['--no-install', 'tsc', '-p', '.'], { cwd: app }).then(() =>
        step('tsc: no errors'),
      ),
      deployToEmulator({ endpoint, stack: STACK, app, bootstrap: false }).then((deployed) => {
        const { synth, deploy } = deployed.timings;
        step(`deployed ${STACK} (synth with cdk-nag ${synth} s, deploy ${deploy} s)`);
        return deployed;
      }),
    ]);

    const { executor } = deployment;
    const env = {
      ...emulated,
      TASKLANE_TABLE_NAME: executor.tableName,
      TASKLANE_QUEUE_URL: executor.queueUrl,
      TASKLANE_QUEUE_ARN: executor.queueArn,
      TASKLANE_DLQ_URL: executor.deadLetterQueueUrl,
      TASKLANE_SCHEDULE_GROUP: executor.scheduleGroup,
      TASKLANE_SCHEDULER_ROLE_ARN: executor.schedulerRoleArn,
      TASKLANE_SCHEDULE_DLQ_ARN: executor.scheduleDeadLetterArn,
    };
    step('node run.ts: 50 tasks through the deployed executor with tasklane/local/testing');
    await run('node', ['run.ts'], { cwd: app, env, echo: true });
    await run('node', ['require.cjs'], { cwd: app, env, echo: true });
    step(`npx tasklane status --stack ${STACK}: @tasklane/cli's bin, located by the outputs`);
    const status = await run('npx', ['--no-install', 'tasklane', 'status', '--stack', STACK], {
      cwd: app,
      env: { ...emulated, NO_COLOR: '1' },
      echo: true,
    });
    assertStatus(status);
    step('tasklane status: 49 SUCCEEDED, 1 DEAD, total 50, the DLQ and the schedules read');
    const producer = await producerEnvironment(endpoint, deployment.outputs);
    step(
      `node produce.ts: the producer's handler, with only the ${producer.count} variables connectProducer set`,
    );
    await run('node', ['produce.ts'], { cwd: app, env: producer.env, echo: true });
    step("node quickstart.ts: the README's quick start, on an executor of its own");
    await run('node', ['quickstart.ts'], { cwd: app, env: emulated, echo: true });
    step(`passed in ${elapsed()}`);
  } finally {
    await emulator?.stop();
    if (keep) console.log(`kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

/**
 * The environment of the deployed producer function, as Lambda would run it: the variables
 * `connectProducer` set, read back from the emulator, plus what Lambda's runtime provides
 * (region and credentials, here the emulator's) and nothing else of this process.
 */
async function producerEnvironment(
  endpoint: string,
  outputs: Readonly<Record<string, string>>,
): Promise<{ env: NodeJS.ProcessEnv; count: number }> {
  const name = outputs.ProducerFunctionName;
  if (name === undefined) throw new Error('the stack has no ProducerFunctionName output');
  const emulator = emulatorEnvironment(endpoint);
  const lambda = new LambdaClient({
    endpoint,
    region: emulator.AWS_REGION ?? 'us-east-1',
    credentials: {
      accessKeyId: emulator.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: emulator.AWS_SECRET_ACCESS_KEY ?? '',
    },
  });
  const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name }));
  const variables = config.Environment?.Variables ?? {};
  const delayed = Object.keys(variables).filter((v) => v.startsWith('TASKLANE_DELAYED_'));
  if (delayed.length === 0) {
    throw new Error(
      `the producer's environment names no delayed schedule group: ${Object.keys(variables).join(', ')}`,
    );
  }
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...emulator,
    ...variables,
  };
  return { env, count: Object.keys(variables).length };
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
