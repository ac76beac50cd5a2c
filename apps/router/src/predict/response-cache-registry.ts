import type { Route } from '@mesh/routing';
import { ResponseCache } from './response-cache';

/** Response caches of the routes that enable one, kept across table reloads of the same route. */
export class ResponseCacheRegistry {
  private readonly caches = new Map<string, { size: number; cache: ResponseCache }>();

  constructor(private readonly defaultMaxEntries: number) {}

  /** The route's cache, or undefined when caching is off for it (the default). */
  forRoute(route: Route): ResponseCache | undefined {
    if (!route.cache?.enabled) return undefined;
    const key = `${route.tenant}\u0000${route.task}`;
    const size = route.cache.maxEntries ?? this.defaultMaxEntries;
    const entry = this.caches.get(key);
    if (entry && entry.size === size) return entry.cache;
    const cache = new ResponseCache(size);
    this.caches.set(key, { size, cache });
    return cache;
  }
}
