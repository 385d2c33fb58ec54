/**
 * The preview: markdown.ts's nodes as elements. Text is always a text node and the only
 * attribute taken from the file is a link's href, which markdown.ts allows only for http,
 * https and mailto; nothing from the file becomes HTML.
 */
import type { ComponentChildren } from "preact";
import { useMemo } from "preact/hooks";
import { type Block, type Inline, parseMarkdown } from "./markdown.js";

function inlines(nodes: readonly Inline[]): ComponentChildren {
  return nodes.map((node, index) => {
    switch (node.type) {
      case "text":
        return node.text;
      case "code":
        return <code key={index}>{node.text}</code>;
      case "strong":
        return <strong key={index}>{inlines(node.children)}</strong>;
      case "em":
        return <em key={index}>{inlines(node.children)}</em>;
      case "del":
        return <del key={index}>{inlines(node.children)}</del>;
      case "break":
        return <br key={index} />;
      case "link":
        return (
          <a key={index} href={node.href} target="_blank" rel="noopener noreferrer">
            {inlines(node.children)}
          </a>
        );
      case "image":
        // Never loaded: the page loads nothing from elsewhere.
        return (
          <span key={index} class="image-ref">
            [image: {node.alt || "no description"} · {node.src}]
          </span>
        );
      default:
        return null;
    }
  });
}

function blocks(nodes: readonly Block[]): ComponentChildren {
  return nodes.map((node, index) => {
    switch (node.type) {
      case "heading": {
        const Tag = `h${node.level}` as "h1";
        return <Tag key={index}>{inlines(node.children)}</Tag>;
      }
      case "paragraph":
        return <p key={index}>{inlines(node.children)}</p>;
      case "code":
        return (
          <pre key={index}>
            <code>{node.text}</code>
          </pre>
        );
      case "quote":
        return <blockquote key={index}>{blocks(node.children)}</blockquote>;
      case "rule":
        return <hr key={index} />;
      case "list": {
        const items = node.items.map((item, i) => {
          if (item.checked === null) return <li key={i}>{blocks(item.children)}</li>;
          // The box goes inside the item's first paragraph: on the line of its label.
          // Read-only, not disabled: a disabled box is greyed, and done would read as not.
          const box = (
            <input
              type="checkbox"
              checked={item.checked}
              tabIndex={-1}
              aria-readonly="true"
              aria-label={item.checked ? "done" : "to do"}
              onClick={(event) => event.preventDefault()}
            />
          );
          const [first, ...rest] = item.children;
          return (
            <li key={i} class="task">
              {first?.type === "paragraph" ? (
                <p>
                  {box} {inlines(first.children)}
                </p>
              ) : (
                <p>{box}</p>
              )}
              {blocks(first?.type === "paragraph" ? rest : item.children)}
            </li>
          );
        });
        return node.ordered ? (
          <ol key={index} start={node.start}>
            {items}
          </ol>
        ) : (
          <ul key={index}>{items}</ul>
        );
      }
      case "table":
        return (
          <div key={index} class="table-scroll">
            <table>
              <thead>
                <tr>
                  {node.head.map((cell, c) => (
                    <th key={c} class={node.align[c] ? `align-${node.align[c]}` : undefined}>
                      {inlines(cell)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {node.rows.map((row, r) => (
                  <tr key={r}>
                    {row.map((cell, c) => (
                      <td key={c} class={node.align[c] ? `align-${node.align[c]}` : undefined}>
                        {inlines(cell)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      default:
        return null;
    }
  });
}

export function MarkdownPreview({ text }: { text: string }) {
  // Parsed once a text: the page renders again on every change of its state (busy, notices).
  const parsed = useMemo(() => parseMarkdown(text), [text]);
  return (
    <div class="markdown" data-testid="preview">
      {parsed.length === 0 ? <p class="muted">This file is empty.</p> : blocks(parsed)}
    </div>
  );
}
