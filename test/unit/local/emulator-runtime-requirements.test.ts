/**
 * The Python packages the emulator installs are pinned whole, by version and hash, and pip is
 * told to refuse anything else (docs/security.md, "The dev harness").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIP_INSTALL_ARGS } from '../../../src/local/emulator-runtime.js';

/** The requirement entries of a pip requirements file, continuation lines joined. */
function entries(file: string): string[] {
  return readFileSync(file, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('requirements-emulator.txt', () => {
  it('pins every package to one version with at least one SHA-256 hash', () => {
    const lines = entries('requirements-emulator.txt');

    const loose = lines.filter(
      (l) => !/^[A-Za-z0-9._-]+==[^\s]+( --hash=sha256:[0-9a-f]{64})+$/.test(l),
    );

    expect(lines.length).toBeGreaterThan(10);
    expect(loose).toEqual([]);
  });

  it('keeps moto at 5.2.1, the release the harness corrects (docs/emulator.md)', () => {
    const names = entries('requirements-emulator.txt').map((l) => l.split(' ')[0]);

    expect(names).toContain('moto==5.2.1');
  });
});

describe('requirements-ministack.txt', () => {
  it('pins every package to one version with at least one SHA-256 hash', () => {
    const lines = entries('requirements-ministack.txt');

    const loose = lines.filter(
      (l) => !/^[A-Za-z0-9._-]+==[^\s]+( --hash=sha256:[0-9a-f]{64})+$/.test(l),
    );

    expect(lines.length).toBeGreaterThan(5);
    expect(loose).toEqual([]);
  });

  it('keeps MiniStack at 1.5.33, the release docs/emulator.md describes', () => {
    const names = entries('requirements-ministack.txt').map((l) => l.split(' ')[0]);

    expect(names).toContain('ministack==1.5.33');
  });
});

describe('requirements-dev.txt', () => {
  it('adds nothing unhashed to the emulator set', () => {
    expect(entries('requirements-dev.txt')).toEqual(['-r requirements-emulator.txt']);
  });
});

describe('PIP_INSTALL_ARGS', () => {
  it('makes pip refuse any file whose hash is not pinned', () => {
    expect(PIP_INSTALL_ARGS).toContain('--require-hashes');
  });
});
