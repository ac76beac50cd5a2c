import { JobInputError, JobTooLargeError } from './jobs.errors';
import type { JobItem } from './job.types';
import { parseNdjsonItems, type NdjsonLimits } from './ndjson-items.parser';

const LIMITS: NdjsonLimits = { maxBytes: 1 << 20, maxItems: 1000, maxLineBytes: 4096 };

async function* chunks(...parts: (string | Buffer)[]): AsyncGenerator<Buffer | string> {
  for (const p of parts) yield p;
}

async function collect(
  source: AsyncIterable<Buffer | string>,
  limits = LIMITS,
): Promise<JobItem[]> {
  const out: JobItem[] = [];
  for await (const item of parseNdjsonItems(source, limits)) out.push(item);
  return out;
}

async function failure(source: AsyncIterable<Buffer | string>, limits = LIMITS): Promise<unknown> {
  return collect(source, limits).then(
    () => new Error('expected a failure'),
    (err: unknown) => err,
  );
}

describe('parseNdjsonItems', () => {
  it('yields one item per line across arbitrary chunk boundaries, keeping ids and pairs', async () => {
    const items = await collect(
      chunks('{"text":"a"}\n{"te', 'xt":"b","textPair":"c","id":7}\r\n', '\n{"id":"x","text":"d"}'),
    );
    expect(items).toEqual([
      { text: 'a' },
      { text: 'b', textPair: 'c', id: 7 },
      { id: 'x', text: 'd' },
    ]);
  });

  it('decodes a multi-byte character split between two chunks', async () => {
    const bytes = Buffer.from('{"text":"问题"}\n');
    const items = await collect(chunks(bytes.subarray(0, 11), bytes.subarray(11)));
    expect(items).toEqual([{ text: '问题' }]);
  });

  it('names the line number of a line that is not JSON (blank lines count)', async () => {
    const err = await failure(chunks('{"text":"a"}\n\n{"text": oops}\n'));
    expect(err).toBeInstanceOf(JobInputError);
    expect((err as JobInputError).line).toBe(3);
    expect((err as Error).message).toBe('line 3: not valid JSON');
  });

  it('names the line and the field when text is missing or not a string', async () => {
    const missing = await failure(chunks('{"text":"a"}\n{"id":1}\n'));
    expect((missing as Error).message).toBe('line 2: text: is required');
    const wrong = await failure(chunks('{"text":5}\n'));
    expect((wrong as Error).message).toBe('line 1: text: must be a string');
    const array = await failure(chunks('["a"]\n'));
    expect((array as Error).message).toMatch(/^line 1: must be a JSON object/);
  });

  it('stops at the item cap and at the byte cap while streaming', async () => {
    const three = chunks('{"text":"a"}\n{"text":"b"}\n{"text":"c"}\n');
    const items = await failure(three, { ...LIMITS, maxItems: 2 });
    expect(items).toBeInstanceOf(JobTooLargeError);
    expect((items as JobTooLargeError).unit).toBe('items');
    const bytes = await failure(chunks('{"text":"aaaa"}\n', '{"text":"bbbb"}\n'), {
      ...LIMITS,
      maxBytes: 20,
    });
    expect((bytes as JobTooLargeError).unit).toBe('bytes');
  });

  it('refuses a line longer than the line cap instead of buffering it', async () => {
    const err = await failure(chunks(`{"text":"${'x'.repeat(100)}`), {
      ...LIMITS,
      maxLineBytes: 50,
    });
    expect(err).toBeInstanceOf(JobInputError);
    expect((err as JobInputError).line).toBe(1);
  });

  it('yields nothing for an empty upload', async () => {
    expect(await collect(chunks('', '\n\n'))).toEqual([]);
  });
});
