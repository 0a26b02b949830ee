//! The write path: remembering (validation, duplicate checks, the embeddings given), reading
//! another store for a merge, the memories that lack an embedding and adding theirs, and
//! consolidation.

use std::collections::BTreeMap;
use std::path::Path;

use oro_mem_core::memory::{CONTEXT_MEMORIES, MAX_ACCESS_COUNT};
use oro_mem_core::store::{check_vector, superseded, Embedding, OtherMemory, ToEmbed};
use oro_mem_core::{Error, ErrorKind, Memory, MemoryId, NewMemory, Result, Status, Timestamp};
use oro_mem_text::{self, index_text};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::quant::dot_f32;
use crate::row::{memory_from_row, MEMORY_COLUMNS, MEMORY_COLUMN_COUNT};
use crate::search::embedding_row;
use crate::store::{check_identity, shim_older_schema, to_i64, SqlContext, Store, BUSY_TIMEOUT};
use crate::vectors;
use oro_mem_text::Fields;

impl Store {
    /// Every memory of another oro-mem database at `path`, oldest id first, as [`NewMemory`]
    /// values that keep their creation time, confidence, access count, pin, status and
    /// metadata, with their embeddings (for merging a worker's store into this one).
    ///
    /// The file is opened read-only and never migrated: any schema version from 1 up to
    /// [`SCHEMA_VERSION`](crate::SCHEMA_VERSION) can be read, and is left exactly as it was.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is no file at `path`; [`ErrorKind::Storage`] when it
    /// is not an oro-mem database, was written by a newer oro-mem, or cannot be read.
    pub fn read_other(path: impl AsRef<Path>) -> Result<Vec<OtherMemory>> {
        let path = path.as_ref();
        if !path.is_file() {
            return Err(Error::not_found(format!(
                "no database at {}",
                path.display()
            )));
        }
        let shown = path.display();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .context(&format!("cannot open {shown}"))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .context("cannot set busy_timeout")?;
        let version = check_identity(&conn, &shown.to_string())?;
        if version == 0 {
            return Err(Error::new(
                ErrorKind::Storage,
                format!("{shown} is not an oro-mem database (it has no schema version)"),
            ));
        }
        // Every column read here exists since schema version 1, but the session (8).
        shim_older_schema(&conn, version)?;
        let mut out = Vec::new();
        each_embedded(&conn, &shown.to_string(), &mut |m| {
            out.push(m);
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `f` with every memory, of any status, oldest id first, with its embedding.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails, or the first error of `f`.
    pub fn for_each_embedded(&self, f: &mut dyn FnMut(OtherMemory) -> Result<()>) -> Result<u64> {
        let shown = self
            .path()
            .map_or_else(|| "the store".to_string(), |p| p.display().to_string());
        each_embedded(&self.conn, &shown, f)
    }

    /// Number of memories without an embedding from `model` (missing, or made by another
    /// model): what [`Store::claim_unembedded`] claims, claimed or not.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn count_unembedded(&self, model: &str) -> Result<u64> {
        self.conn
            .query_row(
                // Three range seeks on the model index: microseconds when every memory has
                // an embedding from `model` (one `<>` would scan the whole index).
                "SELECT (SELECT count(*) FROM memories WHERE embedding_model IS NULL) \
                      + (SELECT count(*) FROM memories WHERE embedding_model < ?1) \
                      + (SELECT count(*) FROM memories WHERE embedding_model > ?1)",
                [model],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .context("cannot count embeddings")
    }

    /// The creation times and texts to embed of the last [`CONTEXT_MEMORIES`] active
    /// memories of `session` in `namespace` created at or before `at`, by creation time and
    /// then id, oldest first: what a memory of that session written at `at` follows. One seek
    /// on the session index.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn last_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<(Timestamp, String)>> {
        let mut last: Vec<(Timestamp, String)> = self
            .conn
            .prepare_cached(
                "SELECT created_at, coalesce(summary || char(10, 10), '') || content \
                 FROM memories \
                 WHERE session = ?1 AND namespace = ?2 AND status = 'active' \
                   AND created_at <= ?3 \
                 ORDER BY created_at DESC, id DESC LIMIT ?4",
            )
            .and_then(|mut s| {
                s.query_map(
                    params![session, namespace, at.as_second(), to_i64(CONTEXT_MEMORIES)],
                    |r| Ok((Timestamp(r.get(0)?), r.get(1)?)),
                )?
                .collect()
            })
            .context("cannot read the session's last memories")?;
        last.reverse();
        Ok(last)
    }

    /// The first [`CONTEXT_MEMORIES`] active memories of `session` in `namespace` created
    /// after `at`, by creation time and then id: what a memory of that session written at
    /// `at` comes before. One seek on the session index.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn next_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        // After every memory created at `at`, whatever its id.
        next_active(
            &self.conn,
            namespace,
            session,
            (at.as_second(), MemoryId::MAX),
        )
    }

    /// Each memory of `ids` that exists, by ascending id, with its text to embed and the texts
    /// of the memories before it in its session, as [`Store::claim_unembedded`] hands them
    /// out but without claiming them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn to_embed(&self, ids: &[MemoryId]) -> Result<Vec<ToEmbed>> {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {} FROM memories m WHERE m.id = ?1",
                to_embed_columns()
            ))
            .context("cannot read memories to embed")?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(m) = stmt
                .query_row([id], to_embed_from_row)
                .optional()
                .context("cannot read memories to embed")?
            {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// Claims up to `limit` memories with an id above `after`, no embedding from `model`
    /// (missing, or made by another model) and no live claim, until `until` or until
    /// [`Store::set_embeddings`] stores theirs; claims that ended at or before `now` are
    /// dropped. Returns them by ascending id, each with its text and the text of the memory
    /// before it in its session ([`ToEmbed`]). One transaction: two processes never claim the
    /// same memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails; nothing is claimed then.
    pub fn claim_unembedded(
        &mut self,
        model: &str,
        after: MemoryId,
        limit: usize,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<ToEmbed>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        tx.execute("DELETE FROM embed_claims WHERE until <= ?1", [now.0])
            .context("cannot drop ended claims")?;
        let todo: Vec<ToEmbed> = tx
            .prepare_cached(&format!(
                "SELECT {} FROM memories m \
                 WHERE m.id > ?1 AND (m.embedding_model IS NULL OR m.embedding_model <> ?2) \
                   AND NOT EXISTS (SELECT 1 FROM embed_claims c WHERE c.memory_id = m.id) \
                 ORDER BY m.id LIMIT ?3",
                to_embed_columns()
            ))
            .and_then(|mut s| {
                s.query_map(params![after, model, to_i64(limit)], to_embed_from_row)?
                    .collect()
            })
            .context("cannot read memories to embed")?;
        {
            let mut claim = tx
                .prepare_cached("INSERT INTO embed_claims (memory_id, until) VALUES (?1, ?2)")
                .context("cannot claim memories to embed")?;
            for m in &todo {
                claim
                    .execute(params![m.id, until.0])
                    .context("cannot claim memories to embed")?;
            }
        }
        tx.commit().context("cannot commit")?;
        Ok(todo)
    }

    /// Stores each of `made`'s vectors as the embedding by `model` of its memory, replacing the
    /// one it had (of any model) in the memory and in the vector index, when the memory's
    /// text to embed and the texts before it are still those its [`ToEmbed`] holds; in one
    /// transaction. A memory deleted meanwhile, or whose context changed (that change dropped
    /// its embedding), is skipped: it waits to be embedded with what is before it now. Claims
    /// on all of them are released. Returns how many were stored. Two processes embedding the
    /// same memories leave one index entry each.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] for an empty model id, or vectors that are empty, not
    /// finite, or of different dimensions; nothing is written then. [`ErrorKind::Storage`]
    /// when SQLite fails.
    pub fn set_embeddings(&mut self, model: &str, made: &[(ToEmbed, Vec<f32>)]) -> Result<usize> {
        let Some((_, first)) = made.first() else {
            return Ok(0);
        };
        let dim = first.len();
        for (m, v) in made {
            check_vector(model, v)
                .map_err(|e| Error::invalid_input(format!("memory {}: {e}", m.id)))?;
            if v.len() != dim {
                return Err(Error::invalid_input(format!(
                    "embedding of memory {} has {} values, the first of the batch {dim}",
                    m.id,
                    v.len()
                )));
            }
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        // Read inside the transaction: what another writer embedded meanwhile is replaced,
        // not indexed twice, and what another writer changed is not stored.
        let mut present = Vec::with_capacity(made.len());
        let mut replaced = Vec::new();
        {
            let mut stmt = tx
                .prepare_cached(&format!(
                    "SELECT {}, m.embedding_model IS NOT NULL FROM memories m WHERE m.id = ?1",
                    to_embed_columns()
                ))
                .context("cannot read memories to embed")?;
            for (m, v) in made {
                let now = stmt
                    .query_row([m.id], |r| {
                        Ok((to_embed_from_row(r)?, r.get::<_, bool>(3)?))
                    })
                    .optional()
                    .context("cannot read memories to embed")?;
                match now {
                    Some((current, had)) if current == *m => {
                        if had {
                            replaced.push(m.id);
                        }
                        present.push((m.id, v.as_slice()));
                    }
                    _ => {}
                }
            }
        }
        vectors::remove(&tx, &replaced)?;
        for &(id, v) in &present {
            store_embedding(&tx, id, model, v)?;
        }
        vectors::append(&tx, model, dim, &present)?;
        {
            let mut release = tx
                .prepare_cached("DELETE FROM embed_claims WHERE memory_id = ?1")
                .context("cannot release claims")?;
            for (m, _) in made {
                release.execute([m.id]).context("cannot release claims")?;
            }
        }
        tx.commit().context("cannot commit")?;
        Ok(present.len())
    }
}

/// Calls `f` with every memory of `conn` (shown as `shown` in errors), oldest id first, as a
/// [`NewMemory`] with its embedding.
fn each_embedded(
    conn: &Connection,
    shown: &str,
    f: &mut dyn FnMut(OtherMemory) -> Result<()>,
) -> Result<u64> {
    let mut stmt = conn
        .prepare(&format!(
            "SELECT {MEMORY_COLUMNS}, m.embedding, m.embedding_model, m.embedding_dim \
             FROM memories m ORDER BY m.id"
        ))
        .context(&format!("cannot read {shown}"))?;
    let mut rows = stmt.query([]).context(&format!("cannot read {shown}"))?;
    let mut n = 0;
    while let Some(r) = rows.next().context(&format!("cannot read {shown}"))? {
        let read = || -> rusqlite::Result<OtherMemory> {
            let memory = memory_from_row(r)?;
            let (id, superseded_by) = (memory.id, superseded(&memory));
            let memory = NewMemory::from(memory);
            let blob: Option<Vec<u8>> = r.get(MEMORY_COLUMN_COUNT)?;
            let model: Option<String> = r.get(MEMORY_COLUMN_COUNT + 1)?;
            let dim: Option<i64> = r.get(MEMORY_COLUMN_COUNT + 2)?;
            // A blob that is not `dim` floats is left behind: the text is embedded again.
            let embedding = match (blob, model, dim) {
                (Some(blob), Some(model), Some(dim)) => usize::try_from(dim)
                    .ok()
                    .and_then(|dim| vectors::from_blob(&blob, dim))
                    .map(|vector| Embedding { model, vector }),
                _ => None,
            };
            Ok(OtherMemory {
                id,
                memory,
                superseded_by,
                embedding,
            })
        };
        f(read().context(&format!("cannot read {shown}"))?)?;
        n += 1;
    }
    Ok(n)
}

/// A memory's lists and metadata as the store writes them: compact JSON.
pub(crate) struct Json {
    tags: String,
    metadata: String,
    files: String,
    entities: String,
}

impl Json {
    pub(crate) fn of(m: &NewMemory) -> Result<Json> {
        let metadata =
            serde_json::to_string(&m.metadata).map_err(|e| Error::invalid_input(e.to_string()))?;
        Ok(Json {
            tags: Fields::json(&m.tags)?,
            metadata,
            files: Fields::json(&m.files)?,
            entities: Fields::json(&m.entities)?,
        })
    }

    /// The memory's text fields as the full-text index reads them.
    pub(crate) fn fields<'a>(&'a self, m: &'a NewMemory) -> Fields<'a> {
        Fields {
            content: &m.content,
            tags: &self.tags,
            summary: m.summary.as_deref().unwrap_or(""),
            files: &self.files,
            entities: &self.entities,
        }
    }
}

pub(crate) fn insert(
    conn: &Connection,
    m: &NewMemory,
    json: &Json,
    now: Timestamp,
) -> Result<MemoryId> {
    let Json {
        tags,
        metadata,
        files,
        entities,
    } = json;
    let created = m.created_at.unwrap_or(now).as_second();
    conn.prepare_cached(
        "INSERT INTO memories (content, type, tags, source, bead_id, worker_id, namespace, \
         metadata, confidence, pinned, status, created_at, updated_at, access_count, \
         last_accessed, fts_text, session, summary, files, entities, return_count) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
                 ?18, ?19, ?20, ?21)",
    )
    .and_then(|mut s| {
        s.execute(params![
            m.content,
            m.memory_type.as_str(),
            tags,
            m.source.as_str(),
            m.bead_id,
            m.worker_id,
            m.namespace,
            metadata,
            m.confidence,
            m.pinned,
            m.status.as_str(),
            created,
            created.max(now.as_second()),
            m.access_count.min(MAX_ACCESS_COUNT) as i64,
            m.last_accessed.map(Timestamp::as_second),
            index_text(&m.content),
            m.session,
            m.summary,
            files,
            entities,
            m.return_count.min(MAX_ACCESS_COUNT) as i64,
        ])
    })
    .context("cannot insert memory")?;
    Ok(conn.last_insert_rowid())
}

/// A memory this batch inserted with an embedding, which the vector index does not hold yet.
pub(crate) struct Added {
    pub(crate) id: MemoryId,
    pub(crate) model: String,
    pub(crate) vector: Vec<f32>,
    pub(crate) namespace: String,
}

/// Adds the batch's new embeddings to the vector index, one append per model and dimension.
pub(crate) fn index_added(conn: &Connection, added: &[Added]) -> Result<()> {
    let mut groups = BTreeMap::<(&str, usize), Vec<(MemoryId, &[f32])>>::new();
    for a in added {
        groups
            .entry((a.model.as_str(), a.vector.len()))
            .or_default()
            .push((a.id, a.vector.as_slice()));
    }
    for ((model, dim), rows) in groups {
        vectors::append(conn, model, dim, &rows)?;
    }
    Ok(())
}

/// The columns of a [`ToEmbed`] of memory `m` (`SELECT … FROM memories m`): its id, its text
/// to embed, and the texts to embed of the last [`CONTEXT_MEMORIES`] active memories of its
/// session and namespace before it by creation time and then id, oldest first, one per line.
fn to_embed_columns() -> String {
    format!(
        "m.id, coalesce(m.summary || char(10, 10), '') || m.content, \
         (SELECT group_concat(t, char(10) ORDER BY created_at, id) FROM \
           (SELECT coalesce(p.summary || char(10, 10), '') || p.content AS t, p.created_at, p.id \
            FROM memories p \
            WHERE p.session = m.session AND p.namespace = m.namespace \
              AND p.status = 'active' AND (p.created_at, p.id) < (m.created_at, m.id) \
            ORDER BY p.created_at DESC, p.id DESC LIMIT {CONTEXT_MEMORIES}))"
    )
}

fn to_embed_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ToEmbed> {
    Ok(ToEmbed {
        id: r.get(0)?,
        text: r.get(1)?,
        before: r.get(2)?,
    })
}

/// Where a memory stands in its session, read before its status changes or it is deleted:
/// what [`unembed_next`] needs.
pub(crate) struct Place {
    pub(crate) id: MemoryId,
    pub(crate) namespace: String,
    pub(crate) session: Option<String>,
    pub(crate) created_at: i64,
    pub(crate) active: bool,
}

impl Place {
    /// Memory `id`'s place, if it exists.
    pub(crate) fn read(conn: &Connection, id: MemoryId) -> Result<Option<Place>> {
        conn.prepare_cached(
            "SELECT namespace, session, created_at, status = 'active' FROM memories WHERE id = ?1",
        )
        .and_then(|mut s| {
            s.query_row([id], |r| {
                Ok(Place {
                    id,
                    namespace: r.get(0)?,
                    session: r.get(1)?,
                    created_at: r.get(2)?,
                    active: r.get(3)?,
                })
            })
            .optional()
        })
        .context("cannot read memory")
    }

    pub(crate) fn of(m: &Memory) -> Place {
        Place {
            id: m.id,
            namespace: m.namespace.clone(),
            session: m.session.clone(),
            created_at: m.created_at.as_second(),
            active: m.status == Status::Active,
        }
    }

    /// The memories after it in its session that hold it among the memories before them
    /// ([`next_active`]); none without a session.
    pub(crate) fn next(&self, conn: &Connection) -> Result<Vec<MemoryId>> {
        match self.session.as_deref() {
            Some(session) => {
                next_active(conn, &self.namespace, session, (self.created_at, self.id))
            }
            None => Ok(Vec::new()),
        }
    }
}

/// The first [`CONTEXT_MEMORIES`] active memories of `session` in `namespace` after `after`
/// (creation time, id), by creation time and then id, read as the store is now: the memories
/// whose embeddings hold the memory there among the memories before them (or, if that one
/// was just archived or deleted, now should not).
pub(crate) fn next_active(
    conn: &Connection,
    namespace: &str,
    session: &str,
    (at, id): (i64, MemoryId),
) -> Result<Vec<MemoryId>> {
    conn.prepare_cached(
        "SELECT id FROM memories \
         WHERE session = ?1 AND namespace = ?2 AND status = 'active' \
           AND (created_at, id) > (?3, ?4) \
         ORDER BY created_at, id LIMIT ?5",
    )
    .and_then(|mut s| {
        s.query_map(
            params![session, namespace, at, id, to_i64(CONTEXT_MEMORIES)],
            |r| r.get(0),
        )?
        .collect()
    })
    .context("cannot read the session's next memories")
}

/// After the memory at `place` became active or stopped being active (or was deleted),
/// drops the embeddings of the next active memories of its session ([`Place::next`]), whose
/// memories before them have changed. Returns those that had one.
pub(crate) fn unembed_next(conn: &Connection, place: &Place) -> Result<Vec<MemoryId>> {
    unembed(conn, &place.next(conn)?)
}

/// Drops the embeddings of `ids`, from the memories and the vector index, so that they are
/// embedded again ([`Store::claim_unembedded`]). Returns those that had one, by ascending id.
pub(crate) fn unembed(conn: &Connection, ids: &[MemoryId]) -> Result<Vec<MemoryId>> {
    let mut stmt = conn
        .prepare_cached(
            "UPDATE memories SET embedding = NULL, embedding_model = NULL, embedding_dim = NULL \
             WHERE id = ?1 AND embedding_model IS NOT NULL",
        )
        .context("cannot drop embedding")?;
    let mut dropped = Vec::new();
    for &id in ids {
        if stmt.execute([id]).context("cannot drop embedding")? > 0 {
            dropped.push(id);
        }
    }
    vectors::remove(conn, &dropped)?;
    dropped.sort_unstable();
    Ok(dropped)
}

/// Writes the exact embedding of memory `id` (the vector index is updated separately).
pub(crate) fn store_embedding(
    conn: &Connection,
    id: MemoryId,
    model: &str,
    v: &[f32],
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE memories SET embedding = ?2, embedding_model = ?3, embedding_dim = ?4 \
         WHERE id = ?1",
    )
    .and_then(|mut s| s.execute(params![id, vectors::to_blob(v), model, v.len() as i64]))
    .context("cannot store embedding")?;
    Ok(())
}

/// The active memories of `namespace` (other than `self_id`) whose embeddings by `model` are
/// most similar to `v`, among the index's nearest and this batch's `added`: `(id, cosine)`,
/// most similar first.
pub(crate) fn similar_vectors(
    conn: &Connection,
    self_id: MemoryId,
    model: &str,
    v: &[f32],
    namespace: &str,
    added: &[Added],
) -> Result<Vec<(MemoryId, f64)>> {
    let mut found: Vec<(MemoryId, f64)> = Vec::new();
    let mut offer = |id: MemoryId, cosine: f64| {
        if id != self_id && found.iter().all(|&(seen, _)| seen != id) {
            found.push((id, cosine));
        }
    };
    for a in added {
        if a.namespace == namespace && a.model == model && a.vector.len() == v.len() {
            offer(a.id, f64::from(dot_f32(v, &a.vector)));
        }
    }
    let near = vectors::search(conn, model, v, 16)?;
    let mut stmt = conn
        .prepare_cached(
            "SELECT embedding, embedding_dim FROM memories \
             WHERE id = ?1 AND namespace = ?2 AND status = 'active' AND embedding_model = ?3",
        )
        .context("cannot find duplicates")?;
    for (id, _) in near {
        if let Some(other) = embedding_row(&mut stmt, params![id, namespace, model])? {
            offer(id, f64::from(dot_f32(v, &other)));
        }
    }
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(found)
}

/// Memory `id`'s embedding and its model: one this transaction `added`, else the stored one.
pub(crate) fn embedding_of(
    conn: &Connection,
    id: MemoryId,
    added: &[Added],
) -> Result<Option<Embedding>> {
    if let Some(a) = added.iter().rev().find(|a| a.id == id) {
        return Ok(Some(Embedding {
            model: a.model.clone(),
            vector: a.vector.clone(),
        }));
    }
    let row = conn
        .query_row(
            "SELECT embedding, embedding_dim, embedding_model FROM memories \
             WHERE id = ?1 AND embedding IS NOT NULL AND embedding_model IS NOT NULL",
            params![id],
            |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )
        .optional()
        .context("cannot read embedding")?;
    Ok(row.and_then(|(blob, dim, model)| {
        let vector = vectors::from_blob(&blob, usize::try_from(dim).ok()?)?;
        Some(Embedding { model, vector })
    }))
}

/// Folds `drop` into `keep` and marks `drop` merged into it, kept (consolidation).
pub(crate) fn fold_into(conn: &Connection, keep: MemoryId, drop: &Memory) -> Result<()> {
    let tags =
        serde_json::to_string(&drop.tags).map_err(|e| Error::invalid_input(e.to_string()))?;
    conn.execute(
        "UPDATE memories SET \
           confidence = max(confidence, ?2), \
           access_count = min(access_count + ?3, ?8), \
           return_count = min(return_count + ?9, ?8), \
           pinned = max(pinned, ?4), \
           last_accessed = nullif(max(coalesce(last_accessed, 0), coalesce(?5, 0)), 0), \
           tags = (SELECT json_group_array(value) FROM \
                    (SELECT value FROM json_each(memories.tags) \
                     UNION SELECT value FROM json_each(?6))), \
           updated_at = ?7 \
         WHERE id = ?1",
        params![
            keep,
            drop.confidence,
            drop.access_count.min(MAX_ACCESS_COUNT) as i64,
            drop.pinned,
            drop.last_accessed.map(Timestamp::as_second),
            tags,
            Timestamp::now().as_second(),
            MAX_ACCESS_COUNT as i64,
            drop.return_count.min(MAX_ACCESS_COUNT) as i64,
        ],
    )
    .context("cannot merge memories")?;
    conn.execute(
        "UPDATE memories SET status = 'merged', merged_into = ?2, updated_at = ?3 WHERE id = ?1",
        params![drop.id, keep, Timestamp::now().as_second()],
    )
    .context("cannot mark the memory merged")?;
    Ok(())
}
