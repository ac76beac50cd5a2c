/**
 * Rebuilds scripts/data/vocab-words.txt from scripts/data/english-seed.txt.
 * Run once when the seed changes, then commit both; model generation reads
 * only the committed word list.
 *
 *   node scripts/run-ts.js scripts/models/build-word-list.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildWordList, formatWordList } from './word-list';

const dataDir = join(__dirname, '..', 'data');
const tokens = buildWordList(readFileSync(join(dataDir, 'english-seed.txt'), 'utf8'));
writeFileSync(join(dataDir, 'vocab-words.txt'), formatWordList(tokens));
process.stdout.write(`wrote scripts/data/vocab-words.txt: ${tokens.length} tokens\n`);
