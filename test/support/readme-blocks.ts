/** A fenced code block of a Markdown file: its info string (after the backticks) and body. */
export interface FencedBlock {
  info: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every ``` fenced block at the start of a line, in document order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence) && l.trim() === fence);
    if (end < 0) throw new Error(`line ${i + 1}: code block never closed`);
    blocks.push({ info: open[2]!.trim(), body: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return blocks;
}

/**
 * The shell commands of a block as a reader pastes them: comment-only and blank lines dropped,
 * lines ending in `\` joined with the next (each command keeps its own trailing comment).
 */
export function commandsOf(body: string): string[] {
  const commands: string[] = [];
  let current: string[] = [];
  for (const line of body.split('\n')) {
    if (current.length === 0 && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    current.push(line);
    if (!line.endsWith('\\')) {
      commands.push(current.join('\n'));
      current = [];
    }
  }
  if (current.length > 0) commands.push(current.join('\n'));
  return commands;
}
