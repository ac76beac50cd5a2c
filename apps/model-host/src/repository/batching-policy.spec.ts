import { classifierConfig } from '../testing/model-config-fixture';
import {
  DEFAULT_BALANCE_INSTANCES,
  DEFAULT_DISPATCH_WHEN_IDLE,
  DEFAULT_MAX_PADDING_RATIO,
  batchingPolicyOf,
} from './batching-policy';

const config = (extra: string) => classifierConfig(extra);

describe('batchingPolicyOf', () => {
  it('reads dynamic_batching, queue policies and priority levels from config.pbtxt', () => {
    const p = batchingPolicyOf(
      config(`dynamic_batching {
  preferred_batch_size: [ 8, 16 ]
  max_queue_delay_microseconds: 5000
  priority_levels: 2
  default_priority_level: 2
  default_queue_policy { max_queue_size: 10 default_timeout_microseconds: 700 allow_timeout_override: true }
  priority_queue_policy { key: 1 value: { max_queue_size: 3 } }
}`),
    );
    expect(p).toMatchObject({
      enabled: true,
      maxBatchSize: 32,
      preferredBatchSizes: [8, 16],
      maxQueueDelayUs: 5000,
      priorityLevels: 2,
      defaultPriorityLevel: 2,
      defaultQueuePolicy: { maxQueueSize: 10, defaultTimeoutUs: 700, allowTimeoutOverride: true },
      maxPaddingRatio: DEFAULT_MAX_PADDING_RATIO,
    });
    expect(p.priorityQueuePolicy.get(1)?.maxQueueSize).toBe(3);
  });

  it('runs requests one by one without a dynamic_batching block', () => {
    expect(batchingPolicyOf(config('')).enabled).toBe(false);
  });

  it('takes max_padding_ratio from parameters and rejects values below 1', () => {
    const ok = config(
      'dynamic_batching { }\nparameters { key: "max_padding_ratio" value: { string_value: "0" } }',
    );
    expect(batchingPolicyOf(ok).maxPaddingRatio).toBe(0);
    const bad = config(
      'dynamic_batching { }\nparameters { key: "max_padding_ratio" value: { string_value: "0.5" } }',
    );
    expect(() => batchingPolicyOf(bad)).toThrow(
      "parameter 'max_padding_ratio' must be 0 (no limit) or a number >= 1",
    );
  });

  it('dispatches when idle by default, and keeps Triton\'s queue-delay rule with "false"', () => {
    const param = (v: string) =>
      config(
        `dynamic_batching { }\nparameters { key: "dispatch_when_idle" value: { string_value: "${v}" } }`,
      );
    expect(batchingPolicyOf(config('dynamic_batching { }')).dispatchWhenIdle).toBe(true);
    expect(batchingPolicyOf(param('false')).dispatchWhenIdle).toBe(false);
    expect(batchingPolicyOf(param('0')).dispatchWhenIdle).toBe(false);
    expect(batchingPolicyOf(param('true')).dispatchWhenIdle).toBe(true);
    expect(() => batchingPolicyOf(param('soon'))).toThrow(
      "parameter 'dispatch_when_idle' must be one of 0, 1, false, true",
    );
  });

  it('reads a config as Triton users write it (no mesh parameters) with the mesh defaults', () => {
    const p = batchingPolicyOf(
      config(`instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { max_queue_delay_microseconds: 2000 }`),
    );
    expect(p).toMatchObject({
      enabled: true,
      maxQueueDelayUs: 2000,
      dispatchWhenIdle: DEFAULT_DISPATCH_WHEN_IDLE,
      balanceInstances: DEFAULT_BALANCE_INSTANCES,
    });
    expect([DEFAULT_DISPATCH_WHEN_IDLE, DEFAULT_BALANCE_INSTANCES]).toEqual([true, true]);
  });

  it('orders batches by length unless batch_order is arrival, and rejects other values', () => {
    const param = (k: string, v: string) =>
      config(`dynamic_batching { }\nparameters { key: "${k}" value: { string_value: "${v}" } }`);
    expect(batchingPolicyOf(config('dynamic_batching { }')).batchOrder).toBe('length');
    expect(batchingPolicyOf(param('batch_order', 'arrival')).batchOrder).toBe('arrival');
    expect(() => batchingPolicyOf(param('batch_order', 'fifo'))).toThrow(
      "parameter 'batch_order' must be length or arrival",
    );
  });

  it('balances instances by default, whatever dispatch_when_idle says', () => {
    const params = (pairs: Record<string, string>) =>
      config(
        ['dynamic_batching { }']
          .concat(
            Object.entries(pairs).map(
              ([k, v]) => `parameters { key: "${k}" value: { string_value: "${v}" } }`,
            ),
          )
          .join('\n'),
      );
    expect(batchingPolicyOf(params({})).balanceInstances).toBe(true);
    expect(batchingPolicyOf(params({ dispatch_when_idle: 'false' })).balanceInstances).toBe(true);
    expect(batchingPolicyOf(params({ balance_instances: 'false' })).balanceInstances).toBe(false);
    expect(
      batchingPolicyOf(params({ dispatch_when_idle: 'false', balance_instances: 'false' })),
    ).toMatchObject({ dispatchWhenIdle: false, balanceInstances: false });
    expect(() => batchingPolicyOf(params({ balance_instances: 'maybe' }))).toThrow(
      "parameter 'balance_instances' must be one of 0, 1, false, true",
    );
  });
});
