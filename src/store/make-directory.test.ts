import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeDirectory } from './make-directory.js';

test('makes a directory and its missing parents, and leaves one that is there', async () => {
  const root = await mkdtemp(join(tmpdir(), 'marquee-directory-'));
  try {
    const deep = join(root, 'a', 'b', 'c');
    makeDirectory(deep);
    makeDirectory(deep);
    assert.ok((await stat(deep)).isDirectory());
    const file = join(root, 'a', 'file');
    await writeFile(file, '');
    assert.throws(() => makeDirectory(join(file, 'd')), { message: `${file} is a file, not a directory` });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('fails where the system cannot make a parent, rather than trying for ever', () => {
  assert.throws(() => makeDirectory('/proc/marquee-nothing/data'));
});
