import {
  parameterValues,
  renderTemplate,
  scanPlaceholders,
} from '../../../cluster/manifest-processor/src/templates/index.js';

const values = (o: Record<string, unknown>) => new Map(Object.entries(o));

describe('template placeholders', () => {
  test('a whole-string placeholder takes the JSON value: numbers stay numbers, objects stay objects', () => {
    const { manifest, problems } = renderTemplate(
      {
        spec: { parallelism: '{{ workers }}', suspend: '{{suspend}}', template: { spec: '{{podSpec}}' } },
        list: ['{{items}}'],
        nothing: '{{nothing}}',
      },
      values({
        workers: 3,
        suspend: false,
        podSpec: { restartPolicy: 'Never' },
        items: [1, 'a'],
        nothing: null,
      }),
    );
    expect(problems).toEqual([]);
    expect(manifest).toEqual({
      spec: { parallelism: 3, suspend: false, template: { spec: { restartPolicy: 'Never' } } },
      list: [[1, 'a']],
      nothing: null,
    });
  });

  test('quotes and braces in a value cannot change the manifest shape', () => {
    const evil = '"}, "evil": {"x": "';
    const { manifest, problems } = renderTemplate(
      { args: ['--name={{arg}}', '{{arg}}'], metadata: { labels: { a: 'x{{arg}}y' } } },
      values({ arg: evil }),
    );
    expect(problems).toEqual([]);
    expect(manifest).toEqual({
      args: [`--name=${evil}`, evil],
      metadata: { labels: { a: `x${evil}y` } },
    });
    expect(Object.keys(manifest)).toEqual(['args', 'metadata']);
  });

  test('embedded placeholders take the text of strings, numbers and booleans only', () => {
    const ok = renderTemplate(
      { cmd: 'run --n={{n}} --flag={{f}} --s={{s}}' },
      values({ n: 2.5, f: true, s: 'x' }),
    );
    expect(ok.manifest).toEqual({ cmd: 'run --n=2.5 --flag=true --s=x' });
    for (const [value, type] of [
      [{ a: 1 }, 'object'],
      [[1], 'array'],
      [null, 'null'],
    ] as const) {
      const bad = renderTemplate({ spec: { cmd: 'echo {{v}}' } }, values({ v: value }));
      expect(bad.problems).toEqual([
        { kind: 'not_scalar', name: 'v', path: ['spec', 'cmd'], valueType: type },
      ]);
    }
  });

  test('every unresolved placeholder is reported once, with where it is used', () => {
    const { problems } = renderTemplate(
      { a: '{{x}}', b: ['{{x}}', 'y={{y}}'], c: '{{constructor}}', d: '{{__proto__}}' },
      values({}),
    );
    expect(problems).toEqual([
      { kind: 'missing', name: 'x', path: ['a'] },
      { kind: 'missing', name: 'y', path: ['b', 1] },
      { kind: 'missing', name: 'constructor', path: ['c'] },
      { kind: 'missing', name: '__proto__', path: ['d'] },
    ]);
  });

  test('keys are never substituted; inserted values are not expanded again; non-names are literal', () => {
    const { manifest, problems } = renderTemplate(
      { '{{k}}': 'v', go: "docker inspect -f '{{.State.Running}}' {{ c }}", value: '{{v}}' },
      values({ k: 'key', c: 'box', v: '{{k}}' }),
    );
    expect(problems).toEqual([]);
    expect(manifest).toEqual({
      '{{k}}': 'v',
      go: "docker inspect -f '{{.State.Running}}' box",
      value: '{{k}}',
    });
    expect(scanPlaceholders({ a: { '{{k}}': 1, b: ['{{c}}', 'x {{d}}'] } })).toEqual({
      names: ['c', 'd'],
      keysWithPlaceholders: [['a', '{{k}}']],
    });
  });

  test('a "__proto__" key stays data', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "{{v}}"}}') as Record<string, unknown>;
    const { manifest } = renderTemplate(parsed, values({ v: 1 }));
    expect(Object.getOwnPropertyNames(manifest)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a template that reuses a big value many times is refused', () => {
    const big = 'x'.repeat(1000);
    const { problems } = renderTemplate(
      { a: Array.from({ length: 50 }, () => '{{big}}') },
      values({ big }),
      20_000,
    );
    expect(problems).toEqual([{ kind: 'too_large', limit: 20_000 }]);
  });

  test('request parameters override defaults; name and namespace come from the request', () => {
    const v = parameterValues({ a: 1, b: 2 }, { b: 3, c: 4 }, { name: 'job', namespace: 'svc-jobs' });
    expect(Object.fromEntries(v)).toEqual({ a: 1, b: 3, c: 4, name: 'job', namespace: 'svc-jobs' });
    expect(parameterValues(null, undefined, { name: 'n', namespace: 'ns' }).size).toBe(2);
  });
});
