// Values the fault suite's globalSetup hands to test files via `project.provide()`.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The master seed of this run (FAULT_SEED, or drawn at random). */
    faultSeed: number;
    /** Folder where each scenario file leaves its result and logs. */
    faultResultsDir: string;
    /** The bundled worker child process (test/faults/worker-process.ts). */
    faultWorkerScript: string;
    /** The bundled producer child process (test/faults/producer-process.ts). */
    faultProducerScript: string;
  }
}

export {};
