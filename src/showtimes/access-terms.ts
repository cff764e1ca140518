/**
 * One vocabulary for the screenings people choose for access (CONTRACT §15): audio description,
 * captions, subtitles, relaxed, parent-and-baby and dementia-friendly screenings, read from the
 * names cinemas give their session attributes. Every cinema names them its own way (`AD`,
 * `Audio Described`, `CC`, `Subs`, `Autism Friendly`, `Parent & Baby`, `Big Scream`…), so the
 * names in common use are kept here, in one table, with where each is used; docs/programme.md
 * shows the same table. A name matches whole words only, so that `subs` never matches inside
 * `subscribers`, and is not read after `no` or `without`; an abbreviation (`AD`, `CC`, `ST`) only
 * when it is the whole of a name, so that `St Patrick's Day` reads as nothing. What this reads
 * wrongly for one cinema, `marquee access set` corrects.
 */

export const ACCESS_TERMS = ['audio-description', 'captioned', 'subtitled', 'relaxed', 'parent-and-baby', 'dementia-friendly'] as const;
export type AccessTerm = (typeof ACCESS_TERMS)[number];

export function isAccessTerm(text: string): text is AccessTerm {
  return (ACCESS_TERMS as readonly string[]).includes(text);
}

/** Each term in words, as the page says it beside a time. */
export const TERM_WORDS: Readonly<Record<AccessTerm, string>> = {
  'audio-description': 'Audio described',
  captioned: 'Captioned',
  subtitled: 'Subtitled',
  relaxed: 'Relaxed',
  'parent-and-baby': 'Parent and baby',
  'dementia-friendly': 'Dementia friendly',
};

/** Names of one meaning, and the cinemas and guides that use them. */
export interface KnownNames {
  readonly term: AccessTerm;
  /** Phrases read wherever they stand in a name, as whole words. */
  readonly phrases: readonly string[];
  /** Abbreviations read only when a name is made of them alone (`AD`, `AD/CC`). */
  readonly abbreviations: readonly string[];
  readonly usedBy: string;
}

/** The names recognised (docs/programme.md has the same table). */
export const KNOWN_NAMES: readonly KnownNames[] = [
  {
    term: 'audio-description',
    phrases: ['audio described', 'audio description', 'audio descriptive', 'audio desc', 'audiodescribed', 'audiodescription', 'audiodeskription'],
    abbreviations: ['ad'],
    usedBy: 'UK chains and independents (Odeon, Cineworld, Vue, Picturehouse), Australia and New Zealand (Hoyts, Event, Village, Reading), Film Hub Midlands\' glossary; French and German programmes',
  },
  {
    term: 'audio-description',
    phrases: ['descriptive video', 'described video', 'descriptive audio'],
    abbreviations: ['dv', 'dvs'],
    usedBy: 'North American cinemas (Descriptive Video Service)',
  },
  {
    term: 'captioned',
    phrases: ['captioned', 'captions', 'caption', 'closed captions', 'open captions', 'descriptive subtitles', 'hard of hearing', 'deaf', 'hoh', 'sdh'],
    abbreviations: ['cc', 'oc', 'ds', 'st'],
    usedBy:
      'Australia (CC and OC at Hoyts, Event, Village, Reading; Media Access Australia), North America (open and closed captions), ' +
      'the UK (HOH, SDH, DS for descriptive subtitles in Film Hub Midlands\' glossary; ST for the chains\' subtitled-for-the-deaf screenings)',
  },
  {
    term: 'subtitled',
    phrases: ['subtitled', 'subtitles', 'subtitle', 'subs', 'subbed', 'sous titre', 'sous titres', 'vost', 'vostfr', 'vose', 'untertitel', 'omu', 'omeu', 'omdu', 'subtitulada', 'subtitulado', 'ondertiteld'],
    abbreviations: ['sub'],
    usedBy: 'everywhere a film is shown in its own language with a translation (`English subtitles`, `Eng Subs`, `Subtitled (French)`); VOST and OmU in French and German programmes',
  },
  {
    term: 'relaxed',
    phrases: ['relaxed', 'relax', 'autism friendly', 'autistic friendly', 'sensory friendly', 'sensory sensitive', 'sensory screening', 'neurodivergent friendly', 'neurodiverse friendly'],
    abbreviations: [],
    usedBy: 'UK, Australian and New Zealand independents (Relaxed), Cineworld and Odeon (Autism Friendly), AMC (Sensory Friendly Films), Showcase (Sensory Sensitive)',
  },
  {
    term: 'parent-and-baby',
    phrases: [
      'parent and baby', 'parents and babies', 'parent and babies', 'parent baby', 'carers and babies', 'carer and baby', 'mums and babies', 'mum and baby',
      'parent and toddler', 'parents and toddlers', 'baby friendly', 'baby club', 'babes in arms', 'bring your baby', 'big scream', 'newbies', 'babies',
    ],
    abbreviations: [],
    usedBy: 'UK, Australia and New Zealand (Parent & Baby, Carers and Babies), Picturehouse (Big Scream), Odeon (Newbies), Everyman (Baby Club), David Lean Cinema (Babes in Arms)',
  },
  {
    term: 'dementia-friendly',
    phrases: ['dementia friendly', 'dementia', 'memory cinema'],
    abbreviations: [],
    usedBy: 'Picturehouse and UK independents, the UK Cinema Association\'s guide with the Alzheimer\'s Society (Dementia Friendly Screenings, Memory Cinema)',
  },
];

/** Languages subtitles are named in, by their names and common short forms, with their BCP 47 tags. */
const LANGUAGES: readonly { readonly tag: string; readonly name: string; readonly words: readonly string[] }[] = [
  { tag: 'en', name: 'English', words: ['english', 'eng'] },
  { tag: 'fr', name: 'French', words: ['french', 'francais', 'fre', 'fra', 'vostfr'] },
  { tag: 'de', name: 'German', words: ['german', 'deutsch', 'ger', 'deu', 'omdu'] },
  { tag: 'es', name: 'Spanish', words: ['spanish', 'espanol', 'spa', 'esp', 'vose'] },
  { tag: 'it', name: 'Italian', words: ['italian', 'italiano', 'ita'] },
  { tag: 'pt', name: 'Portuguese', words: ['portuguese', 'por'] },
  { tag: 'nl', name: 'Dutch', words: ['dutch', 'nederlands'] },
  { tag: 'sv', name: 'Swedish', words: ['swedish'] },
  { tag: 'da', name: 'Danish', words: ['danish'] },
  { tag: 'no', name: 'Norwegian', words: ['norwegian'] },
  { tag: 'fi', name: 'Finnish', words: ['finnish'] },
  { tag: 'pl', name: 'Polish', words: ['polish'] },
  { tag: 'ru', name: 'Russian', words: ['russian'] },
  { tag: 'uk', name: 'Ukrainian', words: ['ukrainian'] },
  { tag: 'el', name: 'Greek', words: ['greek'] },
  { tag: 'tr', name: 'Turkish', words: ['turkish'] },
  { tag: 'ar', name: 'Arabic', words: ['arabic'] },
  { tag: 'he', name: 'Hebrew', words: ['hebrew'] },
  { tag: 'hi', name: 'Hindi', words: ['hindi'] },
  { tag: 'zh', name: 'Chinese', words: ['chinese', 'mandarin', 'chi'] },
  { tag: 'ja', name: 'Japanese', words: ['japanese', 'jpn'] },
  { tag: 'ko', name: 'Korean', words: ['korean', 'kor'] },
  { tag: 'mi', name: 'Māori', words: ['maori', 'reo'] },
  { tag: 'cy', name: 'Welsh', words: ['welsh', 'cymraeg'] },
  { tag: 'ga', name: 'Irish', words: ['irish', 'gaeilge'] },
];

/** A language's name in English, by its BCP 47 tag, for the page; the tag itself when unknown. */
export function languageName(tag: string): string {
  return LANGUAGES.find((language) => language.tag === tag)?.name ?? tag;
}

/** Words before a name that deny it: `No subtitles`, `Without AD`, `No English subtitles`. */
const DENIALS = new Set(['no', 'not', 'non', 'without']);
/** Words that name subtitles: a language beside one of them is the subtitles' language. */
const SUBTITLE_WORDS = new Set(['subtitled', 'subtitles', 'subtitle', 'subs', 'sub', 'subbed', 'st', 'captions', 'captioned', 'caption', 'sdh', 'vost', 'omu', 'omeu', 'omdu', 'vostfr', 'vose', 'untertitel', 'titre', 'titres']);
/** How far (in words) a language may stand from its subtitle word: `English subtitles`, `Subtitled (French)`. */
const LANGUAGE_REACH = 2;
/** Words that do not count in that reach: `Subtitled in Te Reo Māori`. */
const FILLERS = new Set(['in', 'with', 'the', 'te']);

/** A name's words: lower case, without accents, `&` and `+` read as `and`, anything else a space. */
function wordsOf(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[&+]/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

const PHRASES = KNOWN_NAMES.flatMap(({ term, phrases }) => phrases.map((phrase) => ({ term, words: wordsOf(phrase) })));
const ABBREVIATIONS = new Map(KNOWN_NAMES.flatMap(({ term, abbreviations }) => abbreviations.map((abbreviation) => [abbreviation, term] as const)));
/** Each language word, to its tag; `omeu` (German for "original with English subtitles") names English. */
const LANGUAGE_WORDS = new Map([...LANGUAGES.flatMap(({ tag, words }) => words.map((word) => [word, tag] as const)), ['omeu', 'en']]);

/** What an attribute says: its terms, and the language of the subtitles it names, if any. */
export interface AttributeReading {
  readonly terms: readonly AccessTerm[];
  /** A BCP 47 tag (`en`), or null. */
  readonly subtitleLanguage: string | null;
}

export const NO_READING: AttributeReading = { terms: [], subtitleLanguage: null };

/** Whether a denial stands before the word at `at`, with nothing between them but languages: `No English subtitles`. */
function deniedAt(words: readonly string[], at: number): boolean {
  let before = at - 1;
  while (before >= 0 && (LANGUAGE_WORDS.has(words[before] as string) || FILLERS.has(words[before] as string))) before--;
  return before >= 0 && DENIALS.has(words[before] as string);
}

function phraseAt(words: readonly string[], phrase: readonly string[], at: number): boolean {
  return phrase.every((word, offset) => words[at + offset] === word);
}

/** The terms one name says. */
function termsOfName(words: readonly string[]): Set<AccessTerm> {
  const terms = new Set<AccessTerm>();
  if (words.length > 0 && words.every((word) => ABBREVIATIONS.has(word) || word === 'and')) {
    for (const word of words) {
      const term = ABBREVIATIONS.get(word);
      if (term !== undefined) terms.add(term);
    }
  }
  for (let at = 0; at < words.length; at++) {
    if (deniedAt(words, at)) continue;
    for (const { term, words: phrase } of PHRASES) if (phraseAt(words, phrase, at)) terms.add(term);
  }
  return terms;
}

/** The language a name gives its subtitles: the nearest to a subtitle word, within reach. */
function languageOfName(named: readonly string[]): string | null {
  const words = named.filter((word) => !FILLERS.has(word));
  let best: { tag: string; distance: number } | undefined;
  words.forEach((word, at) => {
    const tag = LANGUAGE_WORDS.get(word);
    if (tag === undefined) return;
    // A word that names both (VOSTFR, OmeU) is its own subtitle word.
    let distance = SUBTITLE_WORDS.has(word) ? 0 : Infinity;
    words.forEach((other, place) => {
      if (SUBTITLE_WORDS.has(other)) distance = Math.min(distance, Math.abs(place - at));
    });
    if (distance <= LANGUAGE_REACH && (best === undefined || distance < best.distance)) best = { tag, distance };
  });
  return best?.tag ?? null;
}

/**
 * What an attribute says, read from its names: the description, the short name and the id. Words
 * that say the subtitles are for deaf and hard-of-hearing viewers (`Subtitled (HOH)`, `Descriptive
 * subtitles`) make them captions, not a translation.
 */
export function readAttribute(attribute: { readonly id: string; readonly description: string; readonly shortName: string }): AttributeReading {
  const terms = new Set<AccessTerm>();
  let subtitleLanguage: string | null = null;
  for (const name of [attribute.description, attribute.shortName, attribute.id]) {
    const words = wordsOf(name);
    const said = termsOfName(words);
    if (said.has('captioned')) said.delete('subtitled');
    for (const term of said) terms.add(term);
    if (subtitleLanguage === null && (said.has('subtitled') || said.has('captioned'))) subtitleLanguage = languageOfName(words);
  }
  if (terms.has('captioned')) terms.delete('subtitled');
  return { terms: ACCESS_TERMS.filter((term) => terms.has(term)), subtitleLanguage };
}

/**
 * What an attribute says once the cinema's correction, if any, is applied: the terms set, and the
 * language read from its names while they still name subtitles or captions.
 */
export function correctedReading(read: AttributeReading, corrected: readonly AccessTerm[] | undefined): AttributeReading {
  if (corrected === undefined) return read;
  const terms = ACCESS_TERMS.filter((term) => corrected.includes(term));
  const subtitles = terms.includes('subtitled') || terms.includes('captioned');
  return { terms, subtitleLanguage: subtitles ? read.subtitleLanguage : null };
}
