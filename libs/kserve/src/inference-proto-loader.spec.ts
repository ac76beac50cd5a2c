import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INFERENCE_METHODS, loadInferencePackage, resolveProtoDir } from './inference-proto-loader';

describe('inference proto loading', () => {
  it('lists every GRPCInferenceService method with Triton names and paths', () => {
    const pkg = loadInferencePackage();
    expect(Object.keys(pkg.inferenceService)).toEqual([...INFERENCE_METHODS]);
    expect(pkg.inferenceService.ModelInfer!.path).toBe(
      '/inference.GRPCInferenceService/ModelInfer',
    );
    expect(pkg.inferenceService.ModelStreamInfer!.requestStream).toBe(true);
    expect(pkg.inferenceService.ModelStreamInfer!.responseStream).toBe(true);
    expect(Object.keys(pkg.healthService)).toEqual(['Check', 'Watch']);
    expect(pkg.healthService.Check!.path).toBe('/grpc.health.v1.Health/Check');
  });

  it('serialises raw_input_contents and typed parameters with the Triton field numbers', () => {
    const pkg = loadInferencePackage();
    const def = pkg.inferenceService.ModelInfer!;
    const wire = def.requestSerialize({
      model_name: 'm',
      parameters: { priority: { int64_param: 1 } },
      inputs: [{ name: 'x', datatype: 'INT64', shape: [1] }],
      raw_input_contents: [Buffer.alloc(8)],
    });
    // model_name = field 1 (tag 0x0a), raw_input_contents = field 7 (tag 0x3a).
    expect(wire[0]).toBe(0x0a);
    expect(wire.includes(Buffer.from([0x3a, 0x08]))).toBe(true);
    const back = def.requestDeserialize(wire) as Record<string, unknown>;
    expect(back).toMatchObject({
      model_name: 'm',
      parameters: { priority: { int64_param: 1, parameter_choice: 'int64_param' } },
      inputs: [{ name: 'x', datatype: 'INT64', shape: [1] }],
    });
  });

  it('finds proto/ by walking up, or from MESH_PROTO_DIR', () => {
    const root = mkdtempSync(join(tmpdir(), 'kserve-proto-'));
    mkdirSync(join(root, 'proto', 'inference'), { recursive: true });
    writeFileSync(join(root, 'proto', 'inference', 'grpc_service.proto'), '');
    const deep = join(root, 'dist', 'libs', 'kserve', 'src');
    mkdirSync(deep, { recursive: true });
    expect(resolveProtoDir({}, deep)).toBe(join(root, 'proto'));
    expect(resolveProtoDir({ MESH_PROTO_DIR: join(root, 'proto') }, '/')).toBe(join(root, 'proto'));
    expect(() => resolveProtoDir({ MESH_PROTO_DIR: root }, '/')).toThrow(/does not exist/);
    expect(() => resolveProtoDir({}, tmpdir())).toThrow(/MESH_PROTO_DIR/);
  });
});
