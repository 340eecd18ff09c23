/** What a record keeps of an error that a handler or an AWS call threw, and its log line. */
import { type TaskErrorInfo, truncate } from '../record.js';

/** Longest error name kept on a record. */
const MAX_ERROR_NAME_CHARS = 100;
/** Longest error message kept on a record (and of a DEAD task's reason). */
export const MAX_ERROR_MESSAGE_CHARS = 1000;

/** An error's name and message, cut to what a record keeps. */
export function boundedError(error: TaskErrorInfo): TaskErrorInfo {
  return {
    name: truncate(error.name, MAX_ERROR_NAME_CHARS),
    message: truncate(error.message, MAX_ERROR_MESSAGE_CHARS),
  };
}

/** What a record keeps of anything thrown: an Error's name and message, else `NonError`. */
export function errorInfo(error: unknown): TaskErrorInfo {
  return error instanceof Error
    ? boundedError(error)
    : { name: 'NonError', message: truncate(String(error), MAX_ERROR_MESSAGE_CHARS) };
}

/** One line for a log: `Name: message` for an Error, else the value as text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
