import { describe, expect, it } from 'vitest';
import { shellCommand, shellWord } from '../../../packages/cli/src/shell.js';

describe('shellWord', () => {
  it('leaves plain words as they are', () => {
    expect(['list', '--cursor', 'eyJhIjoxfQ==', 'a/b:c@d.e,f+g%h'].map(shellWord)).toEqual([
      'list',
      '--cursor',
      'eyJhIjoxfQ==',
      'a/b:c@d.e,f+g%h',
    ]);
  });

  it('single-quotes anything a shell would read otherwise, quotes included', () => {
    expect(shellWord('a key')).toBe("'a key'");
    expect(shellWord('k&1')).toBe("'k&1'");
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(shellWord('')).toBe("''");
  });
});

describe('shellCommand', () => {
  it('joins the words with spaces', () => {
    expect(shellCommand(['tasklane', 'list', '--key', 'a b'])).toBe("tasklane list --key 'a b'");
  });
});
