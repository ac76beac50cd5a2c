import {
  codePointLength,
  exceedsChars,
  inputCapabilityError,
  inputName,
  isBlankText,
  pairCapabilityError,
} from './input-capability';
import { InputTooLargeError } from './preprocessing.errors';

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
    expect(inputCapabilityError(caps, [{ text: 'a', textPair: 'b' }], 'single')?.message).toBe(
      "textPair: model 'm' v1 (bert-wordpiece@1) takes single texts only",
    );
    expect(
      inputCapabilityError({ ...caps, pairs: true }, [{ text: 'a', textPair: 'b' }], 'single'),
    ).toBe(undefined);
  });

  it('answers the pair part alone for a whole job, the same message as for one request', () => {
    expect(pairCapabilityError(caps, inputName('job', 'textPair', 3))?.message).toBe(
      "textPair at index 3: model 'm' v1 (bert-wordpiece@1) takes single texts only",
    );
    expect(pairCapabilityError({ ...caps, kind: 'embedding' }, 'textPair')?.message).toMatch(
      /^textPair: .* embedding model and takes no textPair/,
    );
    expect(pairCapabilityError({ ...caps, pairs: true }, 'textPair')).toBeUndefined();
  });

  it('refuses a text over hardMaxChars with its length in characters, named as the request names it', () => {
    const batch = inputCapabilityError(caps, [{ text: 'ok' }, { text: '😀'.repeat(6) }], 'batch');
    expect(batch).toMatchObject({ code: 'TEXT_TOO_LONG', index: 1, length: 6, limit: 5 });
    expect(batch?.message).toBe('texts[1] has 6 characters; the limit is 5');
    const single = inputCapabilityError(caps, [{ text: 'ok', textPair: 'x'.repeat(9) }], 'single');
    expect(single?.message).toMatch(/^textPair: /);
    const long = inputCapabilityError(caps, [{ text: 'x'.repeat(9) }], 'single');
    expect(long?.message).toBe('text has 9 characters; the limit is 5');
    expect(long).toBeInstanceOf(InputTooLargeError);
    expect((long as InputTooLargeError).index).toBeUndefined();
  });

  it('names texts by field, by position in a batch, by item index in a job', () => {
    expect(inputName('single', 'text', 0)).toBe('text');
    expect(inputName('batch', 'text', 3)).toBe('texts[3]');
    expect(inputName('job', 'textPair', 7)).toBe('textPair at index 7');
  });

  it('calls a text blank when it has nothing but whitespace', () => {
    expect(['', ' ', '\t\n', '\u3000', '\u00a0 '].map(isBlankText)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['a', ' 你好 ', '.', '😀'].map(isBlankText)).toEqual([false, false, false, false]);
  });
});
