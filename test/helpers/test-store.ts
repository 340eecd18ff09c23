/**
 * The store a test executor reads with: a `TaskStore` whose parts (made on first use in the
 * library, docs/adr/0070-store-parts-on-first-use.md) are also named fields, as they were
 * before that change, so that tests and the reproductions in the shared repro folder read
 * park items, steps or signals as `executor.store.parkedKeys.get(…)`.
 */
import { DebounceStore } from '../../src/store/debounce.js';
import { DependencyStore } from '../../src/store/dependency-store.js';
import { ParkedKeys } from '../../src/store/parked-keys.js';
import { SignalStore } from '../../src/store/signals.js';
import { StepStore } from '../../src/store/steps.js';
import { TaskStore } from '../../src/store/task-store.js';
import { TokenBuckets } from '../../src/store/token-bucket.js';

/** A `TaskStore` with its parts as fields, for tests. */
export class TestStore extends TaskStore {
  get parkedKeys(): ParkedKeys {
    return this.feature(ParkedKeys);
  }

  get dependencies(): DependencyStore {
    return this.feature(DependencyStore);
  }

  get debounces(): DebounceStore {
    return this.feature(DebounceStore);
  }

  get rateBuckets(): TokenBuckets {
    return this.feature(TokenBuckets);
  }

  get steps(): StepStore {
    return this.feature(StepStore);
  }

  get signals(): SignalStore {
    return this.feature(SignalStore);
  }
}
