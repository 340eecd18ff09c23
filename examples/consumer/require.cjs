// CommonJS apps load the same API with require().
const assert = require('node:assert/strict');
const { TaskClient, defineTask, createWorker, TaskStatus } = require('tasklane');

assert.equal(typeof TaskClient, 'function');
assert.equal(typeof defineTask, 'function');
assert.equal(typeof createWorker, 'function');
assert.equal(TaskStatus.SUCCEEDED, 'SUCCEEDED');
assert.equal(typeof require('tasklane/cdk').TaskExecutor, 'function');
assert.equal(typeof require('tasklane/local').startLocalExecutor, 'function');
assert.equal(typeof require('tasklane/local/testing').runEventSourceMapping, 'function');
console.log('require(): tasklane, tasklane/cdk, tasklane/local and tasklane/local/testing load');
