// `node --import ./worker-dies.mjs ...`: the embedding worker gets a real @hms/embedder that
// ends the worker thread (exit code 7) when asked to embed a text containing DIE_MARKER, as
// a crash or an out-of-memory would. Tests use it to show what the server does then.
import { register } from "node:module";

const wrapper = new URL("./embedder-that-dies.mjs", import.meta.url).href;

register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier === "@hms/embedder" && context.parentURL !== ${JSON.stringify(wrapper)}) {
        return { url: ${JSON.stringify(wrapper)}, shortCircuit: true };
      }
      return next(specifier, context);
    }
  `)}`,
);
