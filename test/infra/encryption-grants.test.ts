import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks, type NagPack, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';
import { idOf } from '../helpers/infra.js';

/** The grants, each given to a role of its own named after it. */
const GRANTS = {
  Enqueue: (e: TaskExecutor, r: Role) => e.grantEnqueue(r),
  Consume: (e: TaskExecutor, r: Role) => e.grantConsume(r),
  Operate: (e: TaskExecutor, r: Role) => e.grantOperate(r),
  Read: (e: TaskExecutor, r: Role) => e.grantRead(r),
  ManageSchedules: (e: TaskExecutor, r: Role) => e.grantManageSchedules(r),
} as const;

function executorStack(withKey: boolean) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const nag: NagPack[] = [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)];
  const stack = new Stack(app, withKey ? 'Keyed' : 'Plain');
  const key = withKey ? new Key(stack, 'Key', { enableKeyRotation: true }) : undefined;
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...(key ? { encryptionKey: key } : {}),
  });
  for (const [name, grant] of Object.entries(GRANTS)) {
    grant(
      executor,
      new Role(stack, name, { assumedBy: new ServicePrincipal('ecs.amazonaws.com') }),
    );
  }
  return { stack, nag, template: Template.fromStack(stack) };
}

interface Statement {
  readonly Action: string | string[];
  readonly Resource?: unknown;
}

/** Every statement of the policies (inline or managed) attached to the role `roleId`. */
function statementsOfRole(template: Template, roleId: string): Statement[] {
  const attached = (roles: unknown) =>
    Array.isArray(roles) && roles.some((r) => (r as { Ref?: string }).Ref === roleId);
  return ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].flatMap((type) =>
    Object.values(template.findResources(type))
      .filter((policy) => attached(policy.Properties.Roles))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]),
  );
}

/** The statements of the managed policy described as `description` (the functions' and schedules' roles). */
function statementsOfPolicy(template: Template, description: string): Statement[] {
  const id = idOf(template, 'AWS::IAM::ManagedPolicy', { Description: description });
  return template.toJSON().Resources[id].Properties.PolicyDocument.Statement as Statement[];
}

/** The distinct KMS actions among `statements`, sorted (a function also decrypts its environment). */
function kmsActions(statements: Statement[]): string[] {
  const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
  return [...new Set(actions.filter((a) => a.startsWith('kms:')))].sort();
}

/** Each principal that touches the table, the queues or the schedules, and what it needs of the key. */
const EXPECTED: Record<string, string[]> = {
  // Sends (GenerateDataKey), table writes (Encrypt) and reads (Decrypt); schedules' input.
  Enqueue: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
  Consume: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
  Operate: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
  Read: ['kms:Decrypt'],
  // Scheduler encrypts on Create/UpdateSchedule and decrypts on GetSchedule for the caller.
  ManageSchedules: ['kms:Decrypt', 'kms:Encrypt'],
  worker: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
  sweeper: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
  // The schedules' roles (one per schedule group, ADR 0036) decrypt the KmsKeyArn-encrypted input and send to encrypted queues.
  'Delivers recurring schedules': ['kms:Decrypt', 'kms:GenerateDataKey'],
  'Delivers delayed tasks': ['kms:Decrypt', 'kms:GenerateDataKey'],
  'Starts the sweeper': ['kms:Decrypt', 'kms:GenerateDataKey'],
};

describe('TaskExecutor encryptionKey, grant by grant', () => {
  const keyed = executorStack(true);
  const plain = executorStack(false);

  const principals = (template: Template, stackName: string): Record<string, Statement[]> => {
    const roles = template.findResources('AWS::IAM::Role');
    const out: Record<string, Statement[]> = {};
    for (const name of Object.keys(GRANTS)) {
      const id = Object.keys(roles).find((logicalId) => logicalId.startsWith(name));
      if (id === undefined) throw new Error(`no role ${name} in ${stackName}`);
      out[name] = statementsOfRole(template, id);
    }
    for (const fn of ['worker', 'sweeper']) {
      out[fn] = statementsOfPolicy(template, `What the Tasklane ${fn} of ${stackName} may do`);
    }
    for (const purpose of [
      'Delivers recurring schedules',
      'Delivers delayed tasks',
      'Starts the sweeper',
    ]) {
      out[purpose] = statementsOfPolicy(template, purpose);
    }
    return out;
  };

  it('gives every principal that touches the table, queues or schedules the key actions it needs', () => {
    // Act
    const found = principals(keyed.template, 'Keyed');

    // Assert
    for (const [principal, expected] of Object.entries(EXPECTED)) {
      expect({ principal, actions: kmsActions(found[principal] ?? []) }).toEqual({
        principal,
        actions: expected,
      });
    }
  });

  it('names the key by its ARN in every KMS statement, never "*"', () => {
    // Act
    const found = Object.values(principals(keyed.template, 'Keyed')).flat();

    // Assert
    const kms = found.filter((s) => kmsActions([s]).length > 0);
    expect(kms.length).toBeGreaterThan(0);
    for (const statement of kms) expect(JSON.stringify(statement.Resource)).toContain('Key');
  });

  it('grants no KMS action at all without a key', () => {
    // Act
    const found = principals(plain.template, 'Plain');

    // Assert
    for (const [principal, statements] of Object.entries(found)) {
      expect({ principal, actions: kmsActions(statements) }).toEqual({ principal, actions: [] });
    }
  });

  it('stays clean under cdk-nag with and without the key', () => {
    // Act
    const findings = [keyed, plain].flatMap(({ nag, stack }) =>
      nag.flatMap((pack) =>
        pack
          .validateScope(stack)
          .violations.flatMap((v) =>
            v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
          ),
      ),
    );

    // Assert: the grantees' own inline policies are the app's choice, not the executor's.
    expect(findings.filter((f) => !f.includes('IAMNoInlinePolicy'))).toEqual([]);
  });
});
