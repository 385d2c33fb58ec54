// `node --import ./block-embedder.mjs ...`: makes @hms/embedder and onnxruntime-node
// unresolvable, as on an installation of hms-mcp without the optional embedder. Tests use it
// to show that the lexical server never needs them.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (/^(@hms\\/embedder|onnxruntime-node|onnxruntime-common)(\\/|$)/.test(specifier)) {
        const error = new Error("Cannot find package '" + specifier + "' (blocked by the test)");
        error.code = "ERR_MODULE_NOT_FOUND";
        throw error;
      }
      return next(specifier, context);
    }
  `)}`,
);
