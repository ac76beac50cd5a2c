import type { Logger } from 'pino';
import { NestPinoLogger } from './nest-logger';

function capture() {
  const lines: [string, object, string][] = [];
  const at =
    (level: string) =>
    (obj: object, msg: string): void => {
      lines.push([level, obj, msg]);
    };
  const logger = {
    info: at('info'),
    debug: at('debug'),
    warn: at('warn'),
    error: at('error'),
  } as unknown as Logger;
  return { nest: new NestPinoLogger(logger), lines };
}

describe('NestPinoLogger', () => {
  it("prints a route with find-my-way's escaped colon as the path clients call", () => {
    const { nest, lines } = capture();
    nest.log('Mapped {/v1/predict::batch, POST} route', 'RouterExplorer');
    expect(lines).toEqual([
      ['debug', { context: 'RouterExplorer' }, 'Mapped {/v1/predict:batch, POST} route'],
    ]);
  });

  it("keeps Nest's start-up lines (modules, controllers, routes, started) at debug", () => {
    const { nest, lines } = capture();
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('PredictController {/v1}:', 'RoutesResolver');
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.log('Nest microservice successfully started', 'NestMicroservice');
    expect(lines.map(([level]) => level)).toEqual(['debug', 'debug', 'debug', 'debug', 'debug']);
  });

  it('leaves other messages, and warnings from the start-up contexts, at their level', () => {
    const { nest, lines } = capture();
    nest.log('a::b', 'Boot');
    nest.log('no context');
    nest.warn('slow', 'InstanceLoader');
    nest.error('broken', 'trace', 'RoutesResolver');
    expect(lines).toEqual([
      ['info', { context: 'Boot' }, 'a::b'],
      ['info', { context: undefined }, 'no context'],
      ['warn', { context: 'InstanceLoader' }, 'slow'],
      ['error', { context: 'RoutesResolver', trace: 'trace' }, 'broken'],
    ]);
  });
});
