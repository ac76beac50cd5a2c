import type { Prediction } from './predict-commands';
import { ResponseCache } from './response-cache';

const scope = { model: 'm', version: 1, pipeline: 'bert-wordpiece@2' };
const p = (label: string): Prediction => ({ kind: 'classification', label, score: 1, scores: [] });

describe('ResponseCache', () => {
  it('keys by model, version, pipeline and text (and pair)', () => {
    const cache = new ResponseCache(10);
    cache.set(scope, 'hello', undefined, p('a'));
    expect(cache.get(scope, 'hello')).toEqual(p('a'));
    expect(cache.get({ ...scope, version: 2 }, 'hello')).toBeUndefined();
    expect(cache.get({ ...scope, pipeline: 'bert-wordpiece@1' }, 'hello')).toBeUndefined();
    expect(cache.get(scope, 'hello', 'pair')).toBeUndefined();
    cache.set(scope, 'ab', 'c', p('x'));
    expect(cache.get(scope, 'a', 'bc')).toBeUndefined();
    expect(cache.get(scope, 'ab', 'c')).toEqual(p('x'));
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = new ResponseCache(2);
    cache.set(scope, 'a', undefined, p('a'));
    cache.set(scope, 'b', undefined, p('b'));
    cache.get(scope, 'a');
    cache.set(scope, 'c', undefined, p('c'));
    expect(cache.size).toBe(2);
    expect(cache.get(scope, 'b')).toBeUndefined();
    expect(cache.get(scope, 'a')).toEqual(p('a'));
  });
});
