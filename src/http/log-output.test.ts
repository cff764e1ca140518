import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogOutput } from './log-output.js';

function memoryOutput(): { readonly output: LogOutput; readonly writes: string[] } {
  const writes: string[] = [];
  return { output: new LogOutput((bytes) => void writes.push(bytes.toString())), writes };
}

test('numbers are written in decimal, durations with three decimals', () => {
  const { output, writes } = memoryOutput();
  for (const value of [0, 7, 10, 200, 1_000_000_007, 1_795_368_495_121]) {
    output.integer(value);
    output.ascii(' ');
  }
  for (const value of [0, 42, 1000, 12_345]) {
    output.thousandths(value);
    output.ascii(' ');
  }
  output.integer(-1);
  output.integer(Infinity);
  output.flush();
  assert.deepEqual(writes, ['0 7 10 200 1000000007 1795368495121 0.000 0.042 1.000 12.345 00']);
});

test('lines keep their order, whichever way they were written, and leave together', () => {
  const { output, writes } = memoryOutput();
  output.write('{"msg":"first"}\n');
  output.reserve(64);
  output.bytes(Buffer.from('{"msg":"'));
  output.ascii('sécond');
  output.bytes(Buffer.from('"}\n'));
  output.lineWritten();
  output.write('{"msg":"troisième"}\n');
  assert.deepEqual(writes, [], 'nothing is written before the batch leaves');
  output.flush();
  assert.deepEqual(writes, ['{"msg":"first"}\n{"msg":"s?cond"}\n{"msg":"troisième"}\n']);
});

test('a full buffer is written at once, and a line larger than the buffer goes out whole', () => {
  const { output, writes } = memoryOutput();
  const line = `${'x'.repeat(999)}\n`;
  for (let count = 0; count < 100; count++) output.write(line);
  assert.ok(writes.length >= 1, 'the buffer was written when full');
  const huge = `${'y'.repeat(100_000)}\n`;
  output.write(huge);
  output.flush();
  assert.equal(writes.join(''), line.repeat(100) + huge);
});

test('pending lines leave on their own a few milliseconds later', async () => {
  const { output, writes } = memoryOutput();
  output.write('{"msg":"soon"}\n');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(writes, ['{"msg":"soon"}\n']);
});
