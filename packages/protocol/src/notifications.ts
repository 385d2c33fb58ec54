/**
 * Change notifications (`resources/subscribe`): a `notifications/resources/updated` names the
 * memory file that changed in `params.uri` and says how in `params._meta[CHANGE_META_KEY]`.
 */

/** The `_meta` key of a resources/updated notification that says what changed. */
export const CHANGE_META_KEY = "hms-mcp/change";

/** What `_meta[CHANGE_META_KEY]` holds. */
export type ChangeMeta =
  | {
      /** How the file changed; a move is told for the file it left and the one it made. */
      readonly op: "create" | "update" | "move" | "delete";
      /** The file the change left behind (a move's destination). */
      readonly key: string;
      /** A move's source; null otherwise. */
      readonly from_key: string | null;
      /** Orders a namespace's changes. */
      readonly seq: number;
    }
  | {
      /**
       * More changed under the subscribed URI than the client was told (it did not take its
       * notifications fast enough): read it again.
       */
      readonly overflow: true;
    };
