import { EventEmitter } from 'node:events';
import { abortedOnClose } from './call-context';

class FakeResponse extends EventEmitter {
  writableFinished = false;
}

describe('abortedOnClose', () => {
  it('aborts when the connection closes before the answer was written', () => {
    const res = new FakeResponse();
    const signal = abortedOnClose(res);
    expect(signal.aborted).toBe(false);
    res.emit('close');
    expect(signal.aborted).toBe(true);
  });

  it('stays quiet when the response closes after it was written', () => {
    const res = new FakeResponse();
    const signal = abortedOnClose(res);
    res.writableFinished = true;
    res.emit('close');
    expect(signal.aborted).toBe(false);
  });
});
