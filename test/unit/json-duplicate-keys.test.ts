/** cluster/shared/json-duplicate-keys.ts: repeated keys found in the text that JSON.parse would collapse. */
import { duplicateKeyPaths, formatKeyPath } from '../../cluster/shared/json-duplicate-keys.js';

describe('duplicateKeyPaths', () => {
  test.each([
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', [['a']]],
    ['{"a":{"b":[1,{"c":true,"c":null}]}, "d":"x"}', [['a', 'b', 1, 'c']]],
    ['[{"x":1},{"x":1}]', []],
    // Escapes: the same key spelt twice ("\u0061" is "a"); braces and quotes inside strings are text.
    ['{"a":"}{\\"","\\u0061":0}', [['a']]],
    [' { "k" : [ ] , "k" : { } , "e" : -1.5e3 , "e" : "" } ', [['k'], ['e']]],
    [
      '{"m":[{"n":1,"n":2,"n":3}]}',
      [
        ['m', 0, 'n'],
        ['m', 0, 'n'],
      ],
    ],
  ])('%s', (text, expected) => {
    expect(duplicateKeyPaths(text)).toEqual(expected);
  });

  test('paths are written as the API server writes them', () => {
    expect(formatKeyPath(['spec', 'template', 'spec', 'containers', 0, 'name'])).toBe(
      'spec.template.spec.containers[0].name',
    );
  });
});
