import { join } from 'node:path';
import { DEMO_MODELS } from '../../../../scripts/models/demo-catalog';
import { ROOT, ensureTinyModels } from '../../../../test/support/model-host-fixtures';
import { findInputBounds } from './input-bounds-finder';
import { ModelFilesRepository } from './model-files.repository';

const versions = DEMO_MODELS.flatMap((m) => m.versions.map((v) => [m.name, v.version] as const));

describe('input bounds of the generated demo repository', () => {
  const repo = new ModelFilesRepository(join(ROOT, 'model_repository'));

  beforeAll(() => ensureTinyModels());

  it.each(versions)('%s v%d: vocabulary, token types and positions', async (model, version) => {
    const wiring = await repo.graphWiring(join(repo.root, model, String(version), 'model.onnx'));
    expect(wiring).toBeDefined();
    expect(findInputBounds(wiring!)).toEqual({
      ids: {
        input_ids: { rows: 29976, table: 'embedding table' },
        token_type_ids: { rows: 2, table: 'token-type embedding table' },
      },
      sequence: { input: 'input_ids', rows: 512, table: 'position embedding table' },
      // The generator names the batch and sequence axes, as torch.onnx.export's dynamic_axes do.
      sameSize: ['batch', 'sequence'].map((dim, axis) => ({
        dim,
        members: ['input_ids', 'attention_mask', 'token_type_ids'].map((input) => ({
          input,
          axis,
        })),
      })),
    });
  });

  it('reads no bounds from a file that is not an ONNX model', async () => {
    expect(await repo.graphWiring(join(repo.root, 'sentiment-en', 'config.pbtxt'))).toBeUndefined();
  });
});
