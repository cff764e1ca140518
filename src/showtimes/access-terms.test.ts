import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { correctedReading, KNOWN_NAMES, readAttribute } from './access-terms.js';

const read = (description: string, shortName = '', id = '0000000042') => readAttribute({ id, description, shortName });

test('the names cinemas use read as one vocabulary, whatever their case and punctuation', () => {
  for (const [description, shortName, terms] of [
    ['Audio Described', 'AD', ['audio-description']],
    ['Audio-description available', '', ['audio-description']],
    ['', 'AD', ['audio-description']],
    ['Descriptive Video', 'DVS', ['audio-description']],
    ['Closed Captions', 'CC', ['captioned']],
    ['Open Captioned', 'OC', ['captioned']],
    ['Subtitled (HOH)', 'ST', ['captioned']],
    ['Descriptive subtitles', 'DS', ['captioned']],
    ['Subtitles for the deaf and hard of hearing', '', ['captioned']],
    ['Subtitled', 'SUBS', ['subtitled']],
    ['Eng Subs', '', ['subtitled']],
    ['VOSTFR', '', ['subtitled']],
    ['Relaxed screening: lights up, sound down', 'RELAX', ['relaxed']],
    ['Autism-Friendly', '', ['relaxed']],
    ['Sensory Friendly Film', 'SFF', ['relaxed']],
    ['Parent & Baby', 'P&B', ['parent-and-baby']],
    ['Carers and Babies', '', ['parent-and-baby']],
    ['The Big Scream!', '', ['parent-and-baby']],
    ['Dementia Friendly Screening', 'DFS', ['dementia-friendly']],
    ['AD + Subtitles', 'AD/ST', ['audio-description', 'captioned']],
    ['Relaxed, audio described and captioned', '', ['audio-description', 'captioned', 'relaxed']],
  ] as const) {
    assert.deepEqual(read(description, shortName).terms, terms, `${description} / ${shortName}`);
  }
});

test('names that only look alike read as nothing: words inside words, abbreviations inside a name, names denied', () => {
  for (const [description, shortName] of [
    ['Live piano accompaniment', 'PIANO'],
    ['Members only', 'MEMBERS'],
    ['Subscribers preview', 'SUBSCR'],
    ["St Patrick's Day special", 'ST PAT'],
    ['Ad-free screening', 'ADFREE'],
    ['No subtitles', 'NOSUBS'],
    ['No English subtitles', ''],
    ['Without French subtitles', ''],
    ['Without audio description', ''],
    ['Adults only', 'ADULT'],
    ['Silver Screen', 'SILVER'],
    ['Deafening Dolby Atmos', 'ATMOS'],
  ] as const) {
    assert.deepEqual(read(description, shortName).terms, [], `${description} / ${shortName}`);
  }
});

test('the language of the subtitles is the one named beside them, as a BCP 47 tag', () => {
  assert.equal(read('English subtitles').subtitleLanguage, 'en');
  assert.equal(read('Eng Subs').subtitleLanguage, 'en');
  assert.equal(read('Subtitled (French)').subtitleLanguage, 'fr');
  assert.equal(read('Subtitled in Te Reo Māori').subtitleLanguage, 'mi');
  assert.equal(read('French with English subtitles').subtitleLanguage, 'en', 'the language beside the subtitles, not the one spoken');
  assert.equal(read('VOSTFR').subtitleLanguage, 'fr');
  assert.equal(read('OmeU').subtitleLanguage, 'en');
  assert.equal(read('Subtitled').subtitleLanguage, null);
  assert.equal(read('English audio described').subtitleLanguage, null, 'a language with no subtitles names none');
});

test('a correction replaces the terms, and keeps the language only while the terms name subtitles', () => {
  const english = read('English subtitles');
  assert.deepEqual(correctedReading(english, ['captioned']), { terms: ['captioned'], subtitleLanguage: 'en' });
  assert.deepEqual(correctedReading(english, []), { terms: [], subtitleLanguage: null });
  assert.deepEqual(correctedReading(english, undefined), english);
  assert.deepEqual(correctedReading(read('Members only'), ['relaxed', 'audio-description']), { terms: ['audio-description', 'relaxed'], subtitleLanguage: null });
});

test('docs/programme.md lists the names recognised, as the code holds them', () => {
  // From the compiled module in dist/src/showtimes/.
  const guide = readFileSync(new URL('../../../docs/programme.md', import.meta.url), 'utf8');
  for (const { term, phrases, abbreviations, usedBy } of KNOWN_NAMES) {
    const abbreviated = abbreviations.length === 0 ? '—' : abbreviations.map((abbreviation) => abbreviation.toUpperCase()).join(', ');
    assert.ok(guide.includes(`| \`${term}\` | ${phrases.join(', ')} | ${abbreviated} | ${usedBy} |`), `${term}: ${phrases[0] ?? ''}`);
  }
});
