/**
 * Where a JSON text repeats a key inside one object. `JSON.parse` silently keeps the last value, so once a
 * body is parsed the repetition is gone; the Kubernetes API server with `fieldValidation=Strict` refuses
 * it (`duplicate field "spec.backoffLimit"`,
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#setting-the-field-validation-level), so a
 * service that forwards manifests has to look at the text itself.
 *
 * The text must already have passed ./json-scan.ts (valid JSON, nesting within the service's limit): this
 * walk trusts its syntax and recurses once per level.
 */
export type JsonKeyPath = (string | number)[];

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const VALUE_END = new Set([',', ']', '}', ' ', '\t', '\n', '\r']);

/** Paths (from the document's root) of every key that appears again in the same object, in text order. */
export function duplicateKeyPaths(text: string): JsonKeyPath[] {
  const out: JsonKeyPath[] = [];
  const path: JsonKeyPath = [];
  let i = 0;

  const skipWhitespace = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const readString = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const readValue = (): void => {
    skipWhitespace();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      skipWhitespace();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skipWhitespace();
        const key = readString();
        if (seen.has(key)) out.push([...path, key]);
        seen.add(key);
        skipWhitespace();
        i++; // ':'
        path.push(key);
        readValue();
        path.pop();
        skipWhitespace();
        if (text[i++] !== ',') return; // '}'
      }
    }
    if (c === '[') {
      i++;
      skipWhitespace();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        path.push(index);
        readValue();
        path.pop();
        skipWhitespace();
        if (text[i++] !== ',') return; // ']'
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !VALUE_END.has(text[i]!)) i++; // number, true, false, null
  };

  readValue();
  return out;
}

/** `['spec', 'template', 'spec', 'containers', 0, 'name']` → `spec.template.spec.containers[0].name`. */
export function formatKeyPath(path: readonly (string | number)[]): string {
  return path
    .map((part, at) => (typeof part === 'number' ? `[${part}]` : at === 0 ? part : `.${part}`))
    .join('');
}
