import {
  AdminForbiddenError,
  UnauthenticatedError,
  type RoutingTable,
  type Tenant,
} from '@mesh/routing';
import { AdminAuthenticator } from './admin-authenticator';
import { sha256Hex } from './api-key';
import { TenantAuthenticator } from './tenant-authenticator';

// The module object the code under test calls through (a namespace import would be a copy).
const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');

function tenant(name: string, keys: string[]): Tenant {
  return {
    name,
    keySha256: keys.map(sha256Hex),
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 1, burst: 1 },
    maxInFlight: 1,
  };
}

function tableOf(...tenants: Tenant[]): RoutingTable {
  return { epoch: 1, tenants, routes: [] };
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err: unknown) {
    return err;
  }
  return undefined;
}

describe('TenantAuthenticator', () => {
  let table = tableOf(
    tenant('acme', ['acme-key-1', 'acme-key-2']),
    tenant('globex', ['globex-key']),
  );
  const auth = new TenantAuthenticator({ current: () => table });

  afterEach(() => jest.restoreAllMocks());

  it('maps each bearer key to its tenant; the scheme is case-insensitive', () => {
    expect(auth.authenticate('Bearer acme-key-1').name).toBe('acme');
    expect(auth.authenticate('bearer acme-key-2').name).toBe('acme');
    expect(auth.authenticate('Bearer globex-key').name).toBe('globex');
  });

  it('compares the hash against every stored key in constant time, even after a match', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    expect(auth.authenticate('Bearer acme-key-1').name).toBe('acme');
    expect(spy).toHaveBeenCalledTimes(3);
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });

  it.each([
    ['missing header', undefined],
    ['empty header', ''],
    ['wrong scheme', 'Basic YWNtZTprZXk='],
    ['no key', 'Bearer '],
    ['key with spaces', 'Bearer acme key'],
    ['repeated header', ['Bearer acme-key-1', 'Bearer acme-key-1']],
    ['oversized key', `Bearer ${'x'.repeat(600)}`],
    ['unknown key', 'Bearer not-a-key'],
    ['stored hash used as key', `Bearer ${sha256Hex('acme-key-1')}`],
  ])('rejects %s with the same UnauthenticatedError', (_case, header) => {
    const err = errorOf(() => auth.authenticate(header));
    expect(err).toBeInstanceOf(UnauthenticatedError);
    expect((err as UnauthenticatedError).code).toBe('UNAUTHENTICATED');
    expect((err as Error).message).toBe('missing or invalid API key');
  });

  it('follows table changes: new keys work and removed keys stop working', () => {
    table = tableOf(tenant('acme', ['rotated-key']));
    expect(auth.authenticate('Bearer rotated-key').name).toBe('acme');
    expect(errorOf(() => auth.authenticate('Bearer acme-key-1'))).toBeInstanceOf(
      UnauthenticatedError,
    );
  });
});

describe('AdminAuthenticator', () => {
  afterEach(() => jest.restoreAllMocks());

  it('accepts the admin key, comparing digests in constant time', () => {
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    expect(() =>
      new AdminAuthenticator('s3cret-admin').verify('Bearer s3cret-admin'),
    ).not.toThrow();
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('answers a wrong key with 403-class AdminForbiddenError and no key with UnauthenticatedError', () => {
    const admin = new AdminAuthenticator('s3cret-admin');
    expect(errorOf(() => admin.verify('Bearer s3cret-admin2'))).toBeInstanceOf(AdminForbiddenError);
    expect(errorOf(() => admin.verify('Bearer s3cret'))).toBeInstanceOf(AdminForbiddenError);
    expect(errorOf(() => admin.verify(undefined))).toBeInstanceOf(UnauthenticatedError);
  });

  it('disables admin access when no admin key is configured', () => {
    const admin = new AdminAuthenticator(undefined);
    expect(admin.enabled).toBe(false);
    expect(errorOf(() => admin.verify('Bearer anything'))).toBeInstanceOf(AdminForbiddenError);
    expect(new AdminAuthenticator('').enabled).toBe(false);
  });
});
