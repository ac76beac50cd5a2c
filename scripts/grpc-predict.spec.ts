import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  DEMO_KEY,
  UsageError,
  describeGrpcError,
  isServiceError,
  parseGrpcPredictArgs,
} from './grpc-predict';

describe('grpc-predict arguments', () => {
  it('calls Predict with one text, on the demo key and the default address', () => {
    expect(parseGrpcPredictArgs(['--task', 'sentiment', '--text', 'great service'], {})).toEqual({
      task: 'sentiment',
      texts: ['great service'],
      key: DEMO_KEY,
      address: '127.0.0.1:50051',
      deadlineMs: 30_000,
    });
  });

  it('takes several texts (a batch) in the order given', () => {
    const options = parseGrpcPredictArgs(
      ['--task', 'question-type', '--text', '为什么', '--text', '怎么', '--text', '几点'],
      {},
    );
    expect(options).toMatchObject({ texts: ['为什么', '怎么', '几点'] });
  });

  it('takes a text pair with a single text', () => {
    expect(
      parseGrpcPredictArgs(['--task', 'qa', '--text', 'q', '--text-pair', 'passage'], {}),
    ).toMatchObject({ texts: ['q'], textPair: 'passage' });
  });

  it('reads the key and address from the environment, flags first', () => {
    const env = { MESH_API_KEY: 'globex-demo-key', MESH_GRPC_ADDRESS: 'router:9000' };
    expect(parseGrpcPredictArgs(['--task', 't', '--text', 'x'], env)).toMatchObject({
      key: 'globex-demo-key',
      address: 'router:9000',
    });
    expect(
      parseGrpcPredictArgs(
        ['--task', 't', '--text', 'x', '--key', 'k', '--address', 'grpc://127.0.0.1:1234'],
        env,
      ),
    ).toMatchObject({ key: 'k', address: '127.0.0.1:1234' });
  });

  it('takes --deadline-ms and --text=value', () => {
    expect(
      parseGrpcPredictArgs(['--task=t', '--text=-5 degrees', '--deadline-ms', '500'], {}),
    ).toMatchObject({ task: 't', texts: ['-5 degrees'], deadlineMs: 500 });
  });

  it('answers help for --help and -h', () => {
    expect(parseGrpcPredictArgs(['--help'], {})).toBe('help');
    expect(parseGrpcPredictArgs(['-h', '--task', 't'], {})).toBe('help');
  });

  it.each([
    [[], /--task is required; --text is required/],
    [['--task', 'sentiment'], /--text is required/],
    [['--text', 'x'], /--task is required/],
    [['--task', 't', '--text', 'a', '--text', 'b', '--text-pair', 'p'], /--text-pair goes with/],
    [['--task', 't', '--text', 'x', '--key', ''], /--key must not be empty/],
    [['--task', 't', '--text', 'x', '--address', 'localhost'], /--address must be host:port/],
    [['--task', 't', '--text', 'x', '--deadline-ms', '0'], /--deadline-ms must be a positive/],
    [['--task', 't', '--text', 'x', '--deadline-ms', 'soon'], /--deadline-ms must be a positive/],
    [['--task', 't', '--text'], /--text/],
    [['--task', 't', '--text', 'x', '--txt', 'y'], /--txt/],
    [['--task', 't', '--text', 'x', 'extra'], /extra/],
  ] as [string[], RegExp][])('refuses %j, naming the problem', (argv, message) => {
    expect(() => parseGrpcPredictArgs(argv, {})).toThrow(UsageError);
    expect(() => parseGrpcPredictArgs(argv, {})).toThrow(message);
  });
});

describe('grpc-predict errors', () => {
  const serviceError = (code: status, details: string, meshCode?: string): ServiceError => {
    const metadata = new Metadata();
    if (meshCode) metadata.set('x-mesh-error-code', meshCode);
    return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
      code,
      details,
      metadata,
    });
  };

  it('names the gRPC status, the mesh code and the message', () => {
    expect(
      describeGrpcError(serviceError(status.NOT_FOUND, 'no task "nope"', 'TASK_NOT_FOUND')),
    ).toBe('NOT_FOUND (TASK_NOT_FOUND): no task "nope"');
    expect(describeGrpcError(serviceError(status.UNAVAILABLE, 'No connection established'))).toBe(
      'UNAVAILABLE: No connection established',
    );
  });

  it('tells a gRPC error from any other error', () => {
    expect(isServiceError(serviceError(status.INTERNAL, 'x'))).toBe(true);
    expect(isServiceError(new Error('x'))).toBe(false);
    expect(isServiceError({ code: 3, metadata: new Metadata() })).toBe(false);
  });
});
