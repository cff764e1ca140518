import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, html, raw } from './html.js';

test('every interpolated text is escaped, in elements and in attribute values alike', () => {
  const title = '<script>alert("x")</script>';
  assert.equal(html`<h2>${title}</h2>`.text, '<h2>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</h2>');
  assert.equal(html`<a href="${'https://t.example/?a=1&b=2'}" title='${"it's"}'>`.text, '<a href="https://t.example/?a=1&amp;b=2" title=\'it&#39;s\'>');
  assert.equal(html`${'&amp;'}`.text, '&amp;amp;', 'text that looks escaped is text');
  assert.equal(escapeHtml('Tom & Jerry <3 "quotes"'), 'Tom &amp; Jerry &lt;3 &quot;quotes&quot;');
});

test('fragments nest unescaped, lists join, absent values write nothing', () => {
  const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
  assert.equal(html`<ul>${items}</ul>`.text, '<ul><li>a&lt;b</li><li>c</li></ul>');
  assert.equal(html`<p>${null}${undefined}${false}${0}</p>`.text, '<p>0</p>');
  assert.equal(html`${[['<', html`<br>`]]}`.text, '&lt;<br>');
  assert.equal(html`${raw('<b>kept</b>')}`.text, '<b>kept</b>');
  assert.equal(String(html`<i>${'x'}</i>`), '<i>x</i>');
});
