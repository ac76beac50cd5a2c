import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ManifestError } from './preprocess-manifest.errors';
import { parsePreprocessManifest, type PreprocessManifest } from './preprocess-manifest.schema';

export const MANIFEST_FILE = 'preprocess.json';

/** `<model>/<version>/preprocess.json`: short enough for a log line, precise enough to find. */
export function manifestLabel(versionDir: string): string {
  return `${basename(dirname(versionDir))}/${basename(versionDir)}/${MANIFEST_FILE}`;
}

/** Reads and validates `<versionDir>/preprocess.json`; throws ManifestError. */
export async function readPreprocessManifest(versionDir: string): Promise<PreprocessManifest> {
  const file = manifestLabel(versionDir);
  let text: string;
  try {
    text = await readFile(join(versionDir, MANIFEST_FILE), 'utf8');
  } catch (error: unknown) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const reason = missing ? 'file not found' : `cannot read: ${(error as Error).message}`;
    throw new ManifestError(missing ? 'MANIFEST_NOT_FOUND' : 'MANIFEST_UNREADABLE', file, [
      { path: '', message: reason },
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error: unknown) {
    throw new ManifestError('MANIFEST_UNREADABLE', file, [
      { path: '', message: `not valid JSON: ${(error as Error).message}` },
    ]);
  }
  return parsePreprocessManifest(json, file);
}
