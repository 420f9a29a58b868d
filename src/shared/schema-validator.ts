/**
 * A JSON Schema validator provider for the SDK's `Client` (and `Server`) that compiles lazily.
 * The SDK's default builds one Ajv instance per client and, as soon as `tools/list` arrives,
 * compiles a validator for every tool that declares an `outputSchema` — with the shipped servers
 * ~25 compiles and three Ajv instances at start (measured 40–200 ms of CPU, competing with the
 * upstreams' own start on the same cores, and generated code kept in memory), for validators only
 * calls through the SDK client ever use. This one compiles a schema the first time a value is
 * checked against it, on one shared Ajv instance: the same checks at the same moments, paid for
 * only when used. An outputSchema Ajv cannot compile now fails that tool's call, not the listing.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

let shared: AjvJsonSchemaValidator | undefined;

/** Compiles each schema on its first use; one Ajv instance for every upstream client. */
export class LazySchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: JsonSchemaValidator<T> | undefined;
    return (input) => {
      compiled ??= (shared ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
      return compiled(input);
    };
  }
}
