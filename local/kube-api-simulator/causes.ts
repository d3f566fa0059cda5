/** Field errors of one object, collected as the API server's StatusCause list (reasons as the real server's). */
import type { StatusCause } from './status.js';

export class Causes {
  readonly list: StatusCause[] = [];

  required(field: string, detail = ''): void {
    this.list.push({
      reason: 'FieldValueRequired',
      message: detail ? `Required value: ${detail}` : 'Required value',
      field,
    });
  }

  invalid(field: string, value: unknown, detail: string): void {
    this.list.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${show(value)}: ${detail}`,
      field,
    });
  }

  unsupported(field: string, value: unknown, supported: string[]): void {
    const sv = supported.map((s) => `"${s}"`).join(', ');
    this.list.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${show(value)}: supported values: ${sv}`,
      field,
    });
  }

  tooLong(field: string, max: number): void {
    this.list.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${max} bytes`,
      field,
    });
  }

  duplicate(field: string, value: unknown): void {
    this.list.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${show(value)}`, field });
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? 'null';
}
