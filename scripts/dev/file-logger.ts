/** The demo's audit log file: the local executor's JSON-lines logger. */
export { type FileLogger, jsonLinesLogger } from '../../src/local/file-logger.js';
