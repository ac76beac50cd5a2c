import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process so far (Linux /proc), all its threads included. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of this process (all threads, ORT's included). */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}
