/**
 * The `namespaces` tool: which namespaces the caller's token may use, so a client (the web
 * inspector's switcher) can offer them. It opens no store and creates nothing.
 */
import { after } from "../runtime/engines.js";
import type { ServerRunner } from "./types.js";

export const namespacesRunner: ServerRunner<"namespaces"> = (_args, context) => {
  const { grant, defaultNamespace, namespaceArg } = context;
  return after(context.names(), (existing) => {
    // The default namespace is the one a call without a namespace uses, written to or not.
    const listed = [...new Set([...existing, defaultNamespace])]
      .filter((name) => grant.allows(name))
      .sort()
      .map((name) => ({ name }));
    const access = grant.readOnly ? "read-only" : "read-write";
    const shown = listed.map((entry) => entry.name);
    return {
      structured: {
        namespaces: listed,
        default: defaultNamespace,
        namespace_arg: namespaceArg,
        access,
      },
      text:
        (listed.length === 0
          ? "This token may use no namespace that exists yet."
          : `Namespaces this token may use (${access}): ${shown.join(", ")}.`) +
        (namespaceArg
          ? ` Name one with the namespace argument; the default is ${defaultNamespace}.`
          : ` This server serves only ${defaultNamespace} (start it with --namespace-arg to let calls choose).`),
    };
  });
};
