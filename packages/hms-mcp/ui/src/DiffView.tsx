/** A unified diff, coloured: added lines green, removed red, with their line numbers. */
import { parseUnifiedDiff } from "./diff.js";

const SIGN = { add: "+", del: "−", same: "", hunk: "", note: "" } as const;
const SAID = { add: "added", del: "removed", same: "", hunk: "", note: "" } as const;

export function DiffView({ unified, label }: { unified: string; label: string }) {
  const lines = parseUnifiedDiff(unified);
  if (lines.length === 0) {
    return <p class="muted">No change to the text (tags or metadata only).</p>;
  }
  return (
    <table class="diff" aria-label={label}>
      <tbody>
        {lines.map((line, index) => (
          <tr key={index} class={`diff-line ${line.kind}`}>
            <td class="n">{line.oldLine ?? ""}</td>
            <td class="n">{line.newLine ?? ""}</td>
            <td class="sign" aria-hidden="true">
              {SIGN[line.kind]}
            </td>
            <td class="t">
              {SAID[line.kind] ? <span class="visually-hidden">{SAID[line.kind]}: </span> : null}
              {line.text}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
