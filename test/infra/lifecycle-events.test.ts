import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, NIST80053R5Checks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { TaskExecutor, type TaskExecutorProps } from '../../src/cdk/index.js';
import { arnOf, idOf } from '../helpers/infra.js';

/** An executor with `events`, or (`ownBus`) with a bus of its own stack as `eventBus`. */
function eventsStack(props: Pick<TaskExecutorProps, 'events'> & { ownBus?: boolean } = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Orders', { env: { account: '111122223333', region: 'eu-west-1' } });
  // exactOptionalPropertyTypes refuses the class for its interface; the construct takes any IEventBus.
  const bus = new EventBus(stack, 'Bus', { eventBusName: 'orders-bus' }) as IEventBus;
  const executor = new TaskExecutor(stack, 'Executor', {
    workerEntry: 'functions/worker.ts',
    ...(props.events === undefined ? {} : { events: props.events }),
    ...(props.ownBus === true ? { eventBus: bus } : {}),
  });
  return { app, stack, bus, executor };
}

/** The statements of the worker's one managed policy. */
function workerStatements(template: Template): unknown[] {
  const [policy] = Object.values(
    template.findResources('AWS::IAM::ManagedPolicy', {
      Properties: { Description: 'What the Tasklane worker of Orders may do' },
    }),
  );
  return policy?.Properties.PolicyDocument.Statement as unknown[];
}

const WORKER = { Description: 'the Tasklane worker of Orders' };

describe('TaskExecutor events', () => {
  it('grants the worker events:PutEvents on the given bus, and nothing else on it', () => {
    const { stack } = eventsStack({ ownBus: true });

    const template = Template.fromStack(stack);

    const busId = idOf(template, 'AWS::Events::EventBus', { Name: 'orders-bus' });
    expect(workerStatements(template)).toContainEqual({
      Effect: 'Allow',
      Action: 'events:PutEvents',
      Resource: arnOf(busId),
    });
    const onEvents = workerStatements(template).filter((s) =>
      JSON.stringify(s).includes('events:'),
    );
    expect(onEvents).toHaveLength(1);
  });

  it('passes the bus and the source tasklane.<name> in the worker’s environment', () => {
    const { stack } = eventsStack({ ownBus: true });

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::Lambda::Function', {
      ...WORKER,
      Environment: {
        Variables: Match.objectLike({
          TASKLANE_EVENT_BUS: { Ref: idOf(template, 'AWS::Events::EventBus', {}) },
          TASKLANE_EVENT_SOURCE: 'tasklane.Orders',
        }),
      },
    });
  });

  it('uses the account’s default bus with events: true', () => {
    const { stack } = eventsStack({ events: true });

    const template = Template.fromStack(stack);

    expect(workerStatements(template)).toContainEqual({
      Effect: 'Allow',
      Action: 'events:PutEvents',
      Resource: {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':events:eu-west-1:111122223333:event-bus/default'],
        ],
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      ...WORKER,
      Environment: { Variables: Match.objectLike({ TASKLANE_EVENT_BUS: 'default' }) },
    });
  });

  it('publishes nothing by default: no permission, no environment', () => {
    const { stack } = eventsStack();

    const template = Template.fromStack(stack);

    expect(JSON.stringify(workerStatements(template))).not.toContain('events:PutEvents');
    template.hasResourceProperties('AWS::Lambda::Function', {
      ...WORKER,
      Environment: { Variables: Match.objectLike({ TASKLANE_EVENT_BUS: Match.absent() }) },
    });
  });

  it('lets grantConsume publish too, for a poll-loop worker', () => {
    const { stack, executor } = eventsStack({ ownBus: true });
    const role = new Role(stack, 'PollWorker', {
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com'),
    });

    executor.grantConsume(role);

    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'events:PutEvents',
            Resource: arnOf(idOf(template, 'AWS::Events::EventBus', {})),
          }),
        ]),
      },
    });
  });

  it('stays clean under cdk-nag (AwsSolutions and NIST 800-53 R5) with no new acknowledgement', () => {
    const plain = eventsStack();
    const withEvents = eventsStack({ ownBus: true });

    const findings = (app: App, stack: Stack) =>
      [new AwsSolutionsChecks(app), new NIST80053R5Checks(app)].flatMap((pack) =>
        pack
          .validateScope(stack)
          .violations.flatMap((v) =>
            v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`),
          ),
      );

    expect(findings(withEvents.app, withEvents.stack)).toEqual(findings(plain.app, plain.stack));
    expect(withEvents.executor.nagAcknowledgements).toEqual(plain.executor.nagAcknowledgements);
  });
});
