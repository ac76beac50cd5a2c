import { RouteEditRejectedError } from './routing.errors';

describe('RouteEditRejectedError', () => {
  const unknown = { code: 'UNKNOWN_VERSION', path: 'versions[0].version', message: 'no v9' };
  const tooLarge = { code: 'MODEL_TOO_LARGE', path: 'versions[1].weight', message: 'needs 900 MB' };

  it('answers MODEL_TOO_LARGE first wherever the check listed it, keeping every problem', () => {
    const err = new RouteEditRejectedError([unknown, tooLarge]);
    expect(err.code).toBe('MODEL_TOO_LARGE');
    expect(err.problems).toEqual([tooLarge, unknown]);
    expect(err.message).toBe(
      'route refused: versions[1].weight: needs 900 MB; versions[0].version: no v9',
    );
  });

  it('keeps the listed order and the first code otherwise', () => {
    expect(new RouteEditRejectedError([unknown]).code).toBe('UNKNOWN_VERSION');
    expect(new RouteEditRejectedError([]).code).toBe('INVALID_ROUTING_CONFIG');
  });
});
