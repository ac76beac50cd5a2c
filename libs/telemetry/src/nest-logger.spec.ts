import type { Logger } from 'pino';
import { NestPinoLogger } from './nest-logger';

function capture() {
  const lines: [object, string][] = [];
  const logger = {
    info: (obj: object, msg: string) => lines.push([obj, msg]),
  } as unknown as Logger;
  return { nest: new NestPinoLogger(logger), lines };
}

describe('NestPinoLogger', () => {
  it("prints a route with find-my-way's escaped colon as the path clients call", () => {
    const { nest, lines } = capture();
    nest.log('Mapped {/v1/predict::batch, POST} route', 'RouterExplorer');
    expect(lines).toEqual([
      [{ context: 'RouterExplorer' }, 'Mapped {/v1/predict:batch, POST} route'],
    ]);
  });

  it('leaves other messages as they are', () => {
    const { nest, lines } = capture();
    nest.log('a::b', 'InstanceLoader');
    expect(lines).toEqual([[{ context: 'InstanceLoader' }, 'a::b']]);
  });
});
