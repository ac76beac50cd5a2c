import { ReplyError } from 'ioredis';
import { isStoreUnavailable } from './redis.errors';

describe('isStoreUnavailable', () => {
  it.each([
    ['a command timeout', new Error('Command timed out')],
    ['a closed connection', new Error('Connection is closed.')],
    [
      'an offline queue refused',
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    ],
    [
      'a retry limit',
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    ['a cluster without slots', new Error('Failed to refresh slots cache.')],
    ['a cluster that is down', new ReplyError('CLUSTERDOWN The cluster is down')],
    [
      'a write on a demoted primary',
      new ReplyError("READONLY You can't write against a read only replica."),
    ],
    [
      'a primary loading its data',
      new ReplyError('LOADING Redis is loading the dataset in memory'),
    ],
    [
      'no reachable sentinel',
      new Error('All sentinels are unreachable. Retrying from scratch after 10ms.'),
    ],
  ])('%s is the store being unavailable', (_what, err) => {
    expect(isStoreUnavailable(err)).toBe(true);
  });

  it.each([
    ['a script error', new ReplyError('ERR Error running script')],
    [
      'a wrong type',
      new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
    ],
    [
      'a cross-slot script',
      new ReplyError("CROSSSLOT Keys in request don't hash to the same slot"),
    ],
    ['any other error', new Error('boom')],
    ['a string', 'Command timed out'],
    ['nothing', undefined],
  ])('%s is not', (_what, err) => {
    expect(isStoreUnavailable(err)).toBe(false);
  });
});
