import { decodeItems, decodeResults, encodeItems, encodeResults } from './chunk.codec';
import type { ItemResult, JobItem } from './job.types';

describe('chunk codec', () => {
  it('round-trips items with and without ids and pairs', () => {
    const items: JobItem[] = [
      { text: 'a' },
      { text: 'b', textPair: 'c' },
      { text: 'd', id: 'x' },
      { text: 'e', textPair: 'f', id: 3 },
    ];
    const raw = encodeItems(items);
    expect(decodeItems(raw)).toEqual(items);
    expect(raw.length).toBeLessThan(JSON.stringify(items).length);
  });

  it('round-trips classification, embedding and error results with their ids', () => {
    const items: JobItem[] = [{ text: 'a', id: 1 }, { text: 'b' }, { text: 'c', id: 'z' }];
    const results: ItemResult[] = [
      {
        kind: 'classification',
        label: 'yes',
        score: 0.75,
        scores: [{ label: 'yes', score: 0.75 }],
      },
      { kind: 'embedding', embedding: new Float32Array([0.5, -1.25, 3]) },
      { kind: 'error', error: { code: 'TEXT_TOO_LONG', message: 'too long' } },
    ];
    const decoded = decodeResults(encodeResults(results, items));
    expect(decoded.ids).toEqual([1, null, 'z']);
    expect(decoded.results[0]).toEqual(results[0]);
    expect(Array.from((decoded.results[1] as { embedding: Float32Array }).embedding)).toEqual([
      0.5, -1.25, 3,
    ]);
    expect(decoded.results[2]).toEqual(results[2]);
  });

  it('omits the id list when no item of the chunk has an id', () => {
    const decoded = decodeResults(
      encodeResults([{ kind: 'error', error: { code: 'X', message: 'y' } }], [{ text: 'a' }]),
    );
    expect(decoded.ids).toBeUndefined();
  });
});
