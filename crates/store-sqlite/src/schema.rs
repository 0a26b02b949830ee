//! Schema and forward migrations, versioned by `PRAGMA user_version`.
//!
//! Each migration runs in one `BEGIN IMMEDIATE` transaction together with the version bump,
//! so a database is always at exactly one version, and two processes opening a new database
//! at once cannot both migrate it.

use rusqlite::{Connection, TransactionBehavior};

use oro_mem_text::{index_text, LEXICAL_FIELDS};

use crate::store::SqlContext;
use crate::vectors;

/// Migration `i` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: the memories table. Embedding columns are in place for hybrid mode.
    r#"
    CREATE TABLE memories (
        id            INTEGER PRIMARY KEY,
        content       TEXT    NOT NULL CHECK (length(trim(content)) > 0),
        type          TEXT    NOT NULL
                      CHECK (type IN ('lesson','decision','gotcha','pattern','preference')),
        tags          TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
        source        TEXT    NOT NULL DEFAULT 'manual'
                      CHECK (source IN ('self_report','daemon_extracted','manual','import')),
        bead_id       TEXT,
        worker_id     TEXT,
        namespace     TEXT    NOT NULL DEFAULT 'default',
        metadata      TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
        confidence    REAL    NOT NULL DEFAULT 0.8 CHECK (confidence >= 0.0 AND confidence <= 1.0),
        pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
        status        TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived')),
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        access_count  INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
        last_accessed INTEGER,
        fts_text      TEXT,
        embedding     BLOB,
        embedding_model TEXT,
        embedding_dim INTEGER
    );
    CREATE INDEX memories_namespace_status ON memories (namespace, status, created_at);
    CREATE INDEX memories_created_at ON memories (created_at);
    "#,
    // 2: the FTS5 index over content and tags. External content through a view, so CJK text
    // is indexed as prepared by the application (`fts_text`) and `rebuild` reproduces exactly
    // what the triggers write. Databases that predate the index are indexed by the rebuild.
    r#"
    CREATE VIEW memories_fts_source AS
        SELECT id, coalesce(fts_text, content) AS body, tags FROM memories;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        body, tags,
        content = 'memories_fts_source', content_rowid = 'id',
        tokenize = 'porter unicode61'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, body, tags)
        VALUES (new.id, coalesce(new.fts_text, new.content), new.tags);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, body, tags)
        VALUES ('delete', old.id, coalesce(old.fts_text, old.content), old.tags);
    END;
    CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, fts_text, tags ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, body, tags)
        VALUES ('delete', old.id, coalesce(old.fts_text, old.content), old.tags);
        INSERT INTO memories_fts (rowid, body, tags)
        VALUES (new.id, coalesce(new.fts_text, new.content), new.tags);
    END;
    INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
    "#,
    // 3: the vector index: embeddings (exact in `memories.embedding`) quantized to i8 and
    // packed into chunks, one model per chunk; see `vectors.rs`. Nothing had embeddings
    // before this version, so there is nothing to index yet.
    r#"
    CREATE TABLE vector_chunks (
        id     INTEGER PRIMARY KEY,
        model  TEXT    NOT NULL,
        dim    INTEGER NOT NULL CHECK (dim > 0),
        len    INTEGER NOT NULL CHECK (len >= 0),
        ids    BLOB    NOT NULL,
        scales BLOB    NOT NULL,
        codes  BLOB    NOT NULL
    );
    CREATE INDEX vector_chunks_model ON vector_chunks (model, dim, len);
    CREATE INDEX memories_embedding_model ON memories (embedding_model);
    "#,
    // 4: access counts within [0, 2^53] and whole: versions before this stored an overflowed
    // increment as REAL, which broke every read of the row.
    r#"
    UPDATE memories
       SET access_count = CASE
           WHEN typeof(access_count) NOT IN ('integer', 'real') THEN 0
           WHEN access_count >= 9007199254740992 THEN 9007199254740992
           WHEN access_count < 0 THEN 0
           ELSE CAST(access_count AS INTEGER) END
     WHERE typeof(access_count) != 'integer' OR access_count > 9007199254740992;
    "#,
    // 5: claims on memories being embedded, so that concurrent `embed` runs share the work
    // (`Store::claim_unembedded`). A claim ends at `until` (Unix seconds) or when the
    // embedding is stored.
    r#"
    CREATE TABLE IF NOT EXISTS embed_claims (
        memory_id INTEGER PRIMARY KEY,
        until     INTEGER NOT NULL
    );
    "#,
    // 6: the application id (`store::APPLICATION_ID`, "oro-"), which tells an oro-mem store
    // from other applications' SQLite files before anything is changed.
    r#"
    PRAGMA application_id = 1869770541;
    "#,
    // 7: the sign bits of each vector chunk's rows, scanned before anything else by a vector
    // search (`vectors::search`); `step_to` makes them for the chunks written before.
    r#"
    CREATE TABLE IF NOT EXISTS vector_bits (
        chunk_id INTEGER PRIMARY KEY,
        bits     BLOB    NOT NULL
    );
    "#,
    // 8: the session a memory was written in, and its neighbours in it by time
    // (`CandidateSearch::session_neighbours`, `--session`): made by `add_session`, which
    // adds the column only where it is missing. Read-only access to an older schema sees
    // every session as NULL (`store::shim_older_schema`).
    "",
    // 9: a summary and the files and entities a memory is about, searched with their own
    // weights (`text::LEXICAL_FIELDS`), and how many times recall returned a memory apart
    // from how many times it was used (`access_count`): made by `add_about`, which adds the
    // columns where they are missing and rebuilds the full-text index with them. Read-only
    // access to an older schema sees none (`store::shim_older_schema`).
    "",
    // 10: memories merged by consolidation are kept: status `merged`, with the memory they
    // went into in `merged_into` (and `superseded` is a status, for knowledge updates). Made by
    // `add_merged`.
    "",
    // 11: the `fact` type (versions, commands, paths, architecture: what updates change).
    // Made by `add_fact`.
    "",
    // 12: knowledge updates: a superseded memory's newer version (`superseded_by`) and when
    // it was replaced (`superseded_at`). Made by `add_superseded`.
    "",
    // 13: identifiers indexed by their parts too (`text::index_text`: `DefaultHost` also as
    // `default` and `host`): `index_texts` writes the new `fts_text` of every memory whose
    // indexed text changes, and the update trigger indexes it again.
    "",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Reads `PRAGMA user_version`.
pub(crate) fn version(conn: &Connection) -> rusqlite::Result<u32> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// The step in Rust, if any, that completes migration `version` (to that version), in its
/// transaction after its SQL.
fn step_to(version: u32) -> Option<fn(&Connection) -> oro_mem_core::Result<()>> {
    match version {
        // The sign bits of the chunks an older version wrote, from their codes.
        7 => Some(vectors::fill_missing_bits),
        8 => Some(add_session),
        9 => Some(add_about),
        10 => Some(add_merged),
        11 => Some(add_fact),
        12 => Some(add_superseded),
        13 => Some(index_texts),
        _ => None,
    }
}

/// Adds `column` (with its SQL `definition`) to `memories` unless it is there already, so
/// that a migration can run again over what it made; true when it was added.
fn add_column(conn: &Connection, column: &str, definition: &str) -> rusqlite::Result<bool> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('memories') WHERE name = ?1",
        [column],
        |r| r.get(0),
    )?;
    if !has {
        conn.execute_batch(&format!(
            "ALTER TABLE memories ADD COLUMN {column} {definition}"
        ))?;
    }
    Ok(!has)
}

/// Migration 8: the `session` column, unless a database already has it (like every other
/// migration, this one can run again over what it made), and its index.
fn add_session(conn: &Connection) -> oro_mem_core::Result<()> {
    let context = "cannot add the session column";
    add_column(conn, "session", "TEXT").context(context)?;
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS memories_session \
         ON memories (session, namespace, status, created_at, id) WHERE session IS NOT NULL",
    )
    .context(context)
}

/// Migration 9: the `summary`, `files`, `entities` and `return_count` columns (those
/// missing), and the full-text index over the first three too, rebuilt from every memory.
/// Until this version `access_count` counted what recall returned: that is the return count
/// of every memory so far (whether they were used cannot be known).
fn add_about(conn: &Connection) -> oro_mem_core::Result<()> {
    let context = "cannot add the summary, files, entities and return_count columns";
    for (column, definition) in [
        (
            "return_count",
            "INTEGER NOT NULL DEFAULT 0 CHECK (return_count >= 0)",
        ),
        ("summary", "TEXT"),
        (
            "files",
            "TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(files) AND json_type(files) = 'array')",
        ),
        (
            "entities",
            "TEXT NOT NULL DEFAULT '[]' \
             CHECK (json_valid(entities) AND json_type(entities) = 'array')",
        ),
    ] {
        let added = add_column(conn, column, definition).context(context)?;
        if added && column == "return_count" {
            conn.execute_batch("UPDATE memories SET return_count = access_count")
                .context(context)?;
        }
    }
    conn.execute_batch(FTS_WITH_ABOUT).context(context)?;
    // `rank` (and so every score the store reads) weighs each column as the field it holds.
    let weights: Vec<String> = LEXICAL_FIELDS
        .iter()
        .map(|(_, w)| format!("{w}.0"))
        .collect();
    conn.execute(
        "INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', ?1)",
        [format!("bm25({})", weights.join(", "))],
    )
    .context(context)?;
    Ok(())
}

/// The statuses a memory may have from schema 10 on.
const STATUS_CHECK: &str = "CHECK (status IN ('active','archived','merged','superseded'))";

/// Migration 10: the statuses of [`STATUS_CHECK`], and the `merged_into` column.
///
/// SQLite cannot alter a CHECK constraint, but loosening one changes no stored row, so the
/// table's SQL is edited in place ([`widen_check`]); a table rebuild would have to remake
/// the full-text index's view and triggers too. Runs again over what it made.
fn add_merged(conn: &Connection) -> oro_mem_core::Result<()> {
    let context = "cannot add the merged status";
    widen_check(
        conn,
        "CHECK (status IN ('active','archived'))",
        STATUS_CHECK,
    )
    .context(context)?;
    add_column(conn, "merged_into", "INTEGER").context(context)?;
    Ok(())
}

/// Migration 12: the columns of a superseded memory, its newer version and when it was
/// replaced (the `superseded` status is allowed from schema 10). Runs again over what it made.
fn add_superseded(conn: &Connection) -> oro_mem_core::Result<()> {
    let context = "cannot add the superseded columns";
    add_column(conn, "superseded_by", "INTEGER").context(context)?;
    add_column(conn, "superseded_at", "INTEGER").context(context)?;
    Ok(())
}

/// Migration 13, and the first step of rebuilding the full-text index: each memory's
/// `fts_text` made what [`index_text`] makes of its content now, written only where it
/// changes (the update trigger then indexes that memory again). Runs again over what it made.
pub(crate) fn index_texts(conn: &Connection) -> oro_mem_core::Result<()> {
    let context = "cannot prepare the memories' text for the full-text index";
    let mut changed: Vec<(i64, Option<String>)> = Vec::new();
    {
        let mut rows = conn
            .prepare("SELECT id, content, fts_text FROM memories")
            .context(context)?;
        let mut rows = rows.query([]).context(context)?;
        while let Some(row) = rows.next().context(context)? {
            let content: String = row.get(1).context(context)?;
            let indexed: Option<String> = row.get(2).context(context)?;
            let now = index_text(&content);
            if now != indexed {
                changed.push((row.get(0).context(context)?, now));
            }
        }
    }
    let mut update = conn
        .prepare("UPDATE memories SET fts_text = ?2 WHERE id = ?1")
        .context(context)?;
    for (id, text) in changed {
        update
            .execute(rusqlite::params![id, text])
            .context(context)?;
    }
    Ok(())
}

/// The memory types from schema 11 on.
const TYPE_CHECK: &str =
    "CHECK (type IN ('lesson','decision','gotcha','pattern','preference','fact'))";

/// Migration 11: the types of [`TYPE_CHECK`], in place as in [`add_merged`].
fn add_fact(conn: &Connection) -> oro_mem_core::Result<()> {
    widen_check(
        conn,
        "CHECK (type IN ('lesson','decision','gotcha','pattern','preference'))",
        TYPE_CHECK,
    )
    .context("cannot add the fact type")
}

/// Replaces the CHECK constraint `old` of the `memories` table by `new`, which must allow
/// every row `old` allowed: the table's SQL is edited in place (`writable_schema`, and
/// `schema_version` bumped so that every connection reads the schema again), as SQLite's
/// documentation describes for changes that leave the stored content as it is. Nothing when
/// the table has no `old` (the change was made).
fn widen_check(conn: &Connection, old: &str, new: &str) -> rusqlite::Result<()> {
    let sql: String = conn.query_row(
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'memories'",
        [],
        |r| r.get(0),
    )?;
    if !sql.contains(old) {
        return Ok(());
    }
    let widened = sql.replacen(old, new, 1);
    let version: i64 = conn.query_row("PRAGMA schema_version", [], |r| r.get(0))?;
    conn.pragma_update(None, "writable_schema", true)?;
    let edited = conn.execute(
        "UPDATE sqlite_schema SET sql = ?1 WHERE type = 'table' AND name = 'memories'",
        [&widened],
    );
    let bumped = conn.pragma_update(None, "schema_version", version + 1);
    conn.pragma_update(None, "writable_schema", false)?;
    edited?;
    bumped
}

/// The full-text index of schema 9: external content through a view, as in migration 2,
/// with a column per field of [`oro_mem_text::LEXICAL_FIELDS`].
const FTS_WITH_ABOUT: &str = r#"
    DROP TRIGGER IF EXISTS memories_fts_insert;
    DROP TRIGGER IF EXISTS memories_fts_delete;
    DROP TRIGGER IF EXISTS memories_fts_update;
    DROP TABLE IF EXISTS memories_fts;
    DROP VIEW IF EXISTS memories_fts_source;
    CREATE VIEW memories_fts_source AS
        SELECT id, coalesce(fts_text, content) AS body, tags, summary, files, entities
          FROM memories;
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        body, tags, summary, files, entities,
        content = 'memories_fts_source', content_rowid = 'id',
        tokenize = 'porter unicode61'
    );
    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, body, tags, summary, files, entities)
        VALUES (new.id, coalesce(new.fts_text, new.content), new.tags, new.summary,
                new.files, new.entities);
    END;
    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, body, tags, summary, files, entities)
        VALUES ('delete', old.id, coalesce(old.fts_text, old.content), old.tags, old.summary,
                old.files, old.entities);
    END;
    CREATE TRIGGER memories_fts_update
    AFTER UPDATE OF content, fts_text, tags, summary, files, entities ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, body, tags, summary, files, entities)
        VALUES ('delete', old.id, coalesce(old.fts_text, old.content), old.tags, old.summary,
                old.files, old.entities);
        INSERT INTO memories_fts (rowid, body, tags, summary, files, entities)
        VALUES (new.id, coalesce(new.fts_text, new.content), new.tags, new.summary,
                new.files, new.entities);
    END;
    INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
"#;

/// Applies every migration the database lacks; returns the versions it went from and to.
pub(crate) fn migrate(conn: &mut Connection) -> Result<(u32, u32), MigrateError> {
    let start = version(conn)?;
    if start > SCHEMA_VERSION {
        return Err(MigrateError::TooNew(start));
    }
    let mut current = start;
    while current < SCHEMA_VERSION {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Another process may have migrated while we waited for the lock.
        let v = version(&tx)?;
        if v >= SCHEMA_VERSION {
            current = v;
            break;
        }
        tx.execute_batch(MIGRATIONS[v as usize])?;
        if let Some(step) = step_to(v + 1) {
            step(&tx).map_err(MigrateError::Step)?;
        }
        tx.pragma_update(None, "user_version", v + 1)?;
        tx.commit()?;
        current = v + 1;
    }
    Ok((start, current))
}

/// A migration failure.
#[derive(Debug)]
pub(crate) enum MigrateError {
    TooNew(u32),
    Sql(rusqlite::Error),
    /// A step in Rust failed.
    Step(oro_mem_core::Error),
}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> MigrateError {
        MigrateError::Sql(e)
    }
}

/// Applies migrations up to `target` only; for tests of older databases.
#[cfg(test)]
pub(crate) fn migrate_to(conn: &Connection, target: u32) -> Result<(), MigrateError> {
    for (i, sql) in MIGRATIONS.iter().enumerate().take(target as usize) {
        conn.execute_batch(sql)?;
        if let Some(step) = step_to(i as u32 + 1) {
            step(conn).map_err(MigrateError::Step)?;
        }
        conn.pragma_update(None, "user_version", i as u32 + 1)?;
    }
    Ok(())
}
