/**
 * Recall's answers, in the main pane: one compact row per hit, ranked, with its score (and a
 * bar of it, so a strong hit stands out from weak ones), its path, its lines and its excerpt
 * with the query's words marked. A row opens the file at those lines.
 */
import { NoticeLine } from "./bits.js";
import { useInspector } from "./hooks.js";
import { markTerms } from "./marks.js";
import { formatRoute } from "./route.js";
import type { Inspector } from "./state.js";
import { shortPath } from "./tree.js";

export function RecallResults({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const hits = state.hits ?? [];
  const asked = state.asked ?? "";
  return (
    <section class="results" aria-labelledby="results-title">
      <h2 id="results-title" tabIndex={-1}>
        {hits.length === 0
          ? "No answers"
          : `${hits.length} ${hits.length === 1 ? "answer" : "answers"}`}{" "}
        <span class="muted">for “{asked}”</span>
      </h2>
      <NoticeLine notice={state.searchNotice} />
      {hits.length > 0 ? (
        <>
          <p class="muted small-text">
            Best first. The score is how well a file matches, from 0 to 1; below 0.2 is likely
            noise.
          </p>
          <ol class="hits" aria-label="Recall results">
            {hits.map((hit, index) => {
              const path = shortPath(hit.key);
              const slash = path.lastIndexOf("/");
              return (
                <li key={`${hit.key}:${hit.line_start}`}>
                  <a
                    class="hit"
                    onClick={() => app.hideResults()}
                    href={formatRoute({
                      namespace: state.api?.namespace,
                      file: hit.key,
                      line: hit.line_start,
                      end: hit.line_end,
                    })}
                  >
                    <span class="rank">
                      <span class="visually-hidden">rank </span>
                      {index + 1}
                    </span>
                    <span class="hit-path">
                      {slash >= 0 ? <span class="dir">{path.slice(0, slash + 1)}</span> : null}
                      <span class="name">{path.slice(slash + 1)}</span>
                    </span>
                    <span class="hit-lines">
                      lines {hit.line_start}–{hit.line_end}
                    </span>
                    <span class="score" title="How well it matches, 0 to 1">
                      <span class="score-bar" aria-hidden="true">
                        <span style={{ width: `${Math.round(Math.min(1, hit.score) * 100)}%` }} />
                      </span>
                      {hit.score.toFixed(2)}
                    </span>
                    <span class="excerpt">
                      {markTerms(hit.excerpt, asked).map((piece, at) =>
                        piece.marked ? <mark key={at}>{piece.text}</mark> : piece.text,
                      )}
                    </span>
                  </a>
                </li>
              );
            })}
          </ol>
        </>
      ) : null}
    </section>
  );
}
