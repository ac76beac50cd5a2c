import { StringDecoder } from 'node:string_decoder';
import { parseJobItem } from './job-item.schema';
import { JobInputError, JobTooLargeError } from './jobs.errors';
import type { JobItem } from './job.types';

export interface NdjsonLimits {
  /** Total bytes of the upload. */
  maxBytes: number;
  /** Items (non-blank lines). */
  maxItems: number;
  /** One line, so a missing newline cannot make the parser buffer without bound. */
  maxLineBytes: number;
}

/**
 * Reads an NDJSON upload chunk by chunk and yields one item per non-blank line, never holding
 * more than one partial line in memory. Byte and item caps are enforced as the stream flows
 * (the raw stream bypasses the HTTP body limit). A bad line throws JobInputError naming its
 * 1-based line number.
 */
export async function* parseNdjsonItems(
  source: AsyncIterable<Buffer | string>,
  limits: NdjsonLimits,
): AsyncGenerator<JobItem> {
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let items = 0;
  let line = 0;
  let partial = '';
  const take = (text: string): JobItem | undefined => {
    line += 1;
    const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (trimmed.trim().length === 0) return undefined;
    items += 1;
    if (items > limits.maxItems) throw new JobTooLargeError(limits.maxItems, 'items');
    return parseLine(trimmed, line, items - 1);
  };
  for await (const chunk of source) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (bytes > limits.maxBytes) throw new JobTooLargeError(limits.maxBytes, 'bytes');
    partial += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    let nl: number;
    while ((nl = partial.indexOf('\n', start)) >= 0) {
      const item = take(partial.slice(start, nl));
      start = nl + 1;
      if (item) yield item;
    }
    partial = partial.slice(start);
    if (Buffer.byteLength(partial) > limits.maxLineBytes) {
      throw new JobInputError(
        `line ${line + 1}: longer than ${limits.maxLineBytes} bytes`,
        line + 1,
      );
    }
  }
  partial += decoder.end();
  if (partial.length > 0) {
    const item = take(partial);
    if (item) yield item;
  }
}

function parseLine(text: string, line: number, index: number): JobItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JobInputError(`line ${line}: not valid JSON`, line, index);
  }
  const item = parseJobItem(value);
  if (typeof item === 'string') throw new JobInputError(`line ${line}: ${item}`, line, index);
  return item;
}
