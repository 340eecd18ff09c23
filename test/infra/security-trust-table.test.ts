/**
 * docs/security.md's table "The grants, as synthesized" must be what the template grants:
 * for each principal, exactly the actions on exactly the resources it states (default
 * settings: no key, integrity, bucket, events or lanes). Conditions are described in prose.
 */
import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { TaskExecutor } from '../../src/cdk/index.js';

const GRANTEES = {
  Producer: (e: TaskExecutor, r: Role) => e.grantEnqueue(r),
  Observer: (e: TaskExecutor, r: Role) => e.grantRead(r),
  Operator: (e: TaskExecutor, r: Role) => e.grantOperate(r),
  'Schedule manager': (e: TaskExecutor, r: Role) => e.grantManageSchedules(r),
  Signaller: (e: TaskExecutor, r: Role) => e.grantSignal(r),
  'Lane operator': (e: TaskExecutor, r: Role) => e.grantPauseLanes(r),
} as const;

/** The template of an executor with one role per grant. */
function trustTemplate(): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Trust');
  const executor = new TaskExecutor(stack, 'Executor', { workerEntry: 'functions/worker.ts' });
  for (const [name, grant] of Object.entries(GRANTEES)) {
    const role = new Role(stack, name.replace(' ', ''), {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: name,
    });
    grant(executor, role);
  }
  return Template.fromStack(stack);
}

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** A readable name for a logical id: what the table calls the resource. */
function nameOf(resources: Resources, id: string): string {
  const r = resources[id];
  const p = (r?.Properties ?? {}) as Record<string, unknown>;
  switch (r?.Type) {
    case 'AWS::DynamoDB::Table':
      return 'table';
    case 'AWS::SQS::Queue': {
      const name = String(p.QueueName);
      if (name.endsWith('-work.fifo')) return 'work queue';
      if (name.endsWith('-schedule-dlq')) return 'schedule DLQ';
      return 'DLQ';
    }
    case 'AWS::IAM::Role':
      return String(p.Description).startsWith('Delivers recurring')
        ? 'recurring scheduler role'
        : 'delayed scheduler role';
    case 'AWS::Logs::LogGroup':
      return 'own log group';
    case 'AWS::Lambda::Function':
      return 'sweeper function';
    default:
      return id;
  }
}

/** The resource a statement's Resource entry names, by the table's names. */
function resourceName(resources: Resources, value: unknown): string {
  if (value === '*') return '*';
  const v = value as Record<string, unknown>;
  if ('Fn::GetAtt' in v) {
    const [id = '', attribute] = v['Fn::GetAtt'] as string[];
    return attribute === 'StreamArn' ? 'table stream' : nameOf(resources, id);
  }
  if ('Ref' in v) return nameOf(resources, String(v.Ref));
  if ('Fn::Join' in v) {
    const parts = (v['Fn::Join'] as [string, unknown[]])[1];
    const text = parts.filter((x) => typeof x === 'string').join('');
    if (text.endsWith('/index/byStatus')) return 'status index';
    if (/:schedule\/Trust\.at\/task[._]\*$/.test(text)) return 'delayed schedules';
    if (text.endsWith(':schedule/Trust.at/task_w*')) return 'wake schedules';
    if (text.endsWith(':schedule/Trust/*')) return 'recurring schedules';
    if (text.endsWith(':event-source-mapping:*')) return 'event source mappings';
  }
  return JSON.stringify(value);
}

/** Every (principal, action, resource) the template's policies grant, as table rows. */
function grantedRows(template: Template): string[] {
  const resources = template.toJSON().Resources as Resources;
  const principal = (roleId: string): string | undefined => {
    const p = (resources[roleId]?.Properties ?? {}) as Record<string, unknown>;
    const description = String(p.Description ?? '');
    if (description in GRANTEES) return description;
    if (description.startsWith('Runs the Tasklane worker')) return 'Worker';
    if (description.startsWith('Runs the Tasklane sweeper')) return 'Sweeper';
    if (description === 'Delivers recurring schedules') return 'Recurring scheduler role';
    if (description === 'Delivers delayed tasks') return 'Delayed scheduler role';
    if (description === 'Starts the sweeper') return 'Sweeper schedule role';
    return undefined;
  };
  const rows = new Set<string>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    const p = r.Properties as {
      Roles?: { Ref: string }[];
      PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
    };
    for (const role of p.Roles ?? []) {
      const who = principal(role.Ref);
      if (who === undefined) continue;
      for (const s of p.PolicyDocument.Statement) {
        const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
        const targets = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
        for (const action of actions) {
          for (const target of targets) {
            rows.add(`${who} | ${action} | ${resourceName(resources, target)}`);
          }
        }
      }
    }
  }
  return [...rows].sort();
}

/** The rows docs/security.md states, one per principal, action and resource. */
function documentedRows(): string[] {
  const doc = readFileSync('docs/security.md', 'utf8');
  const start = doc.indexOf('<!-- trust-table -->');
  const end = doc.indexOf('<!-- /trust-table -->');
  const rows = new Set<string>();
  for (const line of doc.slice(start, end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || cells[1] === 'Principal' || cells[1]?.startsWith('---')) continue;
    const [, who = '', actions = '', targets = ''] = cells;
    for (const action of actions.split(',').map((a) => a.trim().replace(/`/g, ''))) {
      for (const target of targets.split(',').map((t) => t.trim().replace(/`/g, ''))) {
        rows.add(`${who.replace(/\*/g, '')} | ${action} | ${target}`);
      }
    }
  }
  return [...rows].sort();
}

describe('docs/security.md trust table', () => {
  it('states exactly the actions and resources the template grants each principal', () => {
    const template = trustTemplate();

    const granted = grantedRows(template);

    expect(documentedRows()).toEqual(granted);
  });
});
