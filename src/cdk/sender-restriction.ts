/**
 * The opt-in queue policy of `restrictSenders`: the work queue denies `sqs:SendMessage` to
 * every principal whose ARN is not on a list the construct keeps, the scheduler role, the
 * sweeper's role and each principal granted a send (grantEnqueue, grantOperate).
 */
import { Lazy } from 'aws-cdk-lib';
import {
  AnyPrincipal,
  Effect,
  type IGrantable,
  type IPrincipal,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { ValidationError } from '../core/errors.js';

/**
 * Adds the deny statement to each work queue's resource policy (one per lane), and collects
 * the principals they spare. The list is read when the template is synthesized, so principals granted after
 * construction are on it.
 */
export class SenderRestriction {
  private readonly principalArns: string[] = [];

  constructor(queues: readonly IQueue[], initial: readonly string[]) {
    this.principalArns.push(...initial);
    for (const queue of queues) this.restrict(queue);
  }

  private restrict(queue: IQueue): void {
    queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTasklaneSenders',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [queue.queueArn],
        conditions: {
          // aws:PrincipalArn is the role's ARN (not the session's) for an assumed role, so a
          // role's every session is spared; an anonymous request has no such key, and the
          // negated operator then denies it.
          ArnNotEquals: {
            'aws:PrincipalArn': Lazy.list({ produce: () => [...this.principalArns] }),
          },
        },
      }),
    );
  }

  /**
   * Spares `grantee`'s principal.
   *
   * @throws ValidationError when it is not an IAM role or user: the policy can only name a
   *   principal ARN.
   */
  allow(grantee: IGrantable, grant: string): void {
    const arn = principalArn(grantee.grantPrincipal);
    if (arn === undefined) {
      throw new ValidationError(`TaskExecutor.${grant} with restrictSenders`, [
        {
          path: 'grantee',
          message: `expected an IAM role or user, whose ARN the work queue's policy can spare, received ${grantee.grantPrincipal.constructor.name}`,
        },
      ]);
    }
    if (!this.principalArns.includes(arn)) this.principalArns.push(arn);
  }
}

function principalArn(principal: IPrincipal): string | undefined {
  const candidate = principal as IPrincipal & { roleArn?: unknown; userArn?: unknown };
  if (typeof candidate.roleArn === 'string') return candidate.roleArn;
  if (typeof candidate.userArn === 'string') return candidate.userArn;
  return undefined;
}
