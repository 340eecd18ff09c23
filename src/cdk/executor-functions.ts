/**
 * The executor's Lambda functions. Each gets its own role whose only permissions are one
 * customer-managed policy that this module writes, so nothing is granted implicitly: the
 * role handed to the function ignores CDK's automatic grants.
 */
import type { Duration } from 'aws-cdk-lib';
import type { IVpc, SubnetSelection } from 'aws-cdk-lib/aws-ec2';
import {
  type AddToPrincipalPolicyResult,
  Effect,
  type IPrincipal,
  ManagedPolicy,
  PolicyStatement,
  type PrincipalPolicyFragment,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { workerCode } from './worker-bundling.js';

/** The oldest Node.js major the functions' bundles are built for (`BUNDLING.target`, worker-bundling.ts). */
export const MIN_NODE_MAJOR = 24;

/** The Node.js major of a Lambda runtime (`nodejs24.x` → 24), or undefined for another family. */
export function nodeMajor(runtime: Runtime): number | undefined {
  const match = /^nodejs(\d+)\.x$/.exec(runtime.name);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The executor functions' default runtime: the newest Node.js runtime that the installed
 * aws-cdk-lib knows, and never one older than {@link MIN_NODE_MAJOR}. An app on a newer
 * aws-cdk-lib thus deploys the newest runtime it can, which is what cdk-nag's AwsSolutions-L1
 * asks of every function; the bundles, built for Node.js 24, run unchanged on later majors.
 */
export function latestNodeRuntime(): Runtime {
  let latest: { runtime: Runtime; major: number } = {
    runtime: Runtime.NODEJS_24_X,
    major: MIN_NODE_MAJOR,
  };
  for (const runtime of Runtime.ALL) {
    // NODEJS_LATEST is an alias that moves with aws-cdk-lib releases; the named ones are enough.
    if (runtime.isVariable) continue;
    const major = nodeMajor(runtime);
    if (major !== undefined && major > latest.major) latest = { runtime, major };
  }
  return latest.runtime;
}

/**
 * A function's code: a module that exports `handler`, bundled here with esbuild into
 * `index.mjs` and its chunks (the worker, worker-bundling.ts), or a directory that already
 * holds the bundle, `index.mjs` (the sweeper).
 */
export type FunctionCode = { readonly entry: string } | { readonly bundleDirectory: string };

/** Inputs of {@link ExecutorFunction}. */
export interface ExecutorFunctionProps {
  readonly code: FunctionCode;
  /** Log group name, e.g. `/tasklane/orders/worker`. */
  readonly logGroupName: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  /** A Node.js runtime, {@link MIN_NODE_MAJOR} or later. */
  readonly runtime: Runtime;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
  readonly logEncryptionKey?: IKey | undefined;
  /** Encrypts the function's environment variables; the role may decrypt with it. */
  readonly environmentKey?: IKey | undefined;
  readonly reservedConcurrency?: number | undefined;
  /** Where failed asynchronous invocations go (a Lambda DLQ). */
  readonly deadLetterQueue?: IQueue | undefined;
  readonly vpc?: IVpc | undefined;
  readonly vpcSubnets?: SubnetSelection | undefined;
  readonly description: string;
}

/** A bundled Node.js function with its own log group, role and managed policy. */
export class ExecutorFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** The function's only permissions; add statements with {@link allow}. */
  readonly policy: ManagedPolicy;
  /**
   * The function's role as a grantee: what is granted to it (`bucket.grantRead(grantee)`)
   * lands in {@link policy}. The function's own `grantPrincipal` is the role without policy
   * updates, which drops grants, so that nothing is granted to it implicitly.
   */
  readonly grantee: IPrincipal;

  constructor(scope: Construct, id: string, props: ExecutorFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName: props.logGroupName,
      retention: props.logRetention,
      ...(props.logEncryptionKey ? { encryptionKey: props.logEncryptionKey } : {}),
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.description}`,
    });
    this.policy = new ManagedPolicy(this, 'Policy', {
      roles: [this.role],
      description: `What ${props.description} may do`,
      statements: [
        new PolicyStatement({
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [this.logGroup.logGroupArn],
        }),
      ],
    });
    this.grantee = new PolicyGrantee(this, 'Grantee', this.role, this.policy);
    if (props.deadLetterQueue) {
      this.allow(['sqs:SendMessage'], [props.deadLetterQueue.queueArn]);
    }
    if (props.vpc) {
      // Lambda manages the function's network interfaces; these actions take no resource ARN.
      this.allow(
        [
          'ec2:CreateNetworkInterface',
          'ec2:DescribeNetworkInterfaces',
          'ec2:DescribeSubnets',
          'ec2:DeleteNetworkInterface',
          'ec2:AssignPrivateIpAddresses',
          'ec2:UnassignPrivateIpAddresses',
        ],
        ['*'],
      );
    }
    if (props.environmentKey) this.allow(['kms:Decrypt'], [props.environmentKey.keyArn]);
    const common = {
      description: props.description,
      runtime: props.runtime,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role.withoutPolicyUpdates(),
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      ...(props.environmentKey ? { environmentEncryption: props.environmentKey } : {}),
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      ...(props.deadLetterQueue ? { deadLetterQueue: props.deadLetterQueue } : {}),
      ...(props.vpc ? { vpc: props.vpc } : {}),
      ...(props.vpc && props.vpcSubnets ? { vpcSubnets: props.vpcSubnets } : {}),
    };
    this.function = new LambdaFunction(this, 'Function', {
      ...common,
      code:
        'entry' in props.code
          ? workerCode(props.code.entry)
          : Code.fromAsset(props.code.bundleDirectory),
      // Both bundles' entry is index.mjs (WORKER_ENTRY_FILE, SWEEPER_BUNDLE_FILE).
      handler: 'index.handler',
    });
    // The managed policy must exist before the function assumes the role.
    this.function.node.addDependency(this.policy);
  }

  /** Adds one Allow statement to the function's managed policy. */
  allow(
    actions: string[],
    resources: string[],
    conditions?: Record<string, Record<string, unknown>>,
  ): void {
    this.policy.addStatements(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions,
        resources,
        ...(conditions === undefined ? {} : { conditions }),
      }),
    );
  }
}

/**
 * A role as a principal whose grants go into one managed policy: the function's, so that
 * its permissions stay in one customer-managed policy, never an inline one.
 */
class PolicyGrantee extends Construct implements IPrincipal {
  readonly grantPrincipal: IPrincipal = this;
  readonly assumeRoleAction: string;
  readonly principalAccount: string | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly role: Role,
    private readonly policy: ManagedPolicy,
  ) {
    super(scope, id);
    this.assumeRoleAction = role.assumeRoleAction;
    this.principalAccount = role.principalAccount;
  }

  get policyFragment(): PrincipalPolicyFragment {
    return this.role.policyFragment;
  }

  addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.policy.addStatements(statement);
    return { statementAdded: true, policyDependable: this.policy };
  }

  addToPolicy(statement: PolicyStatement): boolean {
    return this.addToPrincipalPolicy(statement).statementAdded;
  }
}
