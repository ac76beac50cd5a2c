import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CONFIG_FILE,
  type ModelEntry,
  type ModelRepositoryReader,
} from './model-repository-reader';

export interface RescannerOptions {
  /** The clock files' times are compared with (tests move it). */
  now?: () => number;
  /**
   * A file changed less than this long ago may change again within the file system's time
   * granularity without its stamp moving, so its model is read again until it is older.
   */
  settleMs?: number;
}

interface Known {
  /** Empty when the entry must be read again whatever the stamps say. */
  stamp: string;
  entry: ModelEntry;
}

/**
 * Reads a model repository again and again (a router polls it every few seconds), reading and
 * parsing only the models whose files changed since the last `readAll()`. A model's stamp is
 * `stat` of everything its entry comes from: its directory (a version directory or a file
 * added, removed or renamed into place), its config.pbtxt, the label files the config names
 * and each version directory. A full read of 100 models cost about 54 CPU-ms on the 2-core
 * machine of the benchmarks, most of it opening, reading and closing files on libuv's pool.
 */
export class ModelRepositoryRescanner {
  private known = new Map<string, Known>();
  private readonly now: () => number;
  private readonly settleMs: number;

  constructor(
    private readonly reader: ModelRepositoryReader,
    options: RescannerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.settleMs = options.settleMs ?? 2_000;
  }

  /** As `ModelRepositoryReader.readAll()`; an unchanged model's entry is the one read before. */
  async readAll(): Promise<ModelEntry[]> {
    const names = await this.reader.listModels();
    const read = await Promise.all(names.map((name) => this.readModel(name)));
    const known = new Map<string, Known>();
    for (const r of read) if (r) known.set(r.entry.name, r);
    this.known = known;
    return read.filter((r): r is Known => r !== undefined).map((r) => r.entry);
  }

  private async readModel(name: string): Promise<Known | undefined> {
    const last = this.known.get(name);
    const dir = join(this.reader.root, name);
    // Stamped before the read: a change after this point moves the next stamp.
    const files = filesOf(dir, last?.entry);
    const stamp = await this.stamp(files);
    if (last && last.stamp !== '' && last.stamp === stamp) return last;
    const entry = await this.reader.readModel(name);
    if (!entry) return undefined;
    const read = filesOf(dir, entry);
    if (read.join('\0') === files.join('\0')) return { stamp, entry };
    // The entry names other files than those stamped (labels, versions; all of them on a first
    // read). Stamping them after the read misses nothing: a file changed since it was read has
    // a ctime within settleMs of now, which `stamp` does not trust.
    return { stamp: await this.stamp(read), entry };
  }

  /** The files' identities, or '' when one changed too recently to be trusted. */
  private async stamp(files: string[]): Promise<string> {
    const stats = await Promise.all(files.map((f) => stat(f).catch(() => undefined)));
    const settled = this.now() - this.settleMs;
    const parts: string[] = [];
    for (const s of stats) {
      if (s === undefined) {
        parts.push('-');
        continue;
      }
      if (s.mtimeMs > settled || s.ctimeMs > settled) return '';
      parts.push(`${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`);
    }
    return parts.join('|');
  }
}

/** What a model's entry is read from, given the entry read last time (none: dir and config). */
function filesOf(dir: string, entry: ModelEntry | undefined): string[] {
  const labels = (entry?.config?.output ?? [])
    .map((o) => o.labelFilename)
    .filter((f): f is string => typeof f === 'string' && f.length > 0)
    .map((f) => join(dir, f));
  const versions = (entry?.versionsOnDisk ?? []).map((v) => join(dir, String(v)));
  return [dir, join(dir, CONFIG_FILE), ...labels, ...versions];
}
