/**
 * Expands the hand-written English seed (scripts/data/english-seed.txt) into
 * word forms with simple regular spelling rules. Irregular forms are written
 * out in the seed's [words] section instead. Used once to build the committed
 * word list; a few odd forms are harmless in a demo vocabulary.
 */

export interface ExpandedEnglish {
  /** Whole words, sorted by code unit, unique. */
  words: string[];
  /** Continuation pieces without the `##` prefix, in seed order, unique. */
  pieces: string[];
}

type Section = 'words' | 'nouns' | 'verbs' | 'adjectives' | 'pieces';

const SECTIONS: readonly Section[] = ['words', 'nouns', 'verbs', 'adjectives', 'pieces'];
const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);
const WORD = /^[a-z]+$/;
const PIECE = /^[a-z0-9]+$/;

interface Entry {
  base: string;
  double: boolean;
  plus: boolean;
  minus: boolean;
}

function parseEntry(token: string): Entry {
  const base = token.replace(/[*+-]+$/, '');
  const marks = token.slice(base.length);
  return {
    base,
    double: marks.includes('*'),
    plus: marks.includes('+'),
    minus: marks.includes('-'),
  };
}

const endsWithConsonantY = (w: string): boolean => w.endsWith('y') && !VOWELS.has(w.at(-2) ?? '');
const lastChar = (w: string): string => w.at(-1) ?? '';

export function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (endsWithConsonantY(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}

/** Stem for a vowel-initial suffix (-ed, -ing, -er, -est). */
function vowelSuffixStem(entry: Entry, suffix: string): string {
  const { base } = entry;
  if (entry.double) return base + lastChar(base);
  if (suffix === 'ing') {
    if (base.endsWith('ie')) return `${base.slice(0, -2)}y`;
    return /[^eoy]e$/.test(base) ? base.slice(0, -1) : base;
  }
  if (endsWithConsonantY(base)) return `${base.slice(0, -1)}i`;
  return base.endsWith('e') ? base.slice(0, -1) : base;
}

export function verbForms(entry: Entry): string[] {
  const { base } = entry;
  return [
    base,
    pluralOf(base),
    `${vowelSuffixStem(entry, 'ed')}ed`,
    `${vowelSuffixStem(entry, 'ing')}ing`,
  ];
}

export function adverbOf(word: string): string {
  if (word.endsWith('ic')) return `${word}ally`;
  if (word.endsWith('ll')) return `${word}y`;
  if (/[^aeiou]le$/.test(word)) return `${word.slice(0, -1)}y`;
  if (endsWithConsonantY(word)) return `${word.slice(0, -1)}ily`;
  return `${word}ly`;
}

function adjectiveForms(entry: Entry): string[] {
  const forms = [entry.base];
  if (!entry.minus) forms.push(adverbOf(entry.base));
  if (entry.plus)
    forms.push(`${vowelSuffixStem(entry, 'er')}er`, `${vowelSuffixStem(entry, 'est')}est`);
  return forms;
}

function formsOf(section: Section, entry: Entry): string[] {
  switch (section) {
    case 'words':
    case 'pieces':
      return [entry.base];
    case 'nouns':
      return entry.minus ? [entry.base] : [entry.base, pluralOf(entry.base)];
    case 'verbs':
      return verbForms(entry);
    case 'adjectives':
      return adjectiveForms(entry);
  }
}

function sectionHeader(line: string): Section | undefined {
  const match = /^\[([a-z]+)\]$/.exec(line);
  if (!match) return undefined;
  const name = match[1] as Section;
  if (!SECTIONS.includes(name)) throw new Error(`english seed: unknown section [${match[1]}]`);
  return name;
}

export function expandEnglishSeed(seedText: string): ExpandedEnglish {
  const words = new Set<string>();
  const pieces = new Set<string>();
  let section: Section | undefined;
  for (const raw of seedText.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    section = sectionHeader(line) ?? section;
    if (line.startsWith('[')) continue;
    if (!section) throw new Error('english seed: words before the first [section]');
    for (const token of line.split(/\s+/)) {
      const forms = formsOf(section, parseEntry(token));
      const pattern = section === 'pieces' ? PIECE : WORD;
      const bad = forms.find((f) => !pattern.test(f));
      if (bad !== undefined)
        throw new Error(`english seed: "${token}" gives invalid form "${bad}"`);
      forms.forEach((f) => (section === 'pieces' ? pieces : words).add(f));
    }
  }
  return { words: [...words].sort(compareCodeUnits), pieces: [...pieces] };
}

/** Locale-independent ordering (localeCompare would vary by machine). */
export function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
