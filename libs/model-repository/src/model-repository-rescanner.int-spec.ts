import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelRepositoryReader } from './model-repository-reader';
import { ModelRepositoryRescanner } from './model-repository-rescanner';

const CLASSIFIER = (name: string) => `
name: "${name}"
max_batch_size: 8
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 2 ] label_filename: "labels.txt" } ]
`;

let root: string;
let reader: ModelRepositoryReader;
let reads: jest.SpyInstance;
/** The rescanner's clock: far enough ahead that every file counts as settled, unless moved. */
let clock: number;
let rescanner: ModelRepositoryRescanner;

async function put(path: string, content: string): Promise<void> {
  const full = join(root, path);
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, content);
}

/** Sets every file and directory's mtime a minute back, so the next write surely moves it. */
async function ageAll(dir = root): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await ageAll(path);
    await utimes(path, past, past);
  }
  await utimes(dir, past, past);
}

/** Models read by the last readAll(), by name. */
async function rescan(): Promise<string[]> {
  reads.mockClear();
  await rescanner.readAll();
  return reads.mock.calls.map((c) => String(c[0])).sort();
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'model-rescan-'));
  for (const name of ['intent', 'sentiment']) {
    await put(`${name}/config.pbtxt`, CLASSIFIER(name));
    await put(`${name}/labels.txt`, 'greet\nbuy\n');
    await mkdir(join(root, name, '1'));
  }
  await ageAll();
  reader = new ModelRepositoryReader(root);
  reads = jest.spyOn(reader, 'readModel');
  clock = Date.now() + 10_000;
  rescanner = new ModelRepositoryRescanner(reader, { now: () => clock, settleMs: 2_000 });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ModelRepositoryRescanner', () => {
  it('reads every model once, then none while nothing changes, with what a full read gives', async () => {
    reads.mockClear();
    const first = await rescanner.readAll();
    expect(reads.mock.calls.map((c) => String(c[0])).sort()).toEqual(['intent', 'sentiment']);
    expect(await rescan()).toEqual([]);
    const again = await rescanner.readAll();
    expect(again[0]).toBe(first[0]);
    expect(again).toEqual(await new ModelRepositoryReader(root).readAll());
  });

  it('reads again the model whose label file changed, even at the same size', async () => {
    await rescan();
    await put('intent/labels.txt', 'hello\nbuy\n');
    expect(await rescan()).toEqual(['intent']);
    const intent = (await rescanner.readAll()).find((e) => e.name === 'intent');
    expect(intent?.labels).toEqual({ logits: ['hello', 'buy'] });
  });

  it('reads again the model whose config changed, and follows the label file it names now', async () => {
    await rescan();
    await put('sentiment/config.pbtxt', CLASSIFIER('sentiment').replace('labels.txt', 'l2.txt'));
    expect(await rescan()).toEqual(['sentiment']);
    let sentiment = (await rescanner.readAll()).find((e) => e.name === 'sentiment');
    expect(sentiment?.error).toMatch(/label file 'l2.txt' of output 'logits' cannot be read/);
    expect(await rescan()).toEqual([]);
    await put('sentiment/l2.txt', 'neg\npos\n');
    expect(await rescan()).toEqual(['sentiment']);
    sentiment = (await rescanner.readAll()).find((e) => e.name === 'sentiment');
    expect(sentiment?.error).toBeUndefined();
    expect(sentiment?.labels).toEqual({ logits: ['neg', 'pos'] });
  });

  it('sees a version directory added and removed', async () => {
    await rescan();
    await mkdir(join(root, 'intent', '2'));
    expect(await rescan()).toEqual(['intent']);
    expect((await rescanner.readAll()).find((e) => e.name === 'intent')?.versionsOnDisk).toEqual([
      1, 2,
    ]);
    await rm(join(root, 'intent', '1'), { recursive: true });
    expect(await rescan()).toEqual(['intent']);
    expect((await rescanner.readAll()).find((e) => e.name === 'intent')?.versionsOnDisk).toEqual([
      2,
    ]);
  });

  it('sees a model added and a model removed', async () => {
    await rescan();
    await put('topic/config.pbtxt', CLASSIFIER('topic'));
    await put('topic/labels.txt', 'a\nb\n');
    await rm(join(root, 'sentiment'), { recursive: true });
    expect(await rescan()).toEqual(['topic']);
    expect((await rescanner.readAll()).map((e) => e.name)).toEqual(['intent', 'topic']);
  });

  it('reads a model every time while one of its files is younger than settleMs', async () => {
    // Set-up touched every file's ctime (utimes cannot age it): the change comes well after.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await put('intent/labels.txt', 'hello\nbuy\n');
    const s = await stat(join(root, 'intent', 'labels.txt'));
    const changed = Math.max(s.mtimeMs, s.ctimeMs);
    rescanner = new ModelRepositoryRescanner(reader, { now: () => clock, settleMs: 50 });
    clock = changed + 10;
    expect(await rescan()).toEqual(['intent', 'sentiment']);
    expect(await rescan()).toEqual(['intent']);
    expect(await rescan()).toEqual(['intent']);
    clock = changed + 100;
    // Settled: read once more to take a stamp that can be trusted, then no more.
    expect(await rescan()).toEqual(['intent']);
    expect(await rescan()).toEqual([]);
  });
});
