import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describePicture } from './picture-directory.js';
import { PictureSigner } from './picture-signer.js';

const signer = new PictureSigner('secret');
const URL_OF_POSTER = 'https://images.example/poster.jpg';
const widths = (srcset: string): string[] => srcset.split(', ').map((entry) => entry.split(' ')[1] as string);

test('every width of the ladder until the source is read, then those it has, src the 320 one', () => {
  const unknown = describePicture(signer, URL_OF_POSTER, () => undefined);
  assert.deepEqual(widths(unknown?.srcset ?? ''), ['160w', '320w', '480w', '640w', '960w', '1280w']);
  assert.deepEqual([unknown?.width, unknown?.height], [null, null]);
  assert.equal(unknown?.src, signer.address(URL_OF_POSTER, 320));
  const read = describePicture(signer, URL_OF_POSTER, () => ({ width: 700, height: 1000, transparent: false }));
  assert.deepEqual(widths(read?.srcset ?? ''), ['160w', '320w', '480w', '640w']);
  assert.deepEqual([read?.width, read?.height], [700, 1000]);
});

test('a source narrower than the ladder is offered at its own width; a thumbnail\'s src is its widest', () => {
  const thumbnail = describePicture(signer, URL_OF_POSTER, () => ({ width: 125, height: 182, transparent: false }));
  assert.equal(thumbnail?.srcset, `${signer.address(URL_OF_POSTER, 160)} 125w`);
  assert.equal(thumbnail?.src, signer.address(URL_OF_POSTER, 160));
});

test('no picture for no URL, a blank one, or one that is not http or https', () => {
  for (const url of [null, '', '  ', 'ftp://images.example/a.jpg', 'not a url']) assert.equal(describePicture(signer, url, () => undefined), null, String(url));
});

test('an address verifies with its own width and signer only', () => {
  const [, source, width, signature] = signer.address(URL_OF_POSTER, 320).split('/') as [string, string, string, string];
  assert.equal(signer.verify(source, width, signature)?.url.href, URL_OF_POSTER);
  assert.equal(signer.verify(source, '640', signature), undefined);
  assert.equal(signer.verify(source, '300', signature), undefined);
  assert.equal(new PictureSigner('another').verify(source, width, signature), undefined);
});
