/**
 * The nodes the markdown preview is made of (markdown.ts reads a text into them,
 * MarkdownPreview.tsx shows them), and the one rule about what a link may point to.
 */

export type Inline =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "code"; readonly text: string }
  | { readonly type: "strong" | "em" | "del"; readonly children: Inline[] }
  | { readonly type: "link"; readonly href: string; readonly children: Inline[] }
  | { readonly type: "image"; readonly alt: string; readonly src: string }
  | { readonly type: "break" };

export type Align = "left" | "center" | "right" | null;

export interface ListItem {
  /** A task list item's box: true (done), false (to do); null for a plain item. */
  readonly checked: boolean | null;
  readonly children: Block[];
}

export type Block =
  | { readonly type: "heading"; readonly level: 1 | 2 | 3 | 4 | 5 | 6; readonly children: Inline[] }
  | { readonly type: "paragraph"; readonly children: Inline[] }
  | { readonly type: "code"; readonly lang: string; readonly text: string }
  | { readonly type: "quote"; readonly children: Block[] }
  | {
      readonly type: "list";
      readonly ordered: boolean;
      readonly start: number;
      readonly items: ListItem[];
    }
  | { readonly type: "rule" }
  | {
      readonly type: "table";
      readonly align: Align[];
      readonly head: Inline[][];
      /** Each row's own cells, at most as many as the head has (a short row is not padded). */
      readonly rows: Inline[][][];
    };

/** Deepest nesting of quotes, lists and emphasis; deeper text is kept as plain text. */
export const MAX_DEPTH = 16;

/** Targets a link may have: the web and mail. Anything else (javascript:, data:) is text. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) && !/[\s<>"]/.test(trimmed) ? trimmed : undefined;
}
