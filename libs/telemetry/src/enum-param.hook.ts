import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { InvalidParamError } from './http.errors';

/**
 * Accepts a route parameter only from a fixed list (`@Param('command', new EnumParamPipe(...))`)
 * and otherwise throws INVALID_ARGUMENT (400) listing the allowed values, through the app's
 * error filter like any domain error. Nest's ParseEnumPipe answers "enum string is expected",
 * which leaves the caller guessing.
 */
export class EnumParamPipe<T extends string> implements PipeTransform<unknown, T | undefined> {
  constructor(
    private readonly allowed: readonly T[],
    /** `optional`: an absent value (e.g. a query parameter left out) passes as undefined. */
    private readonly options: { optional?: boolean } = {},
  ) {}

  transform(value: unknown, metadata: ArgumentMetadata): T | undefined {
    if (value === undefined && this.options.optional) return undefined;
    if (typeof value === 'string' && (this.allowed as readonly string[]).includes(value)) {
      return value as T;
    }
    throw new InvalidParamError(metadata.data ?? 'parameter', this.allowed, value);
  }
}
