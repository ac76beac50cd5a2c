import { RouteMethodIndex } from './route-methods-index';

describe('RouteMethodIndex', () => {
  const index = new RouteMethodIndex();
  index.add('POST', '/v1/predict');
  index.add('POST', '/v1/predict::batch');
  index.add('GET', '/v1/tasks');
  index.add('HEAD', '/v1/tasks');
  index.add('DELETE', '/v1/admin/routes/:tenant/:task');
  index.add('GET', '/docs/*');

  it.each([
    ['/v1/predict', ['POST']],
    ['/v1/predict:batch', ['POST']],
    ['/v1/predict?x=1', ['POST']],
    ['/v1/tasks', ['GET', 'HEAD']],
    ['/v1/admin/routes/acme/intent', ['DELETE']],
    ['/docs/swagger-ui.css', ['GET']],
  ])('%s answers %j', (url, methods) => {
    expect(index.allowed(url)).toEqual(methods);
  });

  it.each(['/v1/predictX', '/v1/predict:other', '/v1/admin/routes/acme', '/v1/admin/routes/a/b/c'])(
    '%s is unknown',
    (url) => {
      expect(index.allowed(url)).toEqual([]);
    },
  );
});
