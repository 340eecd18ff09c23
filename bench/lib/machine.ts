/** Facts about the machine and toolchain a run measured on, for the report's header. */
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { version as esbuildVersion } from 'esbuild';

/** What the report states about where it was measured. */
export interface MachineFacts {
  readonly cores: number;
  readonly cpu: string;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly moto: string;
  readonly esbuild: string;
  readonly commit: string;
}

function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

/** Collects the facts; anything unavailable reads "unknown". */
export function machineFacts(): MachineFacts {
  const python = process.env.TASKLANE_PYTHON ?? 'python3';
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    moto: run(python, ['-c', 'import moto; print(moto.__version__)']),
    esbuild: esbuildVersion,
    commit: run('git', ['rev-parse', '--short', 'HEAD']),
  };
}
