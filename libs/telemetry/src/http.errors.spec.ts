import {
  BadRequestException,
  PayloadTooLargeException,
  type ArgumentMetadata,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { EnumParamPipe } from './enum-param.hook';
import { InvalidParamError, PayloadTooLargeError, payloadTooLargeOf } from './http.errors';

const param = (data: string): ArgumentMetadata => ({ type: 'param', data });

describe('HTTP edge errors', () => {
  it('turns Fastify’s body-limit refusal into one naming the route’s limit in bytes', () => {
    const request = { routeOptions: { bodyLimit: 1_048_576 } } as unknown as FastifyRequest;
    const fastify = Object.assign(new Error('Request body is too large'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    });
    const err = payloadTooLargeOf(fastify, request);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', limitBytes: 1_048_576 });
    expect(err?.message).toBe('request body exceeds the limit of 1048576 bytes');
    // Nest wraps it in an HttpException when its own body parser read the body.
    expect(
      payloadTooLargeOf(new PayloadTooLargeException('Request body is too large'), request),
    ).toMatchObject({ limitBytes: 1_048_576 });
    expect(payloadTooLargeOf(new BadRequestException('bad'), request)).toBeUndefined();
    expect(payloadTooLargeOf(new PayloadTooLargeError(5), request)).toBeUndefined();
    expect(payloadTooLargeOf(new Error('other'), request)).toBeUndefined();
    expect(payloadTooLargeOf(null, request)).toBeUndefined();
  });

  it('passes an allowed route parameter and refuses any other listing the allowed values', () => {
    const pipe = new EnumParamPipe(['pause', 'resume', 'abort', 'promote'] as const);
    expect(pipe.transform('pause', param('command'))).toBe('pause');
    let thrown: unknown;
    try {
      pipe.transform('foo', param('command'));
    } catch (err: unknown) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidParamError);
    expect(thrown).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: "command: must be one of pause, resume, abort, promote (got 'foo')",
      issues: [
        { path: 'command', message: "must be one of pause, resume, abort, promote (got 'foo')" },
      ],
    });
  });
});
