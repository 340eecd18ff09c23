/** Runs a consumer bundle in a fresh node process and collects its result. */
import { spawn } from 'node:child_process';
import type { ConsumerConfig, ConsumerResult } from '../consumers/protocol.js';
import { RESULT_MARKER } from '../consumers/protocol.js';

/** A consumer's result plus what the parent saw of the process. */
export interface ConsumerRun extends ConsumerResult {
  /** Bytes the consumer wrote to stdout besides its result: its log lines. */
  readonly logBytes: number;
}

const KILL_GRACE_MS = 30_000;
const TAIL_CHARS = 4_000;

/**
 * Spawns `node bundle` with the config in BENCH_CONSUMER and waits for its result line.
 *
 * @throws Error when the process fails, prints no result, or outlives its timeout.
 */
export function runConsumerProcess(bundle: string, config: ConsumerConfig): Promise<ConsumerRun> {
  return new Promise((resolve, reject) => {
    // --expose-gc lets the child measure what it retained after the timed run.
    const child = spawn(process.execPath, ['--expose-gc', bundle], {
      env: { ...process.env, BENCH_CONSUMER: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logBytes = 0;
    let pending = '';
    let result: ConsumerResult | undefined;
    let stderr = '';
    const onLine = (line: string) => {
      if (line.startsWith(RESULT_MARKER)) {
        result = JSON.parse(line.slice(RESULT_MARKER.length)) as ConsumerResult;
      } else if (line !== '') {
        logBytes += Buffer.byteLength(line, 'utf8') + 1;
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-TAIL_CHARS);
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), config.timeoutMs + KILL_GRACE_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      onLine(pending);
      if (code === 0 && result !== undefined) {
        resolve({ ...result, logBytes });
        return;
      }
      reject(
        new Error(
          `consumer ${config.kind} failed (exit ${code ?? signal}, result ${result ? 'present' : 'missing'})\n${stderr.trim()}`,
        ),
      );
    });
  });
}
