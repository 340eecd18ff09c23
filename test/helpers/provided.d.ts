// Values the integration globalSetup hands to test workers via `project.provide()`.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the AWS emulator that integration tests must use. */
    awsEndpoint: string;
  }
}

export {};
