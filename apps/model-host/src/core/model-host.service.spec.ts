import { Metadata } from '@grpc/grpc-js';
import pino from 'pino';
import { InferenceServicer } from '../grpc/inference.controller';
import { KserveHttpController } from '../http/kserve-http.controller';
import type { ModelManagerService } from '../repository/model-manager.service';
import { HostAccessLog } from './host-access-log';
import { classifierConfig } from '../testing/model-config-fixture';
import { ModelHostService, SERVER_EXTENSIONS, serverExtensions } from './model-host.service';
import type { ModelVersionRuntime } from './model-version-runtime';

const runtime = (version: string, memoryMb?: number) =>
  ({ spec: { model: 'm', version, instances: 1, memoryMb } }) as unknown as ModelVersionRuntime;

/** The two manager calls config() makes, over fixed runtimes. */
function hostServing(runtimes: ModelVersionRuntime[], extra = '', budgetMb?: number) {
  const models = {
    configOf: () => classifierConfig(`instance_group [ { count: 1 kind: KIND_CPU } ]\n${extra}`),
    runtime: (_: string, v: string) => runtimes.find((r) => r.spec.version === v)!,
    runtimes: () => runtimes,
    memory: { budgetMb },
  } as unknown as ModelManagerService;
  return new ModelHostService(models);
}

describe('ServerMetadata extensions', () => {
  it('lists only the protocol extensions without a memory budget', () => {
    expect(serverExtensions(undefined)).toEqual(SERVER_EXTENSIONS);
    expect(hostServing([]).serverMetadata().extensions).toEqual(SERVER_EXTENSIONS);
  });

  it('adds memory_budget_mb=<N> with a budget, the same for both transports', async () => {
    const host = hostServing([], '', 1536);
    const expected = {
      name: 'model-mesh-host',
      version: '0.1.0',
      extensions: [...SERVER_EXTENSIONS, 'memory_budget_mb=1536'],
    };
    expect(host.serverMetadata()).toEqual(expected);
    expect(serverExtensions(0.5)).toContain('memory_budget_mb=0.5');
    const access = new HostAccessLog(pino({ level: 'silent' }), 1);
    expect(new KserveHttpController(host, access).serverMetadata()).toEqual(expected);
    const handler = new InferenceServicer(host, pino({ level: 'silent' }), access).handlers()
      .ServerMetadata as (call: unknown, cb: (err: unknown, res: unknown) => void) => void;
    const grpcAnswer = await new Promise<{ err: unknown; res: unknown }>((resolve) =>
      handler(
        { request: {}, metadata: new Metadata(), sendMetadata: () => undefined },
        (err, res) => resolve({ err, res }),
      ),
    );
    expect(grpcAnswer).toEqual({ err: null, res: expected });
  });
});

describe('ModelConfig footprints', () => {
  const declared = 'parameters { key: "memory_mb_v1" value: { string_value: "300" } }';

  it('reports each serving version at the footprint it counts for', () => {
    const host = hostServing([runtime('1', 300), runtime('2', 88)], declared);
    const all = host.config('m', '').parameters;
    expect(all.memory_mb_v1).toEqual({ stringValue: '300' });
    expect(all.memory_mb_v2).toEqual({ stringValue: '88' });
    expect(host.config('m', '2').parameters.memory_mb_v2).toEqual({ stringValue: '88' });
  });

  it('leaves the declared value of a version nobody measured as written', () => {
    const host = hostServing([runtime('1')], declared);
    expect(host.config('m', '1').parameters.memory_mb_v1).toEqual({ stringValue: '300' });
  });
});
