/**
 * Cold initialization of a Lambda bundle: a fresh node process imports the bundle and
 * handles one SQS event, as a new Lambda execution environment would. Times are read in the
 * child, from the process's time origin (its start), so they include node's own start-up.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { SQSRecord } from 'aws-lambda';

/** One cold start. */
export interface ColdStart {
  /** Process start to the first line of our script (node's own start-up). */
  readonly bootMs: number;
  /** Importing and initializing the bundle. */
  readonly importMs: number;
  /** Handling the one event, AWS round trips included. */
  readonly handleMs: number;
  /** Process start to the handled event. */
  readonly totalMs: number;
  /** Records the handler reported as failed (must be 0). */
  readonly failures: number;
}

const MARKER = 'BENCH_COLD ';

/** The child's whole program: import, handle, report, exit. */
const CHILD = `
const bootMs = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const importedMs = performance.now();
const context = {
  functionName: 'bench', functionVersion: '$LATEST', memoryLimitInMB: '512',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
  awsRequestId: 'cold-start', logGroupName: '/aws/lambda/bench', logStreamName: 'cold',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 60000,
  done() {}, fail() {}, succeed() {},
};
const response = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const doneMs = performance.now();
const result = { bootMs, importMs: importedMs - bootMs, handleMs: doneMs - importedMs,
  totalMs: doneMs, failures: response?.batchItemFailures?.length ?? 0 };
process.stdout.write('\\n${MARKER}' + JSON.stringify(result) + '\\n', () => process.exit(0));
`;

/**
 * Runs one cold start of `bundle` handling `record`, with `env` added to this process's
 * environment (the function's configuration).
 *
 * @throws Error when the child fails or prints no result.
 */
export function coldStart(
  bundle: string,
  record: SQSRecord,
  env: Record<string, string>,
): Promise<ColdStart> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: {
        ...process.env,
        ...env,
        BENCH_BUNDLE: pathToFileURL(bundle).href,
        BENCH_EVENT: JSON.stringify({ Records: [record] }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr = (stderr + c).slice(-4000);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith(MARKER));
      if (code === 0 && line !== undefined) {
        resolve(JSON.parse(line.slice(MARKER.length)) as ColdStart);
      } else {
        reject(new Error(`cold start of ${bundle} failed (exit ${code})\n${stderr.trim()}`));
      }
    });
  });
}
