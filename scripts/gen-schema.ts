/** Writes gateway.schema.json from the zod config schema (run after changing the schema). */
import { writeFileSync } from "node:fs";
import { configJsonSchema } from "../src/config/mod.ts";

const out = new URL("../gateway.schema.json", import.meta.url);
writeFileSync(out, JSON.stringify(configJsonSchema(), null, 2) + "\n");
console.log(`wrote ${out.pathname}`);
