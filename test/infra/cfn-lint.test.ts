/**
 * cfn-lint (the Python tool, `pip install -r requirements-dev.txt`) over the synthesized
 * example stack. Settings, and the one ignored check with its reason, are in .cfnlintrc.yaml.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleTemplate } from '../helpers/infra.js';

interface CfnLintMatch {
  readonly Level: string;
  readonly Message: string;
  readonly Rule: { readonly Id: string };
}

function cfnLint(template: object): { status: number | null; matches: CfnLintMatch[] } {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tasklane-cfn-lint-')), 'template.json');
  writeFileSync(file, JSON.stringify(template));
  const run = spawnSync('cfn-lint', ['--format', 'json', file], { encoding: 'utf8' });
  if (run.error) {
    throw new Error(
      `cannot run cfn-lint (${run.error.message}); install it: pip install -r requirements-dev.txt`,
    );
  }
  return { status: run.status, matches: JSON.parse(run.stdout || '[]') as CfnLintMatch[] };
}

describe('cfn-lint over the example stack', () => {
  it('finds nothing: no errors, no warnings', () => {
    const { status, matches } = cfnLint(exampleTemplate().toJSON());

    expect(matches.map((m) => `${m.Level} ${m.Rule.Id}: ${m.Message}`)).toEqual([]);
    expect(status).toBe(0);
  });

  it('does report a broken template (control)', () => {
    // A FIFO queue whose name lacks the .fifo suffix.
    const broken = {
      Resources: {
        Queue: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true, QueueName: 12 } },
      },
    };

    const { status, matches } = cfnLint(broken);

    expect(status).not.toBe(0);
    expect(matches.some((m) => m.Level === 'Error')).toBe(true);
  });
});
