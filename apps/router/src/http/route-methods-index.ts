import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  method: string;
  regex: RegExp;
}

/**
 * Which methods each registered path answers, so a known path asked with the wrong method is
 * 405 with `Allow` rather than 404. Filled from Fastify's onRoute hook (install it before the
 * application registers its routes).
 */
export class RouteMethodIndex {
  private readonly patterns: RoutePattern[] = [];

  install(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) this.add(method, route.url);
    });
  }

  /** Registers one Fastify route (`:param`, `::` for a literal colon, `*` wildcard). */
  add(method: string, url: string): void {
    const source = url
      .split('::')
      .map((part) =>
        part
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
          .replace(/\*/g, '.*'),
      )
      .join(':');
    this.patterns.push({ method: method.toUpperCase(), regex: new RegExp(`^${source}$`) });
  }

  /** Methods registered for the path (query string ignored), sorted; empty when unknown. */
  allowed(url: string): string[] {
    const path = url.split('?')[0] ?? '';
    const out = new Set<string>();
    for (const p of this.patterns) if (p.regex.test(path)) out.add(p.method);
    return [...out].sort();
  }
}
