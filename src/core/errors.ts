/**
 * The one error hierarchy: every error Tasklane throws is a {@link TasklaneError} with a stable
 * `code`, and carries its context as fields. Its families are modules of `errors/`; this
 * module is their one door, so every importer sees the whole hierarchy in one place. Also
 * here: what a record keeps of an error that a handler or an AWS call threw.
 */
export * from './errors/base.js';
export * from './errors/configuration.js';
export * from './errors/error-info.js';
export * from './errors/handler.js';
export * from './errors/input.js';
export * from './errors/task-state.js';
