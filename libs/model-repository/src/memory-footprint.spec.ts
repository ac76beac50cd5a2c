import { parseModelConfig } from './model-config.parser';
import {
  declaredMemoryMb,
  estimateMemoryMb,
  memoryParameterKey,
  memoryParameterProblems,
  wholeMb,
} from './memory-footprint';

const config = (params: Record<string, string>) =>
  parseModelConfig(
    [
      'name: "m"',
      'platform: "onnxruntime_onnx"',
      ...Object.entries(params).map(
        ([k, v]) => `parameters { key: "${k}" value: { string_value: "${v}" } }`,
      ),
    ].join('\n'),
    'm/config.pbtxt',
  );

describe('memory footprint parameters', () => {
  it('reads memory_mb_v<N> per version, fractional MB included', () => {
    const c = config({ memory_mb_v1: '120', memory_mb_v2: '80.5' });
    expect(memoryParameterKey(2)).toBe('memory_mb_v2');
    expect(declaredMemoryMb(c, 1)).toBe(120);
    expect(declaredMemoryMb(c, '2')).toBe(80.5);
    expect(declaredMemoryMb(c, 3)).toBeUndefined();
    expect(memoryParameterProblems(c)).toEqual([]);
  });

  it('names every memory parameter that is not a positive number, and ignores other keys', () => {
    const c = config({
      memory_mb_v1: '0',
      memory_mb_v2: 'lots',
      memory_mb_v3: '-4',
      memory_mb_v4: '',
      memory_mb_v5: '64',
      model_sha256_v1: 'abc',
    });
    expect(memoryParameterProblems(c)).toEqual([
      `parameter 'memory_mb_v1' must be a positive number of MB (got "0")`,
      `parameter 'memory_mb_v2' must be a positive number of MB (got "lots")`,
      `parameter 'memory_mb_v3' must be a positive number of MB (got "-4")`,
      `parameter 'memory_mb_v4' must be a positive number of MB (got "")`,
    ]);
    expect(declaredMemoryMb(c, 2)).toBeUndefined();
  });

  it('rounds bytes up to whole MB, at least 1', () => {
    expect(wholeMb(0)).toBe(1);
    expect(wholeMb(-5)).toBe(1);
    expect(wholeMb(1)).toBe(1);
    expect(wholeMb(1024 * 1024)).toBe(1);
    expect(wholeMb(1024 * 1024 + 1)).toBe(2);
  });

  it('estimates an unmeasured version as the file size per instance plus one', () => {
    expect(estimateMemoryMb(17 * 1024 * 1024, 2)).toBe(51);
    expect(estimateMemoryMb(10 * 1024 * 1024 + 1, 1)).toBe(21);
    expect(estimateMemoryMb(1024, 0)).toBe(1);
  });
});
