/**
 * The PostgreSQL schema: versioned migrations recorded in `hms_schema_migrations`, applied in
 * order, each in its own transaction, under a session advisory lock so that replicas starting
 * together never race (the second waits, then finds nothing to do). Never edit a released
 * migration: append a new one.
 */
import type pg from "pg";
import { connect, type PoolOrUrl } from "./connection.js";
import { WORDS_AS_SQLITE } from "./reindex.js";

/** One step of the schema. */
export interface PgMigration {
  /** The schema version this migration produces (1, 2, ...). */
  readonly version: number;
  /** What it changes, for logs and readers. */
  readonly description: string;
  readonly sql: string;
  /** A step the SQL cannot take, run after it in the same transaction (a data rewrite). */
  readonly data?: (client: pg.ClientBase) => Promise<void>;
}

/** What `migrate` is doing, for logs (the engine prints nothing itself). */
export type PgUpgradeEvent =
  | { readonly type: "start"; readonly fromVersion: number; readonly toVersion: number }
  | { readonly type: "step"; readonly version: number; readonly description: string }
  | {
      readonly type: "end";
      readonly fromVersion: number;
      readonly toVersion: number;
      readonly ms: number;
    };

/** Keys of the advisory lock migrations hold ("hms", 1): one per database. */
const LOCK = [0x686d73, 1];

const ISO_NOW = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description:
      "namespaces (each with its version clock), memories with a full-text vector, their history and last reads",
    sql: `
      -- btree_gin lets one GIN index lead with the namespace, so a term's postings are read
      -- for one namespace only (a trusted extension of PostgreSQL's contrib, PostgreSQL 13+).
      CREATE EXTENSION IF NOT EXISTS btree_gin;
      -- The index reads words as SQLite's FTS5 index does: diacritics folded (unaccent, as
      -- unicode61's remove_diacritics 2: "email" finds "ÉMAIL"), English stems (Snowball's,
      -- where FTS5 has Porter's), and no stopword dropped (a query made only of stopwords
      -- still finds them; lengths count every word). Both extensions are trusted contrib
      -- extensions: the database's owner may create them.
      CREATE EXTENSION IF NOT EXISTS unaccent;
      CREATE TEXT SEARCH DICTIONARY hms_english_stem (TEMPLATE = snowball, Language = english);
      CREATE TEXT SEARCH CONFIGURATION hms_english (COPY = english);
      ALTER TEXT SEARCH CONFIGURATION hms_english
        ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
        WITH unaccent, hms_english_stem;

      -- A namespace's clock gives every write its versions; writes of a namespace lock its
      -- row first (FOR UPDATE), so they serialize as SQLite's writes of one store file do.
      CREATE TABLE hms_namespaces (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name       text COLLATE "C" NOT NULL UNIQUE,
        clock      bigint NOT NULL DEFAULT 0 CHECK (clock >= 0),
        -- BM25's collection statistics, kept by a trigger (the row is locked by every write
        -- of the namespace anyway): how many memories, and their total length in tokens.
        docs       bigint NOT NULL DEFAULT 0,
        doc_tokens bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      -- The index's reading of a text (hms_english), and its length in words, as BM25 needs it.
      CREATE FUNCTION hms_tsv(text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN to_tsvector('hms_english'::regconfig, $1);
      CREATE FUNCTION hms_tsv_length(tsvector) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN (SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer
                FROM unnest($1));

      -- Keys compare as bytes (COLLATE "C"), the code-point order of SQLite's BINARY. Tags
      -- and metadata are kept as given (an array in order; the metadata's JSON text).
      CREATE TABLE hms_memories (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        ns         bigint NOT NULL REFERENCES hms_namespaces (id),
        key        text COLLATE "C" NOT NULL,
        text       text NOT NULL,
        -- PostgreSQL's text cannot hold U+0000: a text that does is kept as its JSON string
        -- (text_json), and indexed with spaces in its place (index_text). See text.ts.
        text_json  boolean NOT NULL DEFAULT false,
        index_text text,
        tags       text[] NOT NULL DEFAULT '{}',
        metadata   text NOT NULL DEFAULT '{}',
        version    bigint NOT NULL CHECK (version >= 1),
        hash       text NOT NULL,
        bytes      integer NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        tsv        tsvector GENERATED ALWAYS AS (hms_tsv(coalesce(index_text, text))) STORED,
        doc_len    integer GENERATED ALWAYS AS
                     (hms_tsv_length(hms_tsv(coalesce(index_text, text)))) STORED,
        UNIQUE (ns, key)
      );
      CREATE INDEX hms_memories_fts ON hms_memories USING gin (ns, tsv);
      CREATE INDEX hms_memories_tags ON hms_memories USING gin (ns, tags);

      -- How many of a namespace's memories hold each lexeme (BM25's document frequency),
      -- kept by the same trigger: a query reads a term's count in one index probe, where
      -- counting its matches would read every memory that holds it.
      CREATE TABLE hms_terms (
        ns     bigint NOT NULL REFERENCES hms_namespaces (id),
        lexeme text COLLATE "C" NOT NULL,
        df     bigint NOT NULL,
        PRIMARY KEY (ns, lexeme)
      );

      CREATE FUNCTION hms_statistics() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE hms_namespaces SET docs = docs - 1, doc_tokens = doc_tokens - OLD.doc_len
          WHERE id = OLD.ns;
          UPDATE hms_terms SET df = df - 1
          WHERE ns = OLD.ns AND lexeme = ANY (tsvector_to_array(OLD.tsv));
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          UPDATE hms_namespaces SET docs = docs + 1, doc_tokens = doc_tokens + NEW.doc_len
          WHERE id = NEW.ns;
          INSERT INTO hms_terms (ns, lexeme, df)
          SELECT NEW.ns, lexeme, 1 FROM unnest(tsvector_to_array(NEW.tsv)) AS lexeme
          ORDER BY lexeme
          ON CONFLICT (ns, lexeme) DO UPDATE SET df = hms_terms.df + 1;
        END IF;
        RETURN NULL;
      END $$;
      -- Only writes of the namespace change these rows, and they hold the namespace's row
      -- lock: they never wait for each other here, nor deadlock.
      CREATE TRIGGER hms_memories_statistics
        AFTER INSERT OR DELETE OR UPDATE OF text, index_text
        ON hms_memories FOR EACH ROW EXECUTE FUNCTION hms_statistics();

      CREATE TABLE hms_memory_history (
        seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        ns       bigint NOT NULL REFERENCES hms_namespaces (id),
        key      text COLLATE "C" NOT NULL,
        op       text NOT NULL CHECK (op IN ('create', 'update', 'move', 'delete')),
        from_key text COLLATE "C",
        version  bigint NOT NULL,
        text     text NOT NULL,
        text_json boolean NOT NULL,
        tags     text[] NOT NULL,
        metadata text NOT NULL,
        hash     text NOT NULL,
        bytes    integer NOT NULL,
        at       text COLLATE "C" NOT NULL,
        actor    text,
        command  text
      );
      CREATE INDEX hms_memory_history_key ON hms_memory_history (ns, key, seq);
      CREATE INDEX hms_memory_history_from ON hms_memory_history (ns, from_key, seq)
        WHERE from_key IS NOT NULL;
      CREATE INDEX hms_memory_history_at ON hms_memory_history (ns, at);

      -- History of memory files, written in the write's own transaction. The attribution is
      -- the transaction's (set_config(..., true) by the store before it writes).
      CREATE FUNCTION hms_record_history() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        who  text := nullif(current_setting('hms.actor', true), '');
        what text := nullif(current_setting('hms.command', true), '');
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF substr(NEW.key, 1, 10) = '/memories/' THEN
            INSERT INTO hms_memory_history
              (ns, key, op, from_key, version, text, text_json, tags, metadata, hash, bytes, at, actor, command)
            VALUES (NEW.ns, NEW.key, 'create', NULL, NEW.version, NEW.text, NEW.text_json, NEW.tags,
              NEW.metadata, NEW.hash, NEW.bytes, NEW.updated_at, who, what);
          END IF;
        ELSIF TG_OP = 'UPDATE' THEN
          IF NEW.version IS DISTINCT FROM OLD.version
             AND (substr(NEW.key, 1, 10) = '/memories/' OR substr(OLD.key, 1, 10) = '/memories/') THEN
            INSERT INTO hms_memory_history
              (ns, key, op, from_key, version, text, text_json, tags, metadata, hash, bytes, at, actor, command)
            VALUES (NEW.ns, NEW.key,
              CASE WHEN NEW.key = OLD.key THEN 'update' ELSE 'move' END,
              CASE WHEN NEW.key = OLD.key THEN NULL ELSE OLD.key END,
              NEW.version, NEW.text, NEW.text_json, NEW.tags, NEW.metadata, NEW.hash, NEW.bytes,
              NEW.updated_at, who, what);
          END IF;
        ELSIF substr(OLD.key, 1, 10) = '/memories/' THEN
          INSERT INTO hms_memory_history
            (ns, key, op, from_key, version, text, text_json, tags, metadata, hash, bytes, at, actor, command)
          VALUES (OLD.ns, OLD.key, 'delete', NULL, OLD.version, OLD.text, OLD.text_json, OLD.tags,
            OLD.metadata, OLD.hash, OLD.bytes, ${ISO_NOW}, who, what);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hms_memories_history AFTER INSERT OR UPDATE OR DELETE ON hms_memories
        FOR EACH ROW EXECUTE FUNCTION hms_record_history();

      -- The day each memory was last read (see @hms/store's access.ts).
      CREATE TABLE hms_memory_access (
        memory_id bigint PRIMARY KEY REFERENCES hms_memories (id) ON DELETE CASCADE,
        read_on   text COLLATE "C" NOT NULL
      );
    `,
  },
  {
    version: 2,
    description:
      "hybrid recall: each namespace's embedding model, passage vectors per memory, the embedding queue with leased claims, and a vector change counter",
    sql: `
      -- The model whose vectors a namespace holds (vectors of two models cannot be compared).
      -- A namespace without a row is lexical: its writes queue nothing.
      CREATE TABLE hms_embedding_models (
        ns         bigint PRIMARY KEY REFERENCES hms_namespaces (id) ON DELETE CASCADE,
        model      text NOT NULL,
        dimensions integer NOT NULL CHECK (dimensions BETWEEN 1 AND 8192),
        -- Bumped whenever the namespace's vectors change: a replica's in-memory copy of them
        -- is current only while its counter matches this one.
        changes    bigint NOT NULL DEFAULT 0
      );

      -- A memory's passages: 1-based inclusive line ranges and their float32 vectors
      -- (little-endian, passage after passage), computed from the text whose hash is kept.
      CREATE TABLE hms_memory_vectors (
        memory_id  bigint PRIMARY KEY REFERENCES hms_memories (id) ON DELETE CASCADE,
        ns         bigint NOT NULL REFERENCES hms_namespaces (id) ON DELETE CASCADE,
        hash       text NOT NULL,
        line_start integer[] NOT NULL,
        line_end   integer[] NOT NULL,
        vectors    bytea NOT NULL
      );
      CREATE INDEX hms_memory_vectors_ns ON hms_memory_vectors (ns);

      -- Memories waiting for vectors. A replica claims rows (FOR UPDATE SKIP LOCKED) and
      -- leases them until claimed_until; a claim whose replica died is taken over once it
      -- expires. The newest queued (highest seq) are embedded first.
      CREATE TABLE hms_embedding_queue (
        memory_id     bigint PRIMARY KEY REFERENCES hms_memories (id) ON DELETE CASCADE,
        ns            bigint NOT NULL REFERENCES hms_namespaces (id) ON DELETE CASCADE,
        seq           bigint GENERATED ALWAYS AS IDENTITY,
        claimed_by    text,
        claimed_until timestamptz
      );
      CREATE INDEX hms_embedding_queue_seq ON hms_embedding_queue (seq);
      CREATE INDEX hms_embedding_queue_ns ON hms_embedding_queue (ns);

      -- A new text is queued in its write's own transaction (a move keeps its id, its text
      -- and so its vectors). Queuing again releases any claim: the claimant's vectors would
      -- be of the old text, and saving checks the hash anyway.
      CREATE FUNCTION hms_queue_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND NEW.hash IS NOT DISTINCT FROM OLD.hash THEN
          RETURN NULL;
        END IF;
        IF EXISTS (SELECT 1 FROM hms_embedding_models WHERE ns = NEW.ns) THEN
          DELETE FROM hms_embedding_queue WHERE memory_id = NEW.id;
          INSERT INTO hms_embedding_queue (memory_id, ns) VALUES (NEW.id, NEW.ns);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hms_memories_embedding AFTER INSERT OR UPDATE OF text, hash ON hms_memories
        FOR EACH ROW EXECUTE FUNCTION hms_queue_embedding();

      -- Any change to a namespace's vectors (saved, replaced, deleted with their memory)
      -- bumps its counter, in the same transaction.
      CREATE FUNCTION hms_count_vector_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE hms_embedding_models SET changes = changes + 1
        WHERE ns = CASE WHEN TG_OP = 'DELETE' THEN OLD.ns ELSE NEW.ns END;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hms_memory_vectors_changes AFTER INSERT OR UPDATE OR DELETE
        ON hms_memory_vectors FOR EACH ROW EXECUTE FUNCTION hms_count_vector_change();
    `,
  },
  {
    version: 3,
    description:
      "BM25 statistics: a text update changes only the document frequencies of the lexemes it gains or loses, in one statement",
    sql: `
      -- A memory's update used to take 1 off every lexeme of its old text and add 1 to every
      -- lexeme of its new one: an edit of one word touched two rows per distinct word. Now an
      -- update applies the difference (+1 gained, -1 lost) in one upsert and leaves the rows of
      -- the words it kept alone; the namespace's row is updated once. Inserts and deletes are
      -- as before. Writes of a namespace still hold its row lock, so they never race here.
      CREATE OR REPLACE FUNCTION hms_statistics() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.ns = NEW.ns THEN
          IF NEW.doc_len <> OLD.doc_len THEN
            UPDATE hms_namespaces SET doc_tokens = doc_tokens + NEW.doc_len - OLD.doc_len
            WHERE id = NEW.ns;
          END IF;
          INSERT INTO hms_terms (ns, lexeme, df)
          SELECT NEW.ns, coalesce(gained.lexeme, lost.lexeme),
                 CASE WHEN gained.lexeme IS NULL THEN -1 ELSE 1 END
          FROM unnest(tsvector_to_array(NEW.tsv)) AS gained (lexeme)
          FULL JOIN unnest(tsvector_to_array(OLD.tsv)) AS lost (lexeme)
            ON gained.lexeme = lost.lexeme
          WHERE gained.lexeme IS NULL OR lost.lexeme IS NULL
          ORDER BY 2
          ON CONFLICT (ns, lexeme) DO UPDATE SET df = hms_terms.df + EXCLUDED.df;
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE hms_namespaces SET docs = docs - 1, doc_tokens = doc_tokens - OLD.doc_len
          WHERE id = OLD.ns;
          UPDATE hms_terms SET df = df - 1
          WHERE ns = OLD.ns AND lexeme = ANY (tsvector_to_array(OLD.tsv));
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          UPDATE hms_namespaces SET docs = docs + 1, doc_tokens = doc_tokens + NEW.doc_len
          WHERE id = NEW.ns;
          INSERT INTO hms_terms (ns, lexeme, df)
          SELECT NEW.ns, lexeme, 1 FROM unnest(tsvector_to_array(NEW.tsv)) AS lexeme
          ORDER BY lexeme
          ON CONFLICT (ns, lexeme) DO UPDATE SET df = hms_terms.df + 1;
        END IF;
        RETURN NULL;
      END $$;
    `,
  },
  {
    version: 4,
    description:
      "incremental dense copies: which memories' vectors changed at which value of their namespace's change counter",
    sql: `
      -- One row per memory whose vectors ever changed in the namespace, holding the counter
      -- value of its latest change (a deleted memory's row stays, as a tombstone). A replica
      -- whose copy of the namespace's vectors is at counter C applies the rows with
      -- changed > C, rather than reading every vector again. The counter's row is locked by
      -- each change until its transaction commits, so counter values follow commit order and
      -- one statement's snapshot holds every change up to the counter it reads.
      -- No foreign key to hms_namespaces: deleting a namespace cascades to its vectors, whose
      -- trigger would log into a namespace being deleted.
      CREATE TABLE hms_vector_changes (
        ns        bigint NOT NULL,
        memory_id bigint NOT NULL,
        changed   bigint NOT NULL,
        PRIMARY KEY (ns, memory_id)
      );
      CREATE INDEX hms_vector_changes_changed ON hms_vector_changes (ns, changed);

      -- Counts every change to a namespace's vectors (as migration 2's did) and logs it.
      CREATE OR REPLACE FUNCTION hms_count_vector_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        row_ns    bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.ns ELSE NEW.ns END;
        row_id    bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.memory_id ELSE NEW.memory_id END;
        counter   bigint;
      BEGIN
        UPDATE hms_embedding_models SET changes = changes + 1 WHERE ns = row_ns
          RETURNING changes INTO counter;
        IF counter IS NOT NULL THEN
          INSERT INTO hms_vector_changes (ns, memory_id, changed) VALUES (row_ns, row_id, counter)
            ON CONFLICT (ns, memory_id) DO UPDATE SET changed = excluded.changed;
        END IF;
        RETURN NULL;
      END $$;
    `,
  },
  {
    version: 5,
    description:
      "pruned change log: the counter value up to which deleted memories' rows were dropped",
    sql: `
      -- A deleted memory's row in hms_vector_changes (a tombstone) is needed only by a replica
      -- whose copy is older than the deletion. pruneVectorChanges (vector-changes.ts) drops the
      -- tombstones at or below a horizon and raises pruned_through to it in the same statement;
      -- a copy older than pruned_through cannot tell what was deleted, so it is read whole.
      ALTER TABLE hms_embedding_models ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 6,
    description:
      "a bounded history: versions kept as splices of the next newer one (or not at all while they are the memory's text now), each namespace's history and live text bytes, and what the history dropped and why",
    sql: `
      -- As @hms/store's SQLite schema 8 (see history-delta.ts there). stored: 'full' (every
      -- row written before), 'live' (the memory's text now: none kept) or 'delta' (a splice
      -- of the text of the newer row base: keep head characters from its start and tail from
      -- its end, with text between them). run: splices in a row ending at this one. A row
      -- depends only on newer ones, and dropping a row drops the older ones kept as its
      -- splices (cascade).
      ALTER TABLE hms_memory_history
        ADD COLUMN stored text NOT NULL DEFAULT 'full' CHECK (stored IN ('full', 'live', 'delta')),
        ADD COLUMN base bigint REFERENCES hms_memory_history (seq) ON DELETE CASCADE,
        ADD COLUMN head integer,
        ADD COLUMN tail integer,
        ADD COLUMN run integer NOT NULL DEFAULT 0;
      CREATE INDEX hms_memory_history_base ON hms_memory_history (base) WHERE base IS NOT NULL;
      -- The oldest rows of one namespace, for the byte budget.
      CREATE INDEX hms_memory_history_ns_seq ON hms_memory_history (ns, seq);

      -- What a row costs the byte budget: the same sum as SQLite's HISTORY_ROW_COST (tags
      -- counted as their JSON text, as SQLite keeps them).
      CREATE FUNCTION hms_history_cost(h hms_memory_history) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN octet_length(h.text) + 2 * octet_length(h.key)
          + 2 * coalesce(octet_length(h.from_key), 0) + octet_length(array_to_json(h.tags)::text)
          + octet_length(h.metadata) + octet_length(h.hash) + coalesce(octet_length(h.actor), 0)
          + coalesce(octet_length(h.command), 0) + 64;

      -- Kept by triggers, in each write's own transaction (which holds the namespace's row
      -- lock): the bytes of the memories' texts, and what the history's rows cost and count.
      ALTER TABLE hms_namespaces
        ADD COLUMN live_bytes bigint NOT NULL DEFAULT 0,
        ADD COLUMN history_bytes bigint NOT NULL DEFAULT 0,
        ADD COLUMN history_rows bigint NOT NULL DEFAULT 0;
      UPDATE hms_namespaces n SET
        live_bytes = coalesce((SELECT sum(m.bytes) FROM hms_memories m WHERE m.ns = n.id), 0),
        history_bytes = coalesce(
          (SELECT sum(hms_history_cost(h)) FROM hms_memory_history h WHERE h.ns = n.id), 0),
        history_rows = (SELECT count(*) FROM hms_memory_history h WHERE h.ns = n.id);

      CREATE FUNCTION hms_count_live() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE hms_namespaces SET live_bytes = live_bytes + NEW.bytes WHERE id = NEW.ns;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE hms_namespaces SET live_bytes = live_bytes - OLD.bytes WHERE id = OLD.ns;
        ELSIF NEW.bytes IS DISTINCT FROM OLD.bytes THEN
          UPDATE hms_namespaces SET live_bytes = live_bytes + NEW.bytes - OLD.bytes WHERE id = NEW.ns;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hms_memories_live_bytes AFTER INSERT OR DELETE OR UPDATE OF bytes
        ON hms_memories FOR EACH ROW EXECUTE FUNCTION hms_count_live();

      CREATE FUNCTION hms_count_history() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE hms_namespaces SET history_bytes = history_bytes + hms_history_cost(NEW),
            history_rows = history_rows + 1 WHERE id = NEW.ns;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE hms_namespaces SET history_bytes = history_bytes - hms_history_cost(OLD),
            history_rows = history_rows - 1 WHERE id = OLD.ns;
        ELSE
          UPDATE hms_namespaces
            SET history_bytes = history_bytes + hms_history_cost(NEW) - hms_history_cost(OLD)
            WHERE id = NEW.ns;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hms_memory_history_bytes AFTER INSERT OR DELETE OR UPDATE
        ON hms_memory_history FOR EACH ROW EXECUTE FUNCTION hms_count_history();

      -- Per namespace and reason ('bytes': the budget; 'disk_full'; 'versions' and 'days':
      -- retention): changes dropped, the time of the newest of them, when they were last
      -- dropped.
      CREATE TABLE hms_history_dropped (
        ns      bigint NOT NULL REFERENCES hms_namespaces (id),
        reason  text NOT NULL CHECK (reason IN ('bytes', 'disk_full', 'versions', 'days')),
        changes bigint NOT NULL,
        through text COLLATE "C" NOT NULL,
        at      text COLLATE "C" NOT NULL,
        PRIMARY KEY (ns, reason)
      );

      CREATE FUNCTION hms_record_drop(p_ns bigint, p_reason text, p_changes bigint,
        p_through text) RETURNS void LANGUAGE sql AS $$
        INSERT INTO hms_history_dropped AS d (ns, reason, changes, through, at)
        SELECT p_ns, p_reason, p_changes, p_through, ${ISO_NOW} WHERE p_changes > 0
        ON CONFLICT (ns, reason) DO UPDATE SET changes = d.changes + excluded.changes,
          through = greatest(d.through, excluded.through), at = excluded.at;
      $$;

      -- Drops the namespace's oldest rows, in order, until they cost at least p_bytes (at
      -- least one, at most p_rows), with the older rows kept as their splices; records them.
      -- Returns how many rows went.
      CREATE FUNCTION hms_drop_oldest_history(p_ns bigint, p_bytes bigint, p_reason text,
        p_rows bigint) RETURNS bigint LANGUAGE plpgsql AS $$
      DECLARE
        v_freed  bigint := 0;
        v_taken  bigint := 0;
        v_last   bigint;
        v_newest text COLLATE "C" := '';
        v_before bigint;
        v_after  bigint;
        r        record;
      BEGIN
        FOR r IN SELECT h.seq, h.at, hms_history_cost(h) AS cost FROM hms_memory_history h
                 WHERE h.ns = p_ns ORDER BY h.seq LOOP
          v_last := r.seq;
          IF r.at > v_newest THEN v_newest := r.at; END IF;
          v_freed := v_freed + r.cost;
          v_taken := v_taken + 1;
          EXIT WHEN v_freed >= p_bytes OR v_taken >= p_rows;
        END LOOP;
        IF v_last IS NULL THEN RETURN 0; END IF;
        SELECT history_rows INTO v_before FROM hms_namespaces WHERE id = p_ns;
        DELETE FROM hms_memory_history WHERE ns = p_ns AND seq <= v_last;
        SELECT history_rows INTO v_after FROM hms_namespaces WHERE id = p_ns;
        PERFORM hms_record_drop(p_ns, p_reason, v_before - v_after, v_newest);
        RETURN v_before - v_after;
      END $$;

      -- Within a write: drops the oldest history while the namespace's history costs more
      -- than its budget (hms.history_bytes, set by the store for the transaction, else the
      -- default 8 MiB; 0: none) or its live text, whichever is more; at most 16 MiB per call
      -- (a history far over it comes down in steps: later writes, retention's prune).
      CREATE FUNCTION hms_history_within_budget(p_ns bigint) RETURNS void
        LANGUAGE plpgsql AS $$
      DECLARE
        v_budget bigint := coalesce(
          nullif(current_setting('hms.history_bytes', true), '')::bigint, 8388608);
        v_excess bigint;
      BEGIN
        IF v_budget = 0 THEN RETURN; END IF;
        SELECT history_bytes - greatest(v_budget, live_bytes) INTO v_excess
        FROM hms_namespaces WHERE id = p_ns;
        IF v_excess > 0 THEN
          PERFORM hms_drop_oldest_history(p_ns, least(v_excess, 16777216), 'bytes',
            9223372036854775807);
        END IF;
      END $$;

      -- How many characters two texts share from the start (head) and, beyond that, from the
      -- end (tail). Binary searches over their UTF-8 bytes (comparing byte strings copies
      -- them, where left() and right() would decode characters at every step), then each
      -- length moved back to a character's first byte and counted in characters.
      CREATE FUNCTION hms_common_ends(a text, b text, OUT head integer, OUT tail integer)
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
      DECLARE
        x   bytea := convert_to(a, 'UTF8');
        y   bytea := convert_to(b, 'UTF8');
        lx  integer := length(x);
        ly  integer := length(y);
        lo  integer := 0;
        hi  integer := least(lx, ly);
        mid integer;
        hb  integer;
      BEGIN
        IF substring(x FROM 1 FOR hi) = substring(y FROM 1 FOR hi) THEN
          lo := hi;
        ELSE
          WHILE hi - lo > 1 LOOP
            mid := (lo + hi) / 2;
            IF substring(x FROM 1 FOR mid) = substring(y FROM 1 FOR mid) THEN lo := mid;
            ELSE hi := mid; END IF;
          END LOOP;
        END IF;
        -- A byte 10xxxxxx continues a character: the shared bytes end before it starts.
        WHILE lo > 0 AND lo < lx AND get_byte(x, lo) BETWEEN 128 AND 191 LOOP lo := lo - 1; END LOOP;
        hb := lo;
        head := length(convert_from(substring(x FROM 1 FOR hb), 'UTF8'));
        lo := 0;
        hi := least(lx, ly) - hb;
        IF hi > 0 AND substring(x FROM lx - hi + 1) = substring(y FROM ly - hi + 1) THEN
          lo := hi;
        ELSE
          WHILE hi - lo > 1 LOOP
            mid := (lo + hi) / 2;
            IF substring(x FROM lx - mid + 1) = substring(y FROM ly - mid + 1) THEN lo := mid;
            ELSE hi := mid; END IF;
          END LOOP;
        END IF;
        WHILE lo > 0 AND get_byte(x, lx - lo) BETWEEN 128 AND 191 LOOP lo := lo - 1; END LOOP;
        tail := length(convert_from(substring(x FROM lx - lo + 1), 'UTF8'));
      END $$;

      -- The row of the version a change replaced (the key's newest before p_seq, if it is
      -- that version's live row) keeps a splice of the text the change left (p_newer), or its
      -- whole text when a splice would be more than half of it, when the run of splices would
      -- pass 64, or when either text is kept as JSON (it holds U+0000).
      CREATE FUNCTION hms_keep_replaced(p_old hms_memories, p_newer text, p_newer_json boolean,
        p_seq bigint) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        v_prev   hms_memory_history;
        v_head   integer;
        v_tail   integer;
        v_middle text;
        v_run    integer;
      BEGIN
        SELECT * INTO v_prev FROM hms_memory_history h
        WHERE h.ns = p_old.ns AND h.key = p_old.key AND h.seq < p_seq ORDER BY h.seq DESC LIMIT 1;
        IF NOT FOUND OR v_prev.stored <> 'live' OR v_prev.version <> p_old.version THEN
          RETURN;
        END IF;
        IF NOT (p_old.text_json OR p_newer_json) THEN
          SELECT e.head, e.tail INTO v_head, v_tail FROM hms_common_ends(p_old.text, p_newer) e;
          v_middle := substr(p_old.text, v_head + 1, length(p_old.text) - v_head - v_tail);
          v_run := 1 + coalesce((SELECT p.run FROM hms_memory_history p
                                 WHERE p.base = v_prev.seq AND p.stored = 'delta'), 0);
          IF v_run <= 64 AND length(v_middle) <= 0.5 * length(p_old.text) THEN
            UPDATE hms_memory_history SET stored = 'delta', text = v_middle, text_json = false,
              base = p_seq, head = v_head, tail = v_tail, run = v_run
            WHERE seq = v_prev.seq;
            RETURN;
          END IF;
        END IF;
        UPDATE hms_memory_history SET stored = 'full', text = p_old.text,
          text_json = p_old.text_json, base = NULL, head = NULL, tail = NULL, run = 0
        WHERE seq = v_prev.seq;
      END $$;

      -- Records every change of a memory file as migration 1's function did, keeping texts as
      -- above, and keeps the namespace's history within its budget.
      CREATE OR REPLACE FUNCTION hms_record_history() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        who  text := nullif(current_setting('hms.actor', true), '');
        what text := nullif(current_setting('hms.command', true), '');
        live    boolean;
        new_seq bigint;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          IF substr(NEW.key, 1, 10) = '/memories/' THEN
            INSERT INTO hms_memory_history (ns, key, op, from_key, version, text, text_json,
              stored, tags, metadata, hash, bytes, at, actor, command)
            VALUES (NEW.ns, NEW.key, 'create', NULL, NEW.version, '', false, 'live', NEW.tags,
              NEW.metadata, NEW.hash, NEW.bytes, NEW.updated_at, who, what);
            PERFORM hms_history_within_budget(NEW.ns);
          END IF;
        ELSIF TG_OP = 'UPDATE' THEN
          IF NEW.version IS DISTINCT FROM OLD.version
             AND (substr(NEW.key, 1, 10) = '/memories/' OR substr(OLD.key, 1, 10) = '/memories/') THEN
            live := substr(NEW.key, 1, 10) = '/memories/';
            INSERT INTO hms_memory_history (ns, key, op, from_key, version, text, text_json,
              stored, tags, metadata, hash, bytes, at, actor, command)
            VALUES (NEW.ns, NEW.key,
              CASE WHEN NEW.key = OLD.key THEN 'update' ELSE 'move' END,
              CASE WHEN NEW.key = OLD.key THEN NULL ELSE OLD.key END,
              NEW.version, CASE WHEN live THEN '' ELSE NEW.text END,
              CASE WHEN live THEN false ELSE NEW.text_json END,
              CASE WHEN live THEN 'live' ELSE 'full' END,
              NEW.tags, NEW.metadata, NEW.hash, NEW.bytes, NEW.updated_at, who, what)
            RETURNING hms_memory_history.seq INTO new_seq;
            PERFORM hms_keep_replaced(OLD, NEW.text, NEW.text_json, new_seq);
            PERFORM hms_history_within_budget(NEW.ns);
          END IF;
        ELSIF substr(OLD.key, 1, 10) = '/memories/' THEN
          INSERT INTO hms_memory_history (ns, key, op, from_key, version, text, text_json,
            stored, tags, metadata, hash, bytes, at, actor, command)
          VALUES (OLD.ns, OLD.key, 'delete', NULL, OLD.version, OLD.text, OLD.text_json, 'full',
            OLD.tags, OLD.metadata, OLD.hash, OLD.bytes, ${ISO_NOW}, who, what)
          RETURNING hms_memory_history.seq INTO new_seq;
          PERFORM hms_keep_replaced(OLD, OLD.text, OLD.text_json, new_seq);
          PERFORM hms_history_within_budget(OLD.ns);
        END IF;
        RETURN NULL;
      END $$;
    `,
  },
  {
    version: 7,
    description:
      "BM25 statistics: a lexeme no memory of the namespace holds any more leaves hms_terms, so churn of new words does not grow it",
    sql: `
      -- A lexeme's row stayed, with df 0, after the last memory holding it was deleted or
      -- edited: a namespace whose files come and go (each with words of its own) grew
      -- hms_terms without bound (400 files of 25 KB of new words, created and deleted: 14 MB
      -- of rows for nothing). Now the write that takes a lexeme's count to 0 deletes its row
      -- (recall reads a missing row as 0). Otherwise as migration 3's function.
      CREATE OR REPLACE FUNCTION hms_statistics() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.ns = NEW.ns THEN
          IF NEW.doc_len <> OLD.doc_len THEN
            UPDATE hms_namespaces SET doc_tokens = doc_tokens + NEW.doc_len - OLD.doc_len
            WHERE id = NEW.ns;
          END IF;
          INSERT INTO hms_terms (ns, lexeme, df)
          SELECT NEW.ns, coalesce(gained.lexeme, lost.lexeme),
                 CASE WHEN gained.lexeme IS NULL THEN -1 ELSE 1 END
          FROM unnest(tsvector_to_array(NEW.tsv)) AS gained (lexeme)
          FULL JOIN unnest(tsvector_to_array(OLD.tsv)) AS lost (lexeme)
            ON gained.lexeme = lost.lexeme
          WHERE gained.lexeme IS NULL OR lost.lexeme IS NULL
          ORDER BY 2
          ON CONFLICT (ns, lexeme) DO UPDATE SET df = hms_terms.df + EXCLUDED.df;
          DELETE FROM hms_terms WHERE ns = NEW.ns AND df = 0 AND lexeme IN (
            SELECT unnest(tsvector_to_array(OLD.tsv))
            EXCEPT SELECT unnest(tsvector_to_array(NEW.tsv)));
          RETURN NULL;
        END IF;
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          UPDATE hms_namespaces SET docs = docs - 1, doc_tokens = doc_tokens - OLD.doc_len
          WHERE id = OLD.ns;
          UPDATE hms_terms SET df = df - 1
          WHERE ns = OLD.ns AND lexeme = ANY (tsvector_to_array(OLD.tsv));
          DELETE FROM hms_terms
          WHERE ns = OLD.ns AND lexeme = ANY (tsvector_to_array(OLD.tsv)) AND df = 0;
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          UPDATE hms_namespaces SET docs = docs + 1, doc_tokens = doc_tokens + NEW.doc_len
          WHERE id = NEW.ns;
          INSERT INTO hms_terms (ns, lexeme, df)
          SELECT NEW.ns, lexeme, 1 FROM unnest(tsvector_to_array(NEW.tsv)) AS lexeme
          ORDER BY lexeme
          ON CONFLICT (ns, lexeme) DO UPDATE SET df = hms_terms.df + 1;
        END IF;
        RETURN NULL;
      END $$;
      DELETE FROM hms_terms WHERE df = 0;
    `,
  },
  {
    // Self-contained (it reads no other migration's objects), so it can take another number
    // if migrations meet at a merge.
    version: 8,
    description:
      "an index on each memory's last change (updated_at) within its namespace, so that " +
      "recall filtered by time reads the memories in a time range without looking at the others",
    sql: `
      CREATE INDEX hms_memories_updated_at ON hms_memories (ns, updated_at);
    `,
  },
  WORDS_AS_SQLITE,
];

/** The schema version this code needs. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

const CREATE_TABLE = `
  CREATE TABLE IF NOT EXISTS hms_schema_migrations (
    version     integer PRIMARY KEY,
    description text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
  )`;

/** The schema version a connection's database is at (0: none). */
async function currentVersion(client: pg.ClientBase): Promise<number> {
  const found = await client.query<{ v: number | null }>(
    "SELECT to_regclass('hms_schema_migrations') IS NOT NULL AS v",
  );
  if (!found.rows[0]?.v) return 0;
  const { rows } = await client.query<{ v: number }>(
    "SELECT coalesce(max(version), 0)::integer AS v FROM hms_schema_migrations",
  );
  return rows[0]?.v ?? 0;
}

/**
 * Brings the database's schema up to date: takes the migration lock (waiting for another
 * process's migration to finish), applies what is missing, one transaction per migration.
 * Refuses a database whose schema is newer than this code. Returns the versions before and
 * after.
 */
export async function migrate(
  target: PoolOrUrl,
  options: { onUpgrade?: ((event: PgUpgradeEvent) => void) | undefined } = {},
): Promise<{ fromVersion: number; toVersion: number }> {
  return await connect(target, async (client) => {
    await client.query("SELECT pg_advisory_lock($1, $2)", LOCK);
    try {
      await client.query(CREATE_TABLE);
      const from = await currentVersion(client);
      if (from > SCHEMA_VERSION) {
        throw new Error(
          `the database's schema is at version ${from}, newer than this code's ${SCHEMA_VERSION}: upgrade @hms/store-postgres (hms-mcp) before using this database`,
        );
      }
      const pending = MIGRATIONS.filter((m) => m.version > from);
      if (pending.length === 0) return { fromVersion: from, toVersion: from };
      const started = Date.now();
      options.onUpgrade?.({ type: "start", fromVersion: from, toVersion: SCHEMA_VERSION });
      for (const migration of pending) {
        options.onUpgrade?.({ type: "step", ...migration });
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await migration.data?.(client);
          await client.query(
            "INSERT INTO hms_schema_migrations (version, description) VALUES ($1, $2)",
            [migration.version, migration.description],
          );
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        }
      }
      const ms = Date.now() - started;
      options.onUpgrade?.({ type: "end", fromVersion: from, toVersion: SCHEMA_VERSION, ms });
      return { fromVersion: from, toVersion: SCHEMA_VERSION };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", LOCK).catch(() => {});
    }
  });
}

/**
 * The schema version of the database and the one this code needs, for readiness checks
 * (`/readyz`: ready when `current === required`).
 */
export async function schemaStatus(
  target: PoolOrUrl,
): Promise<{ current: number; required: number }> {
  const current = await connect(target, currentVersion);
  return { current, required: SCHEMA_VERSION };
}
