import { loadModelHostConfig } from './model-host.config';
import { configErrorOf } from '../../config/src/testing/config-error';

describe('loadModelHostConfig', () => {
  it('uses the pinned defaults', () => {
    const c = loadModelHostConfig({}, []);
    expect(c.MODEL_REPOSITORY).toBe('./model_repository');
    expect([c.MODEL_HOST_HTTP_PORT, c.MODEL_HOST_GRPC_PORT, c.MODEL_HOST_METRICS_PORT]).toEqual([
      8000, 8001, 8002,
    ]);
    expect(c.GRPC_MAX_MESSAGE_BYTES).toBe(64 * 1024 * 1024);
    expect(c.MODEL_CONTROL_MODE).toBe('none');
    // Threads follow the cores at load time; thread pools spin while a run is in progress.
    expect(c.ORT_INTRA_OP_THREADS).toBeUndefined();
    expect(c.ORT_ALLOW_SPINNING).toBe('1');
  });

  it('takes an explicit intra-op thread count and spinning switch, and rejects others', () => {
    const c = loadModelHostConfig({ ORT_INTRA_OP_THREADS: '3', ORT_ALLOW_SPINNING: 'false' }, []);
    expect(c.ORT_INTRA_OP_THREADS).toBe(3);
    expect(c.ORT_ALLOW_SPINNING).toBe('false');
    expect(() => loadModelHostConfig({ ORT_ALLOW_SPINNING: 'yes' }, [])).toThrow(
      /ORT_ALLOW_SPINNING/,
    );
  });

  it('starts pool threads at nice 19 unless told a value from 0 to 19', () => {
    expect(loadModelHostConfig({}, []).ORT_POOL_THREAD_NICE).toBe(19);
    expect(loadModelHostConfig({ ORT_POOL_THREAD_NICE: '0' }, []).ORT_POOL_THREAD_NICE).toBe(0);
    for (const bad of ['20', '-1', '1.5', 'low']) {
      expect(() => loadModelHostConfig({ ORT_POOL_THREAD_NICE: bad }, [])).toThrow(
        /ORT_POOL_THREAD_NICE/,
      );
    }
  });

  it('reads the memory budget in MB; unset or empty is unlimited', () => {
    expect(loadModelHostConfig({}, []).MODEL_HOST_MEMORY_BUDGET_MB).toBeUndefined();
    expect(
      loadModelHostConfig({ MODEL_HOST_MEMORY_BUDGET_MB: '' }, []).MODEL_HOST_MEMORY_BUDGET_MB,
    ).toBeUndefined();
    expect(
      loadModelHostConfig({ MODEL_HOST_MEMORY_BUDGET_MB: '1536.5' }, [])
        .MODEL_HOST_MEMORY_BUDGET_MB,
    ).toBe(1536.5);
  });

  it.each(['0', '-1', 'lots', 'Infinity'])(
    'refuses to boot with a memory budget of %j, naming the variable',
    (value) => {
      expect(() => loadModelHostConfig({ MODEL_HOST_MEMORY_BUDGET_MB: value }, [])).toThrow(
        /MODEL_HOST_MEMORY_BUDGET_MB: must be a (positive |finite )?number/,
      );
    },
  );

  it('lets Triton flags override the environment, --load-model repeatable', () => {
    const c = loadModelHostConfig({ MODEL_REPOSITORY: '/env', MODEL_CONTROL_MODE: 'none' }, [
      '--model-repository=/flag',
      '--model-control-mode',
      'explicit',
      '--load-model=a',
      '--load-model=b',
    ]);
    expect(c.MODEL_REPOSITORY).toBe('/flag');
    expect(c.MODEL_CONTROL_MODE).toBe('explicit');
    expect(c.loadModels).toEqual(['a', 'b']);
  });

  it('lists every bad variable and flag at once', () => {
    const err = configErrorOf(() => {
      loadModelHostConfig({ MODEL_HOST_GRPC_PORT: '70000', ORT_INTRA_OP_THREADS: '0' }, [
        '--bogus',
        '--model-control-mode=poll',
      ]);
    });
    const msg = (err as Error).message;
    expect(msg).toContain('--bogus: unknown flag');
    expect(msg).toContain('MODEL_HOST_GRPC_PORT: must be between 0 and 65535');
    expect(msg).toContain('ORT_INTRA_OP_THREADS: must be at least 1');
    expect(msg).toContain('MODEL_CONTROL_MODE');
  });

  it('refuses --load-model without explicit control mode', () => {
    expect(() => loadModelHostConfig({}, ['--load-model=a'])).toThrow(
      'only allowed with --model-control-mode=explicit',
    );
  });
});
