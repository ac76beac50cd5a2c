import { checkUnloadParameters, loadOptionsFrom } from './load-options';
import { InvalidInferenceError } from './model-host.errors';

describe('load and unload parameters', () => {
  it('takes config as a string and nothing else', () => {
    expect(loadOptionsFrom({})).toEqual({});
    expect(loadOptionsFrom({ config: '{}' })).toEqual({ config: '{}' });
  });

  it.each([
    [{ config: 3 }, "load parameter 'config' must be a string holding a JSON ModelConfig"],
    [{ 'file:1/model.onnx': 'AA' }, 'model file overrides are not supported'],
    [{ colour: 'red' }, "unsupported load parameter 'colour'"],
  ])('refuses %j naming it', (params, message) => {
    expect(() => loadOptionsFrom(params)).toThrow(InvalidInferenceError);
    expect(() => loadOptionsFrom(params)).toThrow(message);
  });

  it('accepts unload_dependents as a boolean and refuses anything else', () => {
    expect(() => checkUnloadParameters({ unload_dependents: true })).not.toThrow();
    expect(() => checkUnloadParameters({ unload_dependents: 'yes' })).toThrow('must be a boolean');
    expect(() => checkUnloadParameters({ force: true })).toThrow(
      "unsupported unload parameter 'force'",
    );
  });
});
