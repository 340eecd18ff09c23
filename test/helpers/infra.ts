/** Builders for the infra tests: the example stack, with or without bundling the functions. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { TasklaneExampleStack } from '../../infra/example-stack.js';
import type { TaskExecutorProps } from '../../src/cdk/index.js';

/** Options of {@link exampleStack}. */
export interface ExampleStackOptions {
  /** Overrides of the executor's props. */
  readonly executor?: Partial<TaskExecutorProps>;
  /**
   * Run esbuild for the functions. Off, the assets are hashed from the source, which is
   * all a template assertion needs, and much faster. @default false
   */
  readonly bundle?: boolean;
}

/** The example stack in a fresh app. */
export function exampleStack(options: ExampleStackOptions = {}): TasklaneExampleStack {
  const app = new App(options.bundle ? {} : { context: { 'aws:cdk:bundling-stacks': [] } });
  return new TasklaneExampleStack(app, 'TasklaneExample', {
    ...(options.executor ? { executor: options.executor } : {}),
  });
}

/** The synthesized template of {@link exampleStack}. */
export function exampleTemplate(options: ExampleStackOptions = {}): Template {
  return Template.fromStack(exampleStack(options));
}

/** The logical id of the one resource of `type` whose properties match: found, never written down. */
export function idOf(template: Template, type: string, properties: object): string {
  const found = Object.keys(template.findResources(type, { Properties: properties }));
  if (found.length !== 1) {
    throw new Error(
      `expected one ${type} matching ${JSON.stringify(properties)}, found ${found.length}`,
    );
  }
  return found[0] as string;
}

/** `Fn::GetAtt [id, Arn]`. */
export const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
