/** The view's link to the state: re-render whenever it changes. */
import { useEffect, useState } from "preact/hooks";
import type { Inspector, State } from "./state.js";

export function useInspector(app: Inspector): State {
  const [state, setState] = useState(app.state);
  useEffect(() => {
    const unsubscribe = app.subscribe(() => setState(app.state));
    // A change between the first render and this effect (an answer that came back fast) is
    // not missed.
    setState(app.state);
    return unsubscribe;
  }, [app]);
  return state;
}
