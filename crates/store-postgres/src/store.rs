//! [`Store`]: the connection, reading, and the writes that change one memory.

use std::cell::{Cell, RefCell, RefMut};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use oro_mem_core::memory::MAX_ACCESS_COUNT;
use oro_mem_core::store::{Embedding, ListOrder, OtherMemory, Stats};
use oro_mem_core::{
    Error, ErrorKind, Filter, Memory, MemoryId, NewMemory, Result, Status, Timestamp,
};
use pgvector::Vector;
use postgres::{Client, Row, Statement};

use crate::connect::Location;
use crate::schema::{self, WRITE_LOCK};
use crate::search::EF_SEARCH;
use crate::sql::{filter_sql, Params};
use crate::write::{unembed, unembed_next, Place};
use oro_mem_text::Analyzer;

/// A failure of PostgreSQL in doing `what`, as this crate's error: the server's message (and
/// its detail), never the statement or the URL.
pub(crate) fn pg_error(what: &str, e: postgres::Error) -> Error {
    let message = match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{what}: {} ({detail})", db.message()),
            None => format!("{what}: {}", db.message()),
        },
        None => format!("{what}: {e}"),
    };
    Error::new(ErrorKind::Storage, message).with_source(e)
}

/// Adds what was being done to a PostgreSQL error.
pub(crate) trait Context<T> {
    fn context(self, what: &str) -> Result<T>;
}

impl<T> Context<T> for std::result::Result<T, postgres::Error> {
    fn context(self, what: &str) -> Result<T> {
        self.map_err(|e| pg_error(what, e))
    }
}

/// The columns [`memory_from_row`] reads, in order, qualified with `m.`.
pub(crate) const MEMORY_COLUMNS: &str = "m.id, m.content, m.type, m.tags, m.source, m.bead_id, \
     m.worker_id, m.namespace, m.metadata, m.confidence, m.pinned, m.status, m.created_at, \
     m.updated_at, m.access_count, m.last_accessed, m.session, m.summary, m.files, m.entities, \
     m.return_count, m.merged_into, m.superseded_by, m.superseded_at";

/// Number of columns in [`MEMORY_COLUMNS`].
pub(crate) const MEMORY_COLUMN_COUNT: usize = 24;

fn bad_row(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Storage,
        format!("cannot read memory: its {what} is malformed ({e})"),
    )
}

/// Reads a [`Memory`] from a row selected with [`MEMORY_COLUMNS`] first.
pub(crate) fn memory_from_row(row: &Row) -> Result<Memory> {
    let get = |i: usize| -> Result<String> { row.try_get(i).context("cannot read memory") };
    let tags: serde_json::Value = row.try_get(3).context("cannot read memory")?;
    let metadata: serde_json::Value = row.try_get(8).context("cannot read memory")?;
    let access: i64 = row.try_get(14).context("cannot read memory")?;
    let returned: i64 = row.try_get(20).context("cannot read memory")?;
    let files: serde_json::Value = row.try_get(18).context("cannot read memory")?;
    let entities: serde_json::Value = row.try_get(19).context("cannot read memory")?;
    Ok(Memory {
        id: row.try_get(0).context("cannot read memory")?,
        content: get(1)?,
        memory_type: get(2)?.parse().map_err(|e| bad_row("type", e))?,
        tags: serde_json::from_value(tags).map_err(|e| bad_row("tags", e))?,
        source: get(4)?.parse().map_err(|e| bad_row("source", e))?,
        bead_id: row.try_get(5).context("cannot read memory")?,
        worker_id: row.try_get(6).context("cannot read memory")?,
        namespace: get(7)?,
        metadata: serde_json::from_value(metadata).map_err(|e| bad_row("metadata", e))?,
        confidence: row.try_get(9).context("cannot read memory")?,
        pinned: row.try_get(10).context("cannot read memory")?,
        status: get(11)?.parse().map_err(|e| bad_row("status", e))?,
        merged_into: row.try_get(21).context("cannot read memory")?,
        superseded_by: row.try_get(22).context("cannot read memory")?,
        superseded_at: row
            .try_get::<_, Option<i64>>(23)
            .context("cannot read memory")?
            .map(Timestamp),
        created_at: Timestamp(row.try_get(12).context("cannot read memory")?),
        updated_at: Timestamp(row.try_get(13).context("cannot read memory")?),
        return_count: (returned.max(0) as u64).min(MAX_ACCESS_COUNT),
        access_count: (access.max(0) as u64).min(MAX_ACCESS_COUNT),
        last_accessed: row
            .try_get::<_, Option<i64>>(15)
            .context("cannot read memory")?
            .map(Timestamp),
        session: row.try_get(16).context("cannot read memory")?,
        summary: row.try_get(17).context("cannot read memory")?,
        files: serde_json::from_value(files).map_err(|e| bad_row("files", e))?,
        entities: serde_json::from_value(entities).map_err(|e| bad_row("entities", e))?,
    })
}

pub(crate) fn order_sql(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Newest => "m.created_at DESC, m.id DESC",
        ListOrder::Oldest => "m.created_at ASC, m.id ASC",
        ListOrder::MostAccessed => "m.access_count DESC, m.id ASC",
        ListOrder::Confidence => "m.confidence DESC, m.id ASC",
    }
}

/// How many prepared statements a connection keeps at most.
const MAX_STATEMENTS: usize = 256;

pub(crate) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// An oro-mem store in a PostgreSQL database with pgvector.
///
/// One connection, opened by [`Store::open`], which creates or migrates the tables. A
/// connection left unused for a second is checked before it is used, so that the first call
/// after the server ended it (a restart, a terminated backend) connects again instead of
/// failing. When the connection drops during a call, that call fails and the next one
/// connects again; a write that was under way is rolled back by the server, whole.
pub struct Store {
    pub(crate) client: RefCell<Client>,
    /// The statements of the read path, prepared once per connection.
    statements: RefCell<HashMap<String, Statement>>,
    /// The ids of embedding models by model and dimension (they never change once made).
    models: RefCell<HashMap<(String, usize), i32>>,
    location: Location,
    pub(crate) analyzer: Analyzer,
    migrated_from: i32,
    /// When the connection was last handed out: one idle for longer than [`IDLE_CHECK`] is
    /// checked before it is used again.
    last_used: Cell<Instant>,
}

/// How long a connection may sit unused before it is checked (one empty query) before use:
/// a server ended it meanwhile (restarted, or its backend was terminated), and the client
/// only learns that when it next sends something, which would fail the call.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// How long that check waits for the server.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

fn connect(location: &Location) -> Result<Client> {
    let mut client = location.connect()?;
    schema::ensure_schema(&mut client)?;
    // Vector search: a candidate list of EF_SEARCH, and iterative scans (pgvector 0.8), which
    // go on past the index's first candidates when a filter drops them.
    client
        .batch_execute(&format!(
            "SET hnsw.ef_search = {EF_SEARCH}; SET hnsw.iterative_scan = relaxed_order"
        ))
        .map_err(|e| pg_error("pgvector 0.8 or later is needed (iterative index scans)", e))?;
    // Statements are prepared once and run many times: a plan for the values at hand each
    // time. A generic plan, which PostgreSQL may switch to after five runs, cannot see how
    // many terms a query has or how common they are, and was ten times slower on BM25.
    client
        .batch_execute("SET plan_cache_mode = force_custom_plan")
        .context("cannot set plan_cache_mode")?;
    Ok(client)
}

impl Store {
    /// Connects to the database at `location`, creating the tables (and pgvector, when the
    /// user may) on first use and migrating older ones.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the server cannot be reached, refuses the user, has no
    /// pgvector, or holds a newer schema.
    pub fn open(location: &Location) -> Result<Store> {
        let mut client = connect(location)?;
        let analyzer = Analyzer::new()?;
        let migrated_from = schema::migrate(&mut client, &analyzer)?;
        Ok(Store {
            client: RefCell::new(client),
            last_used: Cell::new(Instant::now()),
            statements: RefCell::new(HashMap::new()),
            models: RefCell::new(HashMap::new()),
            location: location.clone(),
            analyzer,
            migrated_from,
        })
    }

    /// Where the store is, without the password.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The schema version the database had when opened (0 for a new one).
    pub fn migrated_from(&self) -> i32 {
        self.migrated_from
    }

    /// The connection, connected again first if it was lost: known closed, or, after
    /// [`IDLE_CHECK`] unused, not answering an empty query.
    pub(crate) fn client(&self) -> Result<RefMut<'_, Client>> {
        let mut client = self.client.borrow_mut();
        let idle = self.last_used.replace(Instant::now()).elapsed() >= IDLE_CHECK;
        if client.is_closed() || (idle && client.is_valid(CHECK_TIMEOUT).is_err()) {
            self.statements.borrow_mut().clear();
            *client = connect(&self.location)?;
        }
        Ok(client)
    }

    /// Runs `f` in a write transaction holding the schema's write lock ([`WRITE_LOCK`]), and
    /// commits what it did; an error of `f` rolls everything back.
    pub(crate) fn writing<T>(
        &self,
        f: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut client = self.client()?;
        let mut tx = begin_writing(&mut client)?;
        let out = f(&mut tx)?;
        tx.commit().context("cannot commit")?;
        Ok(out)
    }

    /// `sql` prepared on `client` (this store's connection), once per connection: a read
    /// costs one round trip instead of two. Statements differ by the shape of their filter
    /// only, so few are kept; past [`MAX_STATEMENTS`] the cache starts afresh.
    pub(crate) fn prepared(&self, client: &mut Client, sql: &str) -> Result<Statement> {
        let mut cache = self.statements.borrow_mut();
        if let Some(s) = cache.get(sql) {
            return Ok(s.clone());
        }
        let statement = client.prepare(sql).context("cannot prepare a query")?;
        if cache.len() >= MAX_STATEMENTS {
            cache.clear();
        }
        cache.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// The id of embedding model `model` of `dim` dimensions, if it has embedded anything.
    pub(crate) fn model(&self, model: &str, dim: usize) -> Result<Option<i32>> {
        if let Some(&id) = self.models.borrow().get(&(model.to_string(), dim)) {
            return Ok(Some(id));
        }
        let id = crate::search::model_id(&mut *self.client()?, model, dim)?;
        if let Some(id) = id {
            self.models
                .borrow_mut()
                .insert((model.to_string(), dim), id);
        }
        Ok(id)
    }

    /// [`Client::query`] through [`Store::prepared`].
    pub(crate) fn query(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
        what: &str,
    ) -> Result<Vec<Row>> {
        let mut client = self.client()?;
        let statement = self.prepared(&mut client, sql)?;
        client.query(&statement, params).context(what)
    }

    /// The memory with `id`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn get(&self, id: MemoryId) -> Result<Memory> {
        let rows = self.query(
            &format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = $1"),
            &[&id],
            "cannot read memory",
        )?;
        match rows.first() {
            Some(row) => memory_from_row(row),
            None => Err(Error::not_found(format!("no memory with id {id}"))),
        }
    }

    /// The memories with `ids` that exist, in the order of `ids`, in one query.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails.
    pub fn get_many(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = self.query(
            &format!(
                "SELECT {MEMORY_COLUMNS} FROM unnest($1::int8[]) WITH ORDINALITY AS u(id, i) \
                 JOIN memories m ON m.id = u.id ORDER BY u.i"
            ),
            &[&ids],
            "cannot read memories",
        )?;
        let mut seen = std::collections::HashSet::with_capacity(rows.len());
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let m = memory_from_row(row)?;
            if seen.insert(m.id) {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// Memories matching `filter`, in `order`, paged.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails.
    pub fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        let mut p = Params::default();
        let cond = filter_sql(filter, &mut p)?;
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {cond} ORDER BY {} LIMIT {} OFFSET {}",
            order_sql(order),
            p.add(to_i64(limit)),
            p.add(to_i64(offset)),
        );
        let rows = self.query(&sql, &p.refs(), "cannot list")?;
        rows.iter().map(memory_from_row).collect()
    }

    /// Calls `f` with every memory matching `filter`, oldest id first, a page at a time.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails, or the first error `f` returns.
    pub fn for_each(
        &self,
        filter: &Filter,
        mut f: impl FnMut(Memory) -> Result<()>,
    ) -> Result<u64> {
        const PAGE: i64 = 1_000;
        let mut after: MemoryId = 0;
        let mut n = 0;
        loop {
            let mut p = Params::default();
            let cond = filter_sql(filter, &mut p)?;
            let sql = format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {cond} AND m.id > {} \
                 ORDER BY m.id LIMIT {}",
                p.add(after),
                p.add(PAGE),
            );
            let rows = self
                .client()?
                .query(&sql, &p.refs())
                .context("cannot read memories")?;
            for row in &rows {
                let m = memory_from_row(row)?;
                after = m.id;
                f(m)?;
                n += 1;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(n);
            }
        }
    }

    /// Number of memories matching `filter`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails.
    pub fn count(&self, filter: &Filter) -> Result<u64> {
        let mut p = Params::default();
        let cond = filter_sql(filter, &mut p)?;
        let n: i64 = self
            .client()?
            .query_one(
                &format!("SELECT count(*) FROM memories m WHERE {cond}"),
                &p.refs(),
            )
            .context("cannot count memories")?
            .get(0);
        Ok(n.max(0) as u64)
    }

    /// How many memories match `filter`, counted up to `most` (reading at most that many).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] for a filter [`Filter::check`] refuses;
    /// [`ErrorKind::Storage`] when PostgreSQL fails.
    pub fn count_up_to(&self, filter: &Filter, most: u64) -> Result<u64> {
        let mut p = Params::default();
        let cond = filter_sql(filter, &mut p)?;
        let n: i64 = self
            .client()?
            .query_one(
                &format!(
                    "SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {cond} LIMIT {}) t",
                    most.min(i64::MAX as u64)
                ),
                &p.refs(),
            )
            .context("cannot count memories")?
            .get(0);
        Ok(n.max(0) as u64)
    }

    /// Calls `f` with every memory, of any status, oldest id first, with its embedding, a
    /// page at a time.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails, or the first error `f` returns.
    pub fn for_each_embedded(&self, f: &mut dyn FnMut(OtherMemory) -> Result<()>) -> Result<u64> {
        const PAGE: i64 = 1_000;
        let mut after: MemoryId = 0;
        let mut n = 0;
        loop {
            let rows = self
                .client()?
                .query(
                    &format!(
                        "SELECT {MEMORY_COLUMNS}, m.embedding, e.model FROM memories m \
                         LEFT JOIN embedding_models e ON e.id = m.embedding_model_id \
                         WHERE m.id > $1 ORDER BY m.id LIMIT $2"
                    ),
                    &[&after, &PAGE],
                )
                .context("cannot read memories")?;
            for row in &rows {
                let memory = memory_from_row(row)?;
                after = memory.id;
                let vector: Option<Vector> = row.get(MEMORY_COLUMN_COUNT);
                let model: Option<String> = row.get(MEMORY_COLUMN_COUNT + 1);
                let embedding = match (vector, model) {
                    (Some(v), Some(model)) => Some(Embedding {
                        model,
                        vector: v.to_vec(),
                    }),
                    _ => None,
                };
                f(OtherMemory {
                    id: memory.id,
                    superseded_by: oro_mem_core::store::superseded(&memory),
                    memory: NewMemory::from(memory),
                    embedding,
                })?;
                n += 1;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(n);
            }
        }
    }

    /// Counts describing the store; its size is that of its tables and their indexes.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails.
    pub fn stats(&self) -> Result<Stats> {
        let mut c = self.client()?;
        let what = "cannot read stats";
        let row = c
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE status = 'active'), \
                        count(*) FILTER (WHERE status = 'archived'), count(*) FILTER (WHERE pinned), \
                        count(embedding), min(created_at), max(created_at), \
                        (SELECT max(version) FROM oro_mem_schema), \
                        (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_class c \
                         WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'), \
                        count(*) FILTER (WHERE status = 'merged'), \
                        count(*) FILTER (WHERE status = 'superseded') \
                 FROM memories",
                &[],
            )
            .context(what)?;
        let count = |i: usize| row.get::<_, i64>(i).max(0) as u64;
        let pairs = |c: &mut Client, sql: &str| -> Result<Vec<(String, u64)>> {
            Ok(c.query(sql, &[])
                .context(what)?
                .iter()
                .map(|r| (r.get(0), r.get::<_, i64>(1).max(0) as u64))
                .collect())
        };
        Ok(Stats {
            total: count(0),
            active: count(1),
            archived: count(2),
            merged: count(9),
            superseded: count(10),
            pinned: count(3),
            embedded: count(4),
            embedded_by_model: pairs(
                &mut c,
                "SELECT e.model, count(*) FROM memories m JOIN embedding_models e \
                 ON e.id = m.embedding_model_id GROUP BY e.model ORDER BY count(*) DESC, e.model",
            )?,
            by_type: pairs(
                &mut c,
                "SELECT type, count(*) FROM memories WHERE status = 'active' \
                 GROUP BY type ORDER BY count(*) DESC, type",
            )?,
            by_namespace: pairs(
                &mut c,
                "SELECT namespace, count(*) FROM memories GROUP BY namespace \
                 ORDER BY count(*) DESC, namespace",
            )?,
            schema_version: u32::try_from(row.get::<_, Option<i32>>(7).unwrap_or(0)).unwrap_or(0),
            size_bytes: count(8),
            created_range: match (row.get(5), row.get(6)) {
                (Some(a), Some(b)) => Some((Timestamp(a), Timestamp(b))),
                _ => None,
            },
        })
    }

    /// Deletes a memory, its postings and its claim. Returns the memories whose embeddings it
    /// dropped, in the same transaction, by ascending id: the next
    /// [`CONTEXT_MEMORIES`](oro_mem_core::memory::CONTEXT_MEMORIES) active memories of its
    /// session, when it was active, whose embeddings were made with it among the memories
    /// before them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn forget(&mut self, id: MemoryId) -> Result<Vec<MemoryId>> {
        self.writing(|tx| {
            let place = Place::read(tx, id)?
                .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))?;
            tx.execute("DELETE FROM memories WHERE id = $1", &[&id])
                .context("cannot delete memory")?;
            if place.active {
                unembed_next(tx, &place)
            } else {
                Ok(Vec::new())
            }
        })
    }

    /// Pins or unpins a memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()> {
        self.update_one(
            id,
            "UPDATE memories SET pinned = $2, updated_at = $3 WHERE id = $1",
            &[&id, &pinned, &Timestamp::now().as_second()],
        )
    }

    /// Archives or reactivates a memory. Returns the memories whose embeddings it dropped, in
    /// the same transaction, by ascending id: when the status changes, the next
    /// [`CONTEXT_MEMORIES`](oro_mem_core::memory::CONTEXT_MEMORIES) active memories of its
    /// session (the memories before them are now others), and a reactivated memory itself
    /// (those before it may have changed while it was archived).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn set_status(&mut self, id: MemoryId, status: Status) -> Result<Vec<MemoryId>> {
        self.writing(|tx| {
            let place = Place::read(tx, id)?
                .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))?;
            // A memory that is not merged is merged into nothing (restored, or archived),
            // and one not superseded is superseded by nothing.
            tx.execute(
                "UPDATE memories SET status = $2, updated_at = $3, \
                   merged_into = CASE WHEN $2 = 'merged' THEN merged_into END, \
                   superseded_by = CASE WHEN $2 = 'superseded' THEN superseded_by END, \
                   superseded_at = CASE WHEN $2 = 'superseded' THEN superseded_at END \
                 WHERE id = $1",
                &[&id, &status.as_str(), &Timestamp::now().as_second()],
            )
            .context("cannot update memory")?;
            let activated = status == Status::Active;
            let mut unembedded = Vec::new();
            if place.active != activated {
                unembedded = unembed_next(tx, &place)?;
                if activated {
                    unembedded.extend(unembed(tx, &[id])?);
                    unembedded.sort_unstable();
                }
            }
            Ok(unembedded)
        })
    }

    fn update_one(
        &mut self,
        id: MemoryId,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<()> {
        let n = self
            .client()?
            .execute(sql, params)
            .context("cannot update memory")?;
        if n == 0 {
            return Err(Error::not_found(format!("no memory with id {id}")));
        }
        Ok(())
    }

    /// Records that recall returned `ids`: `return_count += 1` (saturating at
    /// [`MAX_ACCESS_COUNT`]), in one statement. Rows are locked in id order, so two processes
    /// recording at once wait for each other instead of deadlocking.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails; nothing is changed then.
    pub fn record_returned(&mut self, ids: &[MemoryId]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.client()?
            .execute(
                "UPDATE memories m SET return_count = least(m.return_count + 1, $2) \
                 FROM (SELECT id FROM memories WHERE id = ANY($1) ORDER BY id FOR UPDATE) l \
                 WHERE m.id = l.id",
                &[&ids, &(MAX_ACCESS_COUNT as i64)],
            )
            .context("cannot record access")?;
        Ok(())
    }

    /// Records that `ids` were used: `access_count += 1` (saturating at
    /// [`MAX_ACCESS_COUNT`]), `last_accessed = now`, in one statement, rows locked in id
    /// order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when PostgreSQL fails; nothing is changed then.
    pub fn record_used(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.client()?
            .execute(
                "UPDATE memories m SET access_count = least(m.access_count + 1, $3), \
                 last_accessed = $2 \
                 FROM (SELECT id FROM memories WHERE id = ANY($1) ORDER BY id FOR UPDATE) l \
                 WHERE m.id = l.id",
                &[&ids, &now.as_second(), &(MAX_ACCESS_COUNT as i64)],
            )
            .context("cannot record access")?;
        Ok(())
    }
}

/// A transaction on `client` holding the schema's write lock ([`WRITE_LOCK`]): every write of
/// the store runs in one.
pub(crate) fn begin_writing(client: &mut Client) -> Result<postgres::Transaction<'_>> {
    let mut tx = client
        .transaction()
        .context("cannot start write transaction")?;
    tx.batch_execute(WRITE_LOCK)
        .context("cannot lock for writing")?;
    Ok(tx)
}
