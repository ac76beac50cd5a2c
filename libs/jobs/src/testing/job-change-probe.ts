import { JobKeys } from '../job.keys';

/** Polls `fn` until it answers (test/support/poll's `pollUntil`, passed in by the spec). */
export type Poll = <T>(
  fn: () => Promise<T | undefined>,
  options: { timeoutMs?: number; what: string },
) => Promise<T>;

/** Runs one command on one Redis node and answers its reply (a client's or redis-cli's form). */
export type AskNode = (...command: string[]) => Promise<unknown>;

/**
 * Counts the subscribers of jobs' change channels on one Redis node (PUBSUB SHARDNUMSUB answers
 * for the node asked), and waits for a count.
 */
export class ChangeChannelProbe {
  private readonly keys: JobKeys;

  constructor(
    prefix: string,
    private readonly ask: AskNode,
    private readonly poll: Poll,
    private readonly where = '',
    private readonly timeoutMs?: number,
  ) {
    this.keys = new JobKeys(prefix);
  }

  async subscribers(jobId: string): Promise<number> {
    const reply = await this.ask('PUBSUB', 'SHARDNUMSUB', this.keys.changes(jobId));
    // [channel, count] from a client; "channel\ncount" from redis-cli.
    return Number(Array.isArray(reply) ? reply[1] : String(reply).split('\n')[1]);
  }

  untilSubscribers(jobId: string, n: number): Promise<true> {
    return this.poll(async () => ((await this.subscribers(jobId)) === n ? true : undefined), {
      ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
      what: `${n} subscriber(s) of ${jobId}'s channel${this.where}`,
    });
  }
}

/**
 * Probes for the nodes of a cluster or Sentinel set-up by port, through `cli` (test/support's
 * `redisCli`); waits allow 20 s, for failovers and reshards.
 */
export function nodeProbes(
  prefix: string,
  cli: (port: number, ...command: string[]) => Promise<string>,
  poll: Poll,
): (port: number) => ChangeChannelProbe {
  return (port) =>
    new ChangeChannelProbe(
      prefix,
      (...command) => cli(port, ...command),
      poll,
      ` on ${port}`,
      20_000,
    );
}
