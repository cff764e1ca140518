import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressReporter } from './progress.js';

function fakeStream(isTTY: boolean): { isTTY: boolean; written: string[]; write: (text: string) => boolean } {
  const written: string[] = [];
  return { isTTY, written, write: (text) => (written.push(text), true) };
}

test('off a terminal, progress is plain lines', () => {
  const stream = fakeStream(false);
  const reporter = progressReporter(stream, 0);
  reporter.update({ file: 'films.json', bytesRead: 50, fileBytes: 200, records: 1200 });
  reporter.finish();
  assert.equal(stream.written.length, 1);
  assert.match(stream.written[0] ?? '', /^progress: films\.json 25% {2}1,200 records {2}[\d,]+ records\/s\n$/);
});

test('on a terminal, progress is a bar redrawn in place and cleared at the end', () => {
  const stream = fakeStream(true);
  const reporter = progressReporter(stream, 0);
  reporter.update({ file: 'films.xml', bytesRead: 100, fileBytes: 100, records: 10 });
  reporter.finish();
  assert.ok(stream.written[0]?.startsWith(`\r\u001b[2Kfilms.xml [${'#'.repeat(24)}] 100%  10 records`), stream.written[0]);
  assert.equal(stream.written[1], '\r\x1b[2K');
});

test('updates come no more often than the interval, and come when it has passed', () => {
  const stream = fakeStream(false);
  let clock = 0;
  const reporter = progressReporter(stream, 1000, () => clock);
  const written: number[] = [];
  // Nothing from the reporter's start until the first update, 5 s later; then one update every
  // 10 ms for 2.5 s: a line 1 s and 2 s after the first update.
  for (let i = 0; i < 250; i++) {
    clock = 5000 + i * 10;
    reporter.update({ file: 'f', bytesRead: i, fileBytes: 250, records: i * 4 });
    written.push(stream.written.length);
  }
  assert.deepEqual(stream.written, ['progress: f 40%  400 records  400 records/s\n', 'progress: f 80%  800 records  400 records/s\n']);
  assert.equal(written.indexOf(1), 100, 'the first line once 1 s has passed since the first update, not before');
});
