/**
 * `npm run test:consumer`: proves the package works for an app outside the repository.
 *
 * 1. `npm pack` (prepack builds dist/), then a fresh app in a temporary directory: the files
 *    of examples/consumer/ and their own package.json, with `tasklane` pointing at the tarball.
 * 2. `npm install` there (from the registry; `--prefer-offline` reuses npm's cache).
 *    Meanwhile the emulator is bootstrapped for the CDK (the repository's CLI).
 * 3. At once: `tsc` over the app (strict, skipLibCheck false), and a deploy into the emulator
 *    with the app's own CDK CLI (synth runs cdk-nag's AwsSolutions and NIST 800-53 R5 packs
 *    as validation plugins: a finding fails it).
 * 4. `node run.ts`: 50 tasks through the deployed resources, with `tasklane/local/testing` standing in
 *    for Lambda and EventBridge Scheduler; it asserts how each one ends.
 * 5. `node require.cjs`: the CommonJS build, through require(); then the packed `tasklane`
 *    bin: `npx tasklane status --stack <the deployed stack>`.
 * 6. `node quickstart.ts`: the README's quick start (startLocalExecutor provisions its own
 *    executor on the same emulator).
 *
 * Uses the emulator at AWS_ENDPOINT_URL (a http://localhost:PORT address) when set, else
 * starts moto_server. `--keep` leaves the temporary directory in place.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deployToEmulator } from '../src/local/deploy.js';
import { type EmulatorHandle, startEmulator } from '../src/local/index.js';
import { emulatorEnvironment } from '../src/local/testing/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const APP_FILES = [
  'tasks.ts',
  'worker.ts',
  'app.ts',
  'run.ts',
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

/** The app's package.json, with `tasklane` installed from the tarball. */
async function appManifest(tarball: string): Promise<string> {
  const manifest = JSON.parse(
    await readFile(path.join(ROOT, 'examples/consumer/package.json'), 'utf8'),
  ) as { dependencies: Record<string, string> };
  manifest.dependencies.tasklane = `file:${tarball}`;
  return `${JSON.stringify(manifest, null, 2)}\n`;
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
    const output = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT });
    // The build's own output comes first; npm's JSON report is the array at the end.
    const packed = JSON.parse(output.slice(output.search(/^\[/m))) as {
      filename: string;
      size: number;
      entryCount: number;
    }[];
    const { filename, size, entryCount } = packed[0] ?? { filename: '', size: 0, entryCount: 0 };
    const tarball = path.join(work, filename);
    step(`${filename}: ${(size / 1024).toFixed(1)} KB, ${entryCount} files`);

    await mkdir(app);
    for (const file of APP_FILES) {
      await cp(path.join(ROOT, 'examples/consumer', file), path.join(app, file));
    }
    await cp(path.join(ROOT, 'examples/consumer/tsconfig.json'), path.join(app, 'tsconfig.json'));
    await writeFile(path.join(app, 'package.json'), await appManifest(tarball));
    step('npm install in the app');
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app });

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
    step(`npx tasklane status --stack ${STACK}: the packed bin, located by the stack's outputs`);
    await run('npx', ['--no-install', 'tasklane', 'status', '--stack', STACK], {
      cwd: app,
      env: emulated,
      echo: true,
    });
    step("node quickstart.ts: the README's quick start, on an executor of its own");
    await run('node', ['quickstart.ts'], { cwd: app, env: emulated, echo: true });
    step(`passed in ${elapsed()}`);
  } finally {
    await emulator?.stop();
    if (keep) console.log(`kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
