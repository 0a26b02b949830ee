//! The write path: remembering (validation, duplicate checks, the embeddings given), the
//! memories that lack an embedding and adding theirs, and consolidation.
//!
//! Every write that adds or removes postings holds the schema's write lock
//! ([`WRITE_LOCK`](crate::schema::WRITE_LOCK)) for its transaction: a duplicate check sees
//! every memory committed before it, so two processes writing the same memory at once store
//! it once.

use std::collections::HashMap;

use oro_mem_core::memory::{CONTEXT_MEMORIES, MAX_ACCESS_COUNT};
use oro_mem_core::store::{check_vector, Embedding, ToEmbed};
use oro_mem_core::{Error, Memory, MemoryId, NewMemory, Result, Status, Timestamp};
use oro_mem_text::query_terms;
use oro_mem_text::{Analyzer, Document, Fields};
use pgvector::Vector;
use postgres::Transaction;

use crate::search::{bm25_with, model_id};
use crate::sql::Params;
use crate::store::{to_i64, Context, Store};

/// A batch of at least this many memories is followed by `ANALYZE`.
const ANALYZE_AFTER: usize = 1_000;

/// How many of the nearest embeddings a cosine duplicate check looks at.
pub(crate) const NEAREST_DUPLICATES: usize = 16;

/// The id of embedding model `model` with `dim` dimensions, registered (with its HNSW index,
/// a partial index over that model's vectors) on first use. The index holds the vectors in
/// half precision (`halfvec`): half the memory to read per search, 1.5× faster at 10k
/// memories, and what it finds is rescored from the exact vectors anyway. Called in a
/// transaction that holds the write lock, so two writers never register one model twice.
pub(crate) fn register_model(tx: &mut Transaction<'_>, model: &str, dim: usize) -> Result<i32> {
    if let Some(id) = model_id(tx, model, dim)? {
        return Ok(id);
    }
    let dim32 = i32::try_from(dim)
        .map_err(|_| Error::invalid_input(format!("an embedding of {dim} values is too long")))?;
    let id: i32 = tx
        .query_one(
            "INSERT INTO embedding_models (model, dim) VALUES ($1, $2) RETURNING id",
            &[&model, &dim32],
        )
        .context("cannot register embedding model")?
        .get(0);
    // Integers of this crate's making only.
    tx.batch_execute(&format!(
        "CREATE INDEX memories_hnsw_{id} ON memories \
         USING hnsw ((embedding::halfvec({dim})) halfvec_cosine_ops) \
         WHERE embedding_model_id = {id}"
    ))
    .context("cannot create the vector index")?;
    Ok(id)
}

/// Adds the postings of memory `id`.
fn add_postings(tx: &mut Transaction<'_>, id: MemoryId, doc: Document) -> Result<()> {
    let (terms, tfs): (Vec<String>, Vec<i32>) = doc.terms.into_iter().unzip();
    tx.execute(
        "INSERT INTO lex_postings (term, memory_id, tf, len) \
         SELECT t, $1, f, $4 FROM unnest($2::text[], $3::int4[]) AS u(t, f)",
        &[&id, &terms, &tfs, &doc.len],
    )
    .context("cannot index memory")?;
    Ok(())
}

/// Inserts `batch` as new memories (no duplicate check) with a few statements whatever its
/// size: the memories with their embeddings (and lengths, which the insert trigger adds to
/// the store's token total), then every posting; so the store's totals and each term's count
/// change once per batch, not once per memory. Returns their ids, in order.
pub(crate) fn insert(
    tx: &mut Transaction<'_>,
    analyzer: &Analyzer,
    batch: &[(&NewMemory, Option<&Embedding>)],
    now: Timestamp,
) -> Result<Vec<MemoryId>> {
    if batch.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<MemoryId> = tx
        .query(
            "SELECT nextval(pg_get_serial_sequence('memories', 'id')) \
             FROM generate_series(1, $1::int8) ORDER BY 1",
            &[&to_i64(batch.len())],
        )
        .context("cannot insert memories")?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut cols = Columns::default();
    let mut postings = Postings::default();
    let mut models: HashMap<(&str, usize), i32> = HashMap::new();
    for (&(m, e), &id) in batch.iter().zip(&ids) {
        let json = [
            Fields::json(&m.tags)?,
            Fields::json(&m.files)?,
            Fields::json(&m.entities)?,
        ];
        let doc = analyzer.document(&Fields {
            content: &m.content,
            tags: &json[0],
            summary: m.summary.as_deref().unwrap_or_default(),
            files: &json[1],
            entities: &json[2],
        })?;
        let embedding = match e {
            Some(e) => {
                let key = (e.model.as_str(), e.vector.len());
                let model = match models.get(&key) {
                    Some(&model) => model,
                    None => {
                        *models
                            .entry(key)
                            .or_insert(register_model(tx, &e.model, e.vector.len())?)
                    }
                };
                Some((Vector::from(e.vector.clone()), model))
            }
            None => None,
        };
        cols.push(id, m, json, doc.len, embedding, now);
        postings.push(id, doc);
    }
    cols.write(tx)?;
    postings.write(tx)?;
    if batch.len() >= ANALYZE_AFTER {
        // The planner's statistics, at once: until autovacuum gets to it (a minute or more),
        // queries are planned for the tables as they were, several times slower.
        tx.batch_execute("ANALYZE memories, lex_postings, lex_terms")
            .context("cannot analyze")?;
    }
    Ok(ids)
}

/// The columns of [`insert`]'s memories.
#[derive(Default)]
struct Columns {
    id: Vec<MemoryId>,
    content: Vec<String>,
    kind: Vec<String>,
    tags: Vec<String>,
    source: Vec<String>,
    bead: Vec<Option<String>>,
    worker: Vec<Option<String>>,
    namespace: Vec<String>,
    metadata: Vec<serde_json::Value>,
    confidence: Vec<f64>,
    pinned: Vec<bool>,
    status: Vec<String>,
    created: Vec<i64>,
    updated: Vec<i64>,
    access: Vec<i64>,
    last: Vec<Option<i64>>,
    session: Vec<Option<String>>,
    len: Vec<i32>,
    embedding: Vec<Option<Vector>>,
    model: Vec<Option<i32>>,
    summary: Vec<Option<String>>,
    files: Vec<String>,
    entities: Vec<String>,
    returned: Vec<i64>,
}

impl Columns {
    /// Adds memory `id`: `m`, its tags, files and entities as JSON (in that order), its
    /// document length, and its embedding with its model's id.
    fn push(
        &mut self,
        id: MemoryId,
        m: &NewMemory,
        [tags, files, entities]: [String; 3],
        len: i32,
        embedding: Option<(Vector, i32)>,
        now: Timestamp,
    ) {
        let created = m.created_at.unwrap_or(now).as_second();
        let (embedding, model) = embedding.unzip();
        self.id.push(id);
        self.content.push(m.content.clone());
        self.kind.push(m.memory_type.as_str().to_string());
        self.tags.push(tags);
        self.source.push(m.source.as_str().to_string());
        self.bead.push(m.bead_id.clone());
        self.worker.push(m.worker_id.clone());
        self.namespace.push(m.namespace.clone());
        self.metadata
            .push(serde_json::Value::Object(m.metadata.clone()));
        self.confidence.push(m.confidence);
        self.pinned.push(m.pinned);
        self.status.push(m.status.as_str().to_string());
        self.created.push(created);
        self.updated.push(created.max(now.as_second()));
        self.access
            .push(m.access_count.min(MAX_ACCESS_COUNT) as i64);
        self.returned
            .push(m.return_count.min(MAX_ACCESS_COUNT) as i64);
        self.last.push(m.last_accessed.map(Timestamp::as_second));
        self.session.push(m.session.clone());
        self.summary.push(m.summary.clone());
        self.files.push(files);
        self.entities.push(entities);
        self.len.push(len);
        self.embedding.push(embedding);
        self.model.push(model);
    }

    /// Inserts the memories, in one statement.
    fn write(&self, tx: &mut Transaction<'_>) -> Result<()> {
        tx.execute(
            "INSERT INTO memories (id, content, type, tags, source, bead_id, worker_id, \
             namespace, metadata, confidence, pinned, status, created_at, updated_at, \
             access_count, last_accessed, session, lex_len, embedding, embedding_model_id, \
             summary, files, entities, return_count) \
             SELECT id, content, type, tags::jsonb, source, bead_id, worker_id, namespace, \
                    metadata, confidence, pinned, status, created_at, updated_at, access_count, \
                    last_accessed, session, lex_len, embedding, embedding_model_id, summary, \
                    files::jsonb, entities::jsonb, return_count \
             FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], \
                         $6::text[], $7::text[], $8::text[], $9::jsonb[], $10::float8[], \
                         $11::bool[], $12::text[], $13::int8[], $14::int8[], $15::int8[], \
                         $16::int8[], $17::text[], $18::int4[], $19::vector[], $20::int4[], \
                         $21::text[], $22::text[], $23::text[], $24::int8[]) \
                  AS u(id, content, type, tags, source, bead_id, worker_id, namespace, \
                       metadata, confidence, pinned, status, created_at, updated_at, \
                       access_count, last_accessed, session, lex_len, embedding, \
                       embedding_model_id, summary, files, entities, return_count)",
            &[
                &self.id,
                &self.content,
                &self.kind,
                &self.tags,
                &self.source,
                &self.bead,
                &self.worker,
                &self.namespace,
                &self.metadata,
                &self.confidence,
                &self.pinned,
                &self.status,
                &self.created,
                &self.updated,
                &self.access,
                &self.last,
                &self.session,
                &self.len,
                &self.embedding,
                &self.model,
                &self.summary,
                &self.files,
                &self.entities,
                &self.returned,
            ],
        )
        .context("cannot insert memories")?;
        Ok(())
    }
}

/// The postings of [`insert`]'s memories: a row per term of each.
#[derive(Default)]
struct Postings {
    terms: Vec<String>,
    memory_ids: Vec<MemoryId>,
    tfs: Vec<i32>,
    lens: Vec<i32>,
}

impl Postings {
    fn push(&mut self, id: MemoryId, doc: Document) {
        for (term, tf) in doc.terms {
            self.terms.push(term);
            self.memory_ids.push(id);
            self.tfs.push(tf);
            self.lens.push(doc.len);
        }
    }

    /// Inserts the postings, in one statement.
    fn write(&self, tx: &mut Transaction<'_>) -> Result<()> {
        tx.execute(
            "INSERT INTO lex_postings (term, memory_id, tf, len) \
             SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[])",
            &[&self.terms, &self.memory_ids, &self.tfs, &self.lens],
        )
        .context("cannot index memories")?;
        Ok(())
    }
}

fn store_embedding(tx: &mut Transaction<'_>, id: MemoryId, model: &str, v: &[f32]) -> Result<u64> {
    let model_id = register_model(tx, model, v.len())?;
    tx.execute(
        "UPDATE memories SET embedding = $2, embedding_model_id = $3 WHERE id = $1",
        &[&id, &Vector::from(v.to_vec()), &model_id],
    )
    .context("cannot store embedding")
}

/// Memories of `namespace` (active, other than `self_id`) lexically similar to `content`,
/// with a normalized BM25 of at least `min_similarity`: `(id, similarity)`, best first, at
/// most `limit`. 1.0 means "scores as well as the memory itself" (which must be stored).
pub(crate) fn similar(
    tx: &mut Transaction<'_>,
    analyzer: &Analyzer,
    self_id: MemoryId,
    content: &str,
    namespace: &str,
    limit: usize,
    min_similarity: f64,
) -> Result<Vec<(MemoryId, f64)>> {
    let keys = analyzer.query(&query_terms(content))?;
    if keys.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let mut p = Params::default();
    let terms = p.add(keys.clone());
    let own_sql = format!(
        "{} SELECT s.score FROM s",
        bm25_with(&terms, &format!("p.memory_id = {}", p.add(self_id)), None)
    );
    let own: Option<f64> = tx
        .query_opt(&own_sql, &p.refs())
        .context("cannot score duplicate")?
        .map(|r| r.get(0));
    let Some(own) = own.filter(|s| *s > 0.0) else {
        return Ok(Vec::new());
    };
    let mut p = Params::default();
    let terms = p.add(keys);
    let cond = format!(
        "m.namespace = {} AND m.status = 'active' AND m.id <> {}",
        p.add(namespace.to_string()),
        p.add(self_id)
    );
    let sql = format!(
        "{} SELECT s.id, s.score FROM s WHERE s.score >= {} ORDER BY s.score DESC, s.id LIMIT {}",
        bm25_with(&terms, "true", Some(&cond)),
        p.add(min_similarity * own),
        p.add(to_i64(limit)),
    );
    let rows = tx
        .query(&sql, &p.refs())
        .context("cannot find duplicates")?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, i64>(0), (r.get::<_, f64>(1) / own).min(1.0)))
        .filter(|&(_, similarity)| similarity >= min_similarity)
        .collect())
}

/// Folds `drop` into `keep` and deletes `drop` (consolidation); `keep`'s postings follow its
/// new tags.
pub(crate) fn fold_into(
    tx: &mut Transaction<'_>,
    analyzer: &Analyzer,
    keep: MemoryId,
    drop: &Memory,
) -> Result<()> {
    let tags =
        serde_json::to_string(&drop.tags).map_err(|e| Error::invalid_input(e.to_string()))?;
    let row = tx
        .query_one(
            "UPDATE memories SET \
               confidence = greatest(confidence, $2), \
               access_count = least(access_count + $3, $8), \
               return_count = least(return_count + $9, $8), \
               pinned = pinned OR $4, \
               last_accessed = nullif(greatest(coalesce(last_accessed, 0), coalesce($5::int8, 0)), 0), \
               tags = (SELECT coalesce(jsonb_agg(v ORDER BY v), '[]'::jsonb) FROM \
                        (SELECT jsonb_array_elements_text(memories.tags) AS v \
                         UNION SELECT jsonb_array_elements_text($6::text::jsonb)) u), \
               updated_at = $7 \
             WHERE id = $1 \
             RETURNING content, tags::text, lex_len, summary, files::text, entities::text",
            &[
                &keep,
                &drop.confidence,
                &(drop.access_count.min(MAX_ACCESS_COUNT) as i64),
                &drop.pinned,
                &drop.last_accessed.map(Timestamp::as_second),
                &tags,
                &Timestamp::now().as_second(),
                &(MAX_ACCESS_COUNT as i64),
                &(drop.return_count.min(MAX_ACCESS_COUNT) as i64),
            ],
        )
        .context("cannot merge memories")?;
    let (content, merged_tags, old_len): (String, String, i32) =
        (row.get(0), row.get(1), row.get(2));
    let summary: Option<String> = row.get(3);
    // The lists as the SQLite store writes them (compact JSON), whatever jsonb prints.
    let merged = json_again(&merged_tags, "merged tags")?;
    let files = json_again(row.get(4), "files")?;
    let entities = json_again(row.get(5), "entities")?;
    // Indexed afresh: the postings of the new tags, the length and the store's token total.
    let doc = analyzer.document(&Fields {
        content: &content,
        tags: &merged,
        summary: summary.as_deref().unwrap_or_default(),
        files: &files,
        entities: &entities,
    })?;
    tx.execute("DELETE FROM lex_postings WHERE memory_id = $1", &[&keep])
        .context("cannot merge memories")?;
    tx.execute(
        "UPDATE lex_stats SET tokens = tokens + $1",
        &[&(i64::from(doc.len) - i64::from(old_len))],
    )
    .context("cannot merge memories")?;
    tx.execute(
        "UPDATE memories SET lex_len = $2 WHERE id = $1",
        &[&keep, &doc.len],
    )
    .context("cannot merge memories")?;
    add_postings(tx, keep, doc)?;
    // Kept, merged: its postings and vector stay, as an archived memory's do (searches read
    // active memories only).
    tx.execute(
        "UPDATE memories SET status = 'merged', merged_into = $2, updated_at = $3 WHERE id = $1",
        &[&drop.id, &keep, &Timestamp::now().as_second()],
    )
    .context("cannot mark the memory merged")?;
    Ok(())
}

impl Store {
    /// Stores each of `made`'s vectors as its memory's embedding by `model`, replacing any it
    /// had, when the memory's text to embed and the texts before it are still those its
    /// [`ToEmbed`] holds, and releases the claims on all of them, in one transaction. A memory
    /// deleted meanwhile, or whose context changed (that change dropped its embedding), is
    /// skipped: it waits to be embedded with what is before it now. Returns how many were
    /// stored.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) for an empty model
    /// id, or vectors that are empty, not finite, or of different dimensions; nothing is
    /// written then. [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL
    /// fails.
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
        let ids: Vec<MemoryId> = made.iter().map(|(m, _)| m.id).collect();
        // Under the write lock, read what each memory is now: every change before it is
        // committed, and none can come until this commits.
        self.writing(|tx| {
            let now: HashMap<MemoryId, ToEmbed> = tx
                .query(
                    &format!(
                        "SELECT {} FROM memories m WHERE m.id = ANY($1)",
                        to_embed_columns()
                    ),
                    &[&ids],
                )
                .context("cannot read memories to embed")?
                .iter()
                .map(|r| {
                    let m = to_embed_from_row(r);
                    (m.id, m)
                })
                .collect();
            let mut stored = 0;
            for (m, v) in made {
                if now.get(&m.id) == Some(m) {
                    stored += store_embedding(tx, m.id, model, v)?;
                }
            }
            tx.execute(
                "DELETE FROM embed_claims WHERE memory_id = ANY($1)",
                &[&ids],
            )
            .context("cannot release claims")?;
            Ok(usize::try_from(stored).unwrap_or(usize::MAX))
        })
    }

    /// Claims up to `limit` memories with an id above `after`, no embedding by `model` and no
    /// live claim, until `until`; claims that ended at or before `now` are dropped. Returns
    /// them by ascending id, each with its text and the texts of the memories before it in its
    /// session ([`ToEmbed`]). Two processes never claim the same memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails; nothing
    /// is claimed then.
    pub fn claim_unembedded(
        &mut self,
        model: &str,
        after: MemoryId,
        limit: usize,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<ToEmbed>> {
        self.writing(|tx| {
            tx.execute(
                "DELETE FROM embed_claims WHERE until <= $1",
                &[&now.as_second()],
            )
            .context("cannot drop ended claims")?;
            let rows = tx
                .query(
                    &format!(
                        "SELECT {} FROM memories m \
                         LEFT JOIN embedding_models e ON e.id = m.embedding_model_id \
                         WHERE m.id > $1 AND e.model IS DISTINCT FROM $2 \
                           AND NOT EXISTS (SELECT 1 FROM embed_claims c WHERE c.memory_id = m.id) \
                         ORDER BY m.id LIMIT $3",
                        to_embed_columns()
                    ),
                    &[&after, &model, &to_i64(limit)],
                )
                .context("cannot read memories to embed")?;
            let todo: Vec<ToEmbed> = rows.iter().map(to_embed_from_row).collect();
            let ids: Vec<MemoryId> = todo.iter().map(|m| m.id).collect();
            tx.execute(
                "INSERT INTO embed_claims (memory_id, until) SELECT unnest($1::int8[]), $2",
                &[&ids, &until.as_second()],
            )
            .context("cannot claim memories to embed")?;
            Ok(todo)
        })
    }

    /// Rebuilds the BM25 index (postings, document frequencies, lengths and totals) from the
    /// memories, and the vector indexes, in one transaction.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails; nothing
    /// is changed then.
    pub fn rebuild_index(&mut self) -> Result<()> {
        self.writing(|tx| {
            reindex_lexical(tx, &self.analyzer)?;
            tx.batch_execute("REINDEX TABLE memories")
                .context("cannot rebuild the indexes")
        })
    }
}

/// Writes the BM25 index (postings, document frequencies, lengths and totals) afresh from the
/// memories, as `analyzer` reads them now: what a rebuild does, and the migration to a schema
/// whose analysis changed. A few statements per [`REINDEX_BATCH`] memories, not per memory.
pub(crate) fn reindex_lexical(tx: &mut Transaction<'_>, analyzer: &Analyzer) -> Result<()> {
    let context = "cannot rebuild the full-text index";
    tx.batch_execute("TRUNCATE lex_postings, lex_terms")
        .context(context)?;
    let rows = tx
        .query(
            "SELECT id, content, tags::text, summary, files::text, entities::text \
             FROM memories ORDER BY id",
            &[],
        )
        .context(context)?;
    for chunk in rows.chunks(REINDEX_BATCH) {
        let mut postings = Postings::default();
        let (mut ids, mut lens) = (
            Vec::with_capacity(chunk.len()),
            Vec::with_capacity(chunk.len()),
        );
        for row in chunk {
            let id: MemoryId = row.get(0);
            let of = |what: &str| format!("{what} of memory {id}");
            let tags = json_again(row.get(2), &of("tags"))?;
            let files = json_again(row.get(4), &of("files"))?;
            let entities = json_again(row.get(5), &of("entities"))?;
            let summary: Option<&str> = row.get(3);
            let doc = analyzer.document(&Fields {
                content: row.get(1),
                tags: &tags,
                summary: summary.unwrap_or_default(),
                files: &files,
                entities: &entities,
            })?;
            ids.push(id);
            lens.push(doc.len);
            postings.push(id, doc);
        }
        tx.execute(
            "UPDATE memories m SET lex_len = u.len \
             FROM unnest($1::int8[], $2::int4[]) AS u(id, len) WHERE m.id = u.id",
            &[&ids, &lens],
        )
        .context(context)?;
        postings.write(tx)?;
    }
    tx.batch_execute(
        "UPDATE lex_stats SET docs = (SELECT count(*) FROM memories), \
                          tokens = (SELECT coalesce(sum(lex_len), 0) FROM memories); \
         ANALYZE memories, lex_postings, lex_terms",
    )
    .context(context)
}

/// How many memories [`reindex_lexical`] analyzes and writes at a time.
const REINDEX_BATCH: usize = 5_000;

/// The columns of a [`ToEmbed`] of memory `m` (`SELECT … FROM memories m`): its id, its text
/// to embed, and the texts to embed of the last [`CONTEXT_MEMORIES`] active memories of its
/// session and namespace before it by creation time and then id, oldest first, one per line.
pub(crate) fn to_embed_columns() -> String {
    format!(
        "m.id, coalesce(m.summary || E'\\n\\n', '') || m.content, \
         (SELECT string_agg(t, E'\\n' ORDER BY created_at, id) FROM \
           (SELECT coalesce(p.summary || E'\\n\\n', '') || p.content AS t, p.created_at, p.id \
            FROM memories p \
            WHERE p.session = m.session AND p.namespace = m.namespace \
              AND p.status = 'active' AND (p.created_at, p.id) < (m.created_at, m.id) \
            ORDER BY p.created_at DESC, p.id DESC LIMIT {CONTEXT_MEMORIES}) AS before)"
    )
}

pub(crate) fn to_embed_from_row(r: &postgres::Row) -> ToEmbed {
    ToEmbed {
        id: r.get(0),
        text: r.get(1),
        before: r.get(2),
    }
}

/// Where a memory stands in its session, read before its status changes or it is deleted:
/// what [`unembed_next`] needs.
pub(crate) struct Place {
    id: MemoryId,
    namespace: String,
    session: Option<String>,
    created_at: i64,
    pub(crate) active: bool,
}

impl Place {
    /// Memory `id`'s place, if it exists, its row locked until `tx` ends.
    pub(crate) fn read(tx: &mut Transaction<'_>, id: MemoryId) -> Result<Option<Place>> {
        let rows = tx
            .query(
                "SELECT namespace, session, created_at, status = 'active' FROM memories \
                 WHERE id = $1 FOR UPDATE",
                &[&id],
            )
            .context("cannot read memory")?;
        Ok(rows.first().map(|r| Place {
            id,
            namespace: r.get(0),
            session: r.get(1),
            created_at: r.get(2),
            active: r.get(3),
        }))
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
    /// ([`NEXT_ACTIVE`], read as `tx` sees the store now); none without a session.
    pub(crate) fn next(&self, tx: &mut Transaction<'_>) -> Result<Vec<MemoryId>> {
        let Some(session) = self.session.as_deref() else {
            return Ok(Vec::new());
        };
        let rows = tx
            .query(
                NEXT_ACTIVE,
                &[
                    &session,
                    &self.namespace,
                    &self.created_at,
                    &self.id,
                    &to_i64(CONTEXT_MEMORIES),
                ],
            )
            .context("cannot read the session's next memories")?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}

/// The first [`CONTEXT_MEMORIES`] (`$5`) active memories of session `$1` in namespace `$2`
/// after (creation time, id) `($3, $4)`, by creation time and then id: the memories whose
/// embeddings hold the memory there among the memories before them (or, if that one was
/// just archived or deleted, now should not).
pub(crate) const NEXT_ACTIVE: &str = "SELECT id FROM memories \
     WHERE session = $1 AND namespace = $2 AND status = 'active' \
       AND (created_at, id) > ($3, $4) \
     ORDER BY created_at, id LIMIT $5";

/// Drops the embeddings of the stored memories that one of the `outcomes`' inserted memories
/// (a batch's) comes before in its session ([`NEXT_ACTIVE`]), whose memories before them have
/// changed; not of the batch's own, which were embedded with it. One statement.
pub(crate) fn unembed_after_inserted(
    tx: &mut Transaction<'_>,
    inserted: &[MemoryId],
) -> Result<Vec<MemoryId>> {
    if inserted.is_empty() {
        return Ok(Vec::new());
    }
    let rows = tx
        .query(
            "UPDATE memories SET embedding = NULL, embedding_model_id = NULL \
             WHERE embedding_model_id IS NOT NULL AND NOT (id = ANY($1)) AND id IN ( \
               SELECT n.id FROM memories m CROSS JOIN LATERAL ( \
                 SELECT p.id FROM memories p \
                 WHERE p.session = m.session AND p.namespace = m.namespace \
                   AND p.status = 'active' AND (p.created_at, p.id) > (m.created_at, m.id) \
                 ORDER BY p.created_at, p.id LIMIT $2) n \
               WHERE m.id = ANY($1) AND m.session IS NOT NULL AND m.status = 'active') \
             RETURNING id",
            &[&inserted, &to_i64(CONTEXT_MEMORIES)],
        )
        .context("cannot drop embeddings")?;
    let mut dropped: Vec<MemoryId> = rows.iter().map(|r| r.get(0)).collect();
    dropped.sort_unstable();
    Ok(dropped)
}

/// After the memory at `place` became active or stopped being active (or was deleted),
/// drops the embeddings of the next active memories of its session ([`Place::next`]), whose
/// memories before them have changed. Returns those that had one.
pub(crate) fn unembed_next(tx: &mut Transaction<'_>, place: &Place) -> Result<Vec<MemoryId>> {
    let next = place.next(tx)?;
    unembed(tx, &next)
}

/// Drops the embeddings of `ids`, so that they are embedded again
/// ([`Store::claim_unembedded`]). Returns those that had one, by ascending id.
pub(crate) fn unembed(tx: &mut Transaction<'_>, ids: &[MemoryId]) -> Result<Vec<MemoryId>> {
    let rows = tx
        .query(
            "UPDATE memories SET embedding = NULL, embedding_model_id = NULL \
             WHERE id = ANY($1) AND embedding_model_id IS NOT NULL RETURNING id",
            &[&ids],
        )
        .context("cannot drop embedding")?;
    let mut dropped: Vec<MemoryId> = rows.iter().map(|r| r.get(0)).collect();
    dropped.sort_unstable();
    Ok(dropped)
}

/// A list read back as jsonb's text, written as the SQLite store writes it (its FTS5 index
/// reads the compact JSON text).
fn json_again(text: &str, what: &str) -> Result<String> {
    let list: Vec<String> =
        serde_json::from_str(text).map_err(|e| Error::invalid_input(format!("{what}: {e}")))?;
    Ok(Fields::json(&list)?)
}
