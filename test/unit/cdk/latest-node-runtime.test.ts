import { Runtime, RuntimeFamily } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { latestNodeRuntime, nodeMajor } from '../../../src/cdk/executor-functions.js';

describe('latestNodeRuntime', () => {
  it('is Node.js 24 with the aws-cdk-lib of this repository', () => {
    const runtime = latestNodeRuntime();

    expect(runtime.name).toBe('nodejs24.x');
  });

  it('follows a newer Node.js runtime that a newer aws-cdk-lib registers, as cdk-nag AwsSolutions-L1 does', () => {
    // A newer aws-cdk-lib adds its runtimes to Runtime.ALL as this one does (this file runs
    // in a worker of its own: the unit project isolates files).
    const newer = new Runtime('nodejs26.x', RuntimeFamily.NODEJS, { supportsInlineCode: true });
    new Runtime('nodejs28.x', RuntimeFamily.NODEJS, { isVariable: true });

    const runtime = latestNodeRuntime();

    expect(runtime).toBe(newer);
  });
});

describe('nodeMajor', () => {
  it('reads the major of a Node.js runtime, and nothing from another family', () => {
    expect(nodeMajor(Runtime.NODEJS_24_X)).toBe(24);
    expect(nodeMajor(Runtime.PYTHON_3_13)).toBeUndefined();
    expect(nodeMajor(Runtime.NODEJS)).toBeUndefined();
  });
});
