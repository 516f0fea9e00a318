import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from './mcp-validator.ts';

describe('AjvJsonSchemaValidator (loaded on first use)', () => {
  it("validates with the SDK's Ajv provider", () => {
    const v = new AjvJsonSchemaValidator().getValidator<{ a: number }>({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
    expect(v({ a: 1 })).toEqual({ valid: true, data: { a: 1 }, errorMessage: undefined });
    const bad = v({ a: 'x' });
    expect(bad.valid).toBe(false);
    expect(bad.errorMessage).toMatch(/number/);
  });
});
