import {
  codePointLength,
  exceedsChars,
  inputCapabilityError,
  pairCapabilityError,
} from './input-capability';

const caps = {
  model: 'm',
  version: 1,
  pipeline: 'bert-wordpiece@1',
  kind: 'classification' as const,
  pairs: false,
  hardMaxChars: 5,
};

describe('input capability rule', () => {
  it('counts characters as code points', () => {
    expect(codePointLength('😀😀')).toBe(2);
    expect(codePointLength('a\uD800b')).toBe(3);
    expect(codePointLength('你好')).toBe(2);
    expect(exceedsChars('😀'.repeat(5), 5)).toBe(false);
    expect(exceedsChars('😀'.repeat(6), 5)).toBe(true);
  });

  it('refuses a pair on a single-text pipeline, naming the version', () => {
    expect(inputCapabilityError(caps, [{ text: 'a', textPair: '' }])?.message).toBe(
      "textPair at index 0: model 'm' v1 (bert-wordpiece@1) takes single texts only",
    );
    expect(inputCapabilityError({ ...caps, pairs: true }, [{ text: 'a', textPair: 'b' }])).toBe(
      undefined,
    );
  });

  it('answers the pair part alone for a whole job, the same message as for one request', () => {
    expect(pairCapabilityError(caps, 3)?.message).toBe(
      "textPair at index 3: model 'm' v1 (bert-wordpiece@1) takes single texts only",
    );
    expect(pairCapabilityError({ ...caps, kind: 'embedding' }, 0)?.message).toMatch(
      /embedding model and takes no textPair/,
    );
    expect(pairCapabilityError({ ...caps, pairs: true }, 0)).toBeUndefined();
  });

  it('refuses a text over hardMaxChars with its length in characters', () => {
    const err = inputCapabilityError(caps, [{ text: 'ok' }, { text: '😀'.repeat(6) }]);
    expect(err).toMatchObject({ code: 'TEXT_TOO_LONG', index: 1, length: 6, limit: 5 });
  });
});
