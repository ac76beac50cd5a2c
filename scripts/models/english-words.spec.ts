import { adverbOf, compareCodeUnits, expandEnglishSeed, pluralOf } from './english-words';

describe('english word forms', () => {
  it.each([
    ['cat', 'cats'],
    ['box', 'boxes'],
    ['church', 'churches'],
    ['city', 'cities'],
    ['day', 'days'],
  ])('plural of %s is %s', (word, plural) => {
    expect(pluralOf(word)).toBe(plural);
  });

  it.each([
    ['quick', 'quickly'],
    ['happy', 'happily'],
    ['simple', 'simply'],
    ['basic', 'basically'],
    ['full', 'fully'],
  ])('adverb of %s is %s', (word, adverb) => {
    expect(adverbOf(word)).toBe(adverb);
  });
});

describe('expandEnglishSeed', () => {
  const seed = [
    '# comment line',
    '[words]',
    'the went # trailing comment',
    '[nouns]',
    'city music-',
    '[verbs]',
    'walk stop* try love die',
    '[adjectives]',
    'big*+ happy+ good-',
    '[pieces]',
    'ing s 7',
  ].join('\n');

  it('expands each section with its spelling rules and markers', () => {
    const { words, pieces } = expandEnglishSeed(seed);
    expect(words).toEqual(
      [
        'the',
        'went',
        'city',
        'cities',
        'music',
        'walk',
        'walks',
        'walked',
        'walking',
        'stop',
        'stops',
        'stopped',
        'stopping',
        'try',
        'tries',
        'tried',
        'trying',
        'love',
        'loves',
        'loved',
        'loving',
        'die',
        'dies',
        'died',
        'dying',
        'big',
        'bigly',
        'bigger',
        'biggest',
        'happy',
        'happily',
        'happier',
        'happiest',
        'good',
      ].sort(compareCodeUnits),
    );
    expect(pieces).toEqual(['ing', 's', '7']);
  });

  it('rejects words outside a section and unknown sections', () => {
    expect(() => expandEnglishSeed('hello')).toThrow(/before the first/);
    expect(() => expandEnglishSeed('[misc]\nhello')).toThrow(/unknown section/);
  });

  it('rejects forms that are not lowercase ASCII words', () => {
    expect(() => expandEnglishSeed("[words]\nDon't")).toThrow(/invalid form/);
  });
});
