/**
 * The MCP SDK's JSON Schema validator (Ajv), loaded on first use. The Server validates with it
 * only what an elicitation returns, and `sift mcp` asks for none: loading Ajv and ajv-formats
 * (~135 KB of the bundle's mcp chunk) and making the Ajv instance were on the way to every
 * server's first answer. scripts/build-cli.mjs points the SDK server's own import of its Ajv
 * provider here too, so the bundle evaluates none of Ajv at start; the provider is then
 * required (the SDK's CommonJS build) from node_modules when a schema is first validated.
 */
import { createRequire } from 'node:module';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  #ajv: jsonSchemaValidator | null = null;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (!this.#ajv) {
      const sdk = createRequire(import.meta.url)('@modelcontextprotocol/sdk/validation/ajv') as { AjvJsonSchemaValidator: new () => jsonSchemaValidator };
      this.#ajv = new sdk.AjvJsonSchemaValidator();
    }
    return this.#ajv.getValidator<T>(schema);
  }
}
