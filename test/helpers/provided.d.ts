// Values the emulator globalSetup hands to test workers via `project.provide()`.
declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Base URLs of the AWS emulators the project's tests use: one per test worker (files of a
     * project run in parallel, each on its own emulator), or one shared endpoint. Tests read
     * theirs through `emulatorEndpoint()` (test/helpers/endpoint.ts).
     */
    awsEndpoints: string[];
    /**
     * The `tasklane` executable bundled for this run (test/helpers/cli-bundle-setup.ts), which
     * test/helpers/cli.ts starts.
     */
    cliEntry: string;
  }
}

export {};
