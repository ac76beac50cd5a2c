import { BuildMemoryMeter } from './build-memory-meter';

const MB = 1024 * 1024;

describe('BuildMemoryMeter', () => {
  it('reports the RSS a build adds in whole MB, rounded up, at least 1', async () => {
    let rss = 100 * MB;
    const meter = new BuildMemoryMeter(() => rss);
    const grown = await meter.measure(async () => {
      rss += 40 * MB + 1;
      return 'v1';
    });
    expect(grown).toEqual({ value: 'v1', mb: 41 });
    // RSS may even shrink during a build (freed memory handed back): never below 1 MB.
    const shrunk = await meter.measure(async () => {
      rss -= 10 * MB;
    });
    expect(shrunk.mb).toBe(1);
  });

  it('runs measured builds one after another, also after a failed one', async () => {
    const meter = new BuildMemoryMeter(() => 0);
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = meter.measure(async () => {
      order.push('first start');
      await new Promise<void>((r) => (releaseFirst = r));
      order.push('first end');
      throw new Error('broken model');
    });
    const second = meter.measure(async () => {
      order.push('second start');
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual(['first start']);
    releaseFirst();
    await expect(first).rejects.toThrow('broken model');
    await second;
    expect(order).toEqual(['first start', 'first end', 'second start']);
  });
});
