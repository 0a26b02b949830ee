//! Reading candidates for recall: lexical (FTS5), nearest embeddings (the sign-bit index, or
//! an exact scan under a filter), and exact cosines for candidates found otherwise.

use std::collections::{HashMap, HashSet};

use oro_mem_core::{Filter, Memory, MemoryId, Neighbour, Result};
use oro_mem_text::query_terms;
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, OptionalExtension};

use crate::filter::{four_statuses, Where};
use crate::fts5::fts5_query;
use crate::mirror::{self, Mirror};
use crate::quant::{dot_f32, TopK};
use crate::rescore;
use crate::row::{memory_from_row, MEMORY_COLUMNS, MEMORY_COLUMN_COUNT};
use crate::store::{to_i64, SqlContext, Store};
use crate::vectors;

impl Store {
    /// The best `depth` memories matching `text` lexically (FTS5 BM25) under `filter`, each
    /// with its BM25 score (negated, so larger is better), best first.
    ///
    /// Text with nothing searchable in it (only stopwords or punctuation) has no candidates.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails. Never for the text itself.
    pub fn lexical_candidates(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(Memory, f64)>> {
        let Some(fts) = fts5_query(text) else {
            return Ok(Vec::new());
        };
        if depth == 0 {
            return Ok(Vec::new());
        }
        // Fast path for the common case of no filter but the status: rank in FTS5 alone, then
        // read the rows of the best few. Joining `memories` for every match before sorting
        // costs about a third of the query on large stores. The answer is exact whenever
        // enough of the best matches pass the filter, or all matches were seen; otherwise the
        // general query below runs.
        if let Some(hits) = self.warm_search(text, filter, depth)? {
            return Ok(hits);
        }
        if filter.is_status_only() {
            let fetch = depth.saturating_mul(2).max(depth + 16);
            let (hits, complete) = self.top_by_rank(&fts, filter, depth, fetch)?;
            if hits.len() >= depth || complete {
                return Ok(hits);
            }
        }
        let w = Where::from_filter(filter)?;
        let sql = format!(
            "SELECT {MEMORY_COLUMNS}, -memories_fts.rank \
             FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid \
             WHERE memories_fts MATCH ? AND {} \
             ORDER BY memories_fts.rank LIMIT ?",
            w.sql
        );
        let params = std::iter::once(rusqlite::types::Value::Text(fts))
            .chain(w.params)
            .chain(std::iter::once(rusqlite::types::Value::Integer(to_i64(
                depth,
            ))));
        let mut stmt = self.conn.prepare_cached(&sql).context("cannot search")?;
        let rows = stmt
            .query_map(params_from_iter(params), candidate_from_row)
            .context("cannot search")?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .context("cannot search")
    }

    /// The score [`Store::lexical_candidates`] gives each of `ids` that matches `text`'s
    /// words, however far down its list, in the order of `ids`: from the mirror of a warm
    /// store, else from the index's count of rows per term and each memory's own text, cut by
    /// the index's tokenizer, which costs one lookup a term and one tokenization a memory
    /// where ranking every match would cost as much as the search; a query with a CJK bigram,
    /// or an index of an older schema opened read-only, through FTS5, every match ranked.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails.
    pub fn lexical_scores(&self, text: &str, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        let query = query_terms(text);
        if ids.is_empty() || query.is_empty() {
            return Ok(Vec::new());
        }
        let rescored = !self.warm && self.indexes_every_field();
        if self.warm || rescored {
            mirror::make_vocabularies(&self.conn)?;
        }
        // One snapshot for the statistics and the rows.
        let tx = self
            .conn
            .unchecked_transaction()
            .context("cannot start a read transaction")?;
        let scores = if self.warm {
            let mut mirror = self.mirror.borrow_mut();
            let m = Mirror::current(&mut mirror, &tx)?;
            let scores = m.scores_of(&tx, &query, ids)?;
            m.trim();
            scores
        } else if rescored {
            rescore::scores(&tx, self.analyzer()?, &query, ids)?
        } else {
            None
        };
        match scores {
            Some(scores) => Ok(scores),
            None => ranked_by_fts5(&tx, text, ids),
        }
    }

    /// The `depth` memories under `filter` whose embeddings (made by `model`) are nearest to
    /// `query` (unit length): `(id, cosine)`, best first. The cosines are exact.
    ///
    /// With no filter but the status, the sign-bit index finds `max(10 × depth, 500)` rows and
    /// only those are rescored from the exact vectors; otherwise (or when too few of those pass the
    /// status) every embedding under the filter is scored exactly.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails or the index is inconsistent.
    pub fn vector_candidates(
        &self,
        model: &str,
        query: &[f32],
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        if depth == 0 || query.is_empty() {
            return Ok(Vec::new());
        }
        if filter.is_status_only() {
            let fetch = vectors::prefilter(depth);
            let near = vectors::search(&self.conn, model, query, fetch)?;
            let [s1, s2, s3, s4] = four_statuses(filter);
            // One statement for every row, in id order (the rows' pages in file order).
            let mut ids: Vec<MemoryId> = near.iter().map(|&(id, _)| id).collect();
            ids.sort_unstable();
            let ids = serde_json::to_string(&ids).expect("ids serialize");
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT m.id, m.embedding FROM json_each(?1) j \
                     CROSS JOIN memories m ON m.id = j.value \
                     WHERE m.status IN (?2, ?5, ?6, ?7) AND m.embedding_model = ?3 \
                     AND m.confidence >= ?4",
                )
                .context("cannot read embeddings")?;
            let min_confidence = filter.min_confidence.unwrap_or(0.0);
            let mut rows = stmt
                .query(params![ids, s1, model, min_confidence, s2, s3, s4])
                .context("cannot read embeddings")?;
            let mut top = TopK::new(depth);
            let mut v = Vec::with_capacity(query.len());
            while let Some(row) = rows.next().context("cannot read embeddings")? {
                let id: MemoryId = row.get(0).context("cannot read embeddings")?;
                let blob = row
                    .get_ref(1)
                    .and_then(|b| Ok(b.as_blob()?))
                    .context("cannot read embeddings")?;
                if vectors::read_blob(blob, query.len(), &mut v) {
                    top.push(dot_f32(query, &v), id);
                }
            }
            drop(rows);
            if top.len() >= depth || near.len() < fetch {
                return Ok(sorted_hits(top));
            }
        }
        let scan = self.scan_for(model, filter)?;
        let (sql, params) = scan_sql(model, filter, scan)?;
        let mut stmt = self
            .conn
            .prepare_cached(&sql)
            .context("cannot search vectors")?;
        let mut rows = stmt
            .query(params_from_iter(params))
            .context("cannot search vectors")?;
        let mut top = TopK::new(depth);
        let mut v = Vec::with_capacity(query.len());
        while let Some(row) = rows.next().context("cannot search vectors")? {
            let id: MemoryId = row.get(0).context("cannot search vectors")?;
            let dim: i64 = row.get(2).context("cannot search vectors")?;
            let blob = row
                .get_ref(1)
                .and_then(|v| Ok(v.as_blob()?))
                .context("cannot search vectors")?;
            if vectors::read_blob(blob, dim as usize, &mut v) {
                top.push(dot_f32(query, &v), id);
            }
        }
        Ok(sorted_hits(top))
    }

    /// The exact cosine between `query` and the embedding (made by `model`) of each of `ids`
    /// that has one of the query's dimension, in the order of `ids`; the others are left out.
    /// For candidates found otherwise, so that they too get a vector score.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails.
    pub fn similarities(
        &self,
        model: &str,
        query: &[f32],
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, f64)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT embedding, embedding_dim FROM memories \
                 WHERE id = ?1 AND embedding_model = ?2",
            )
            .context("cannot read embeddings")?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(v) =
                embedding_row(&mut stmt, params![id, model])?.filter(|v| v.len() == query.len())
            {
                out.push((id, f64::from(dot_f32(query, &v))));
            }
        }
        Ok(out)
    }

    /// The pairs of `memories` that are neighbours in their session: of one session and
    /// namespace, at most `window` places apart among its active memories by creation time
    /// and then id. Each pair is given both ways, with its distance (1 = next to each other).
    ///
    /// The memories of a session are sorted and the gap between each two in a row is counted
    /// in the `memories_session` index, up to `window`: one short range read per pair in a
    /// row, whatever the session's size.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails.
    pub fn session_neighbours(
        &self,
        memories: &[&Memory],
        window: usize,
    ) -> Result<Vec<Neighbour>> {
        let mut out = Vec::new();
        if window == 0 {
            return Ok(out);
        }
        let mut sessions: HashMap<(&str, &str), Vec<&Memory>> = HashMap::new();
        for m in memories {
            if let Some(session) = &m.session {
                sessions.entry((session, &m.namespace)).or_default().push(m);
            }
        }
        let context = "cannot read session neighbours";
        let mut between = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM memories \
                 WHERE session = ?1 AND namespace = ?2 AND status = 'active' \
                   AND (created_at, id) > (?3, ?4) AND (created_at, id) < (?5, ?6) LIMIT ?7)",
            )
            .context(context)?;
        let window = u32::try_from(window).unwrap_or(u32::MAX);
        for ((session, namespace), mut ms) in sessions {
            ms.sort_by_key(|m| (m.created_at, m.id));
            ms.dedup_by_key(|m| m.id);
            // Distance from each memory to the next in `ms`, when within the window.
            let mut steps = Vec::with_capacity(ms.len().saturating_sub(1));
            for pair in ms.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let gap: u32 = between
                    .query_row(
                        params![
                            session,
                            namespace,
                            a.created_at.as_second(),
                            a.id,
                            b.created_at.as_second(),
                            b.id,
                            window
                        ],
                        |r| r.get(0),
                    )
                    .context(context)?;
                steps.push(gap + 1);
            }
            let ids: Vec<MemoryId> = ms.iter().map(|m| m.id).collect();
            Neighbour::pairs(&ids, &steps, window, &mut out);
        }
        Ok(out)
    }

    /// The best `depth` matches of `text` under `filter`, from the mirror of the index, on a
    /// [warm](Store::set_warm) store: what the general query gives, in the same order. `None`
    /// when the store is not warm, or the mirror leaves the query to FTS5.
    ///
    /// The matches are taken best first in growing chunks, and each chunk's rows that pass
    /// the filter are read in one statement, until `depth` are found or no match is left.
    fn warm_search(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Option<Vec<(Memory, f64)>>> {
        if !self.warm {
            return Ok(None);
        }
        mirror::make_vocabularies(&self.conn)?;
        // One snapshot for the check that the mirror is current, its reads and the rows.
        let tx = self
            .conn
            .unchecked_transaction()
            .context("cannot start a read transaction")?;
        let mut mirror = self.mirror.borrow_mut();
        let m = Mirror::current(&mut mirror, &tx)?;
        let ranked = m.ranked(&tx, &query_terms(text))?;
        m.trim();
        let Some(mut rest) = ranked else {
            return Ok(None);
        };
        let w = Where::from_filter(filter)?;
        let mut stmt = tx
            .prepare_cached(&format!(
                "SELECT {MEMORY_COLUMNS} FROM json_each(?) j CROSS JOIN memories m \
                 ON m.id = j.value WHERE {}",
                w.sql
            ))
            .context("cannot search")?;
        let mut hits = Vec::with_capacity(depth);
        let mut chunk = depth.saturating_mul(2).max(depth + 16);
        let mut narrowed = false;
        while hits.len() < depth && !rest.is_empty() {
            let best = take_best(&mut rest, chunk);
            let ids: Vec<MemoryId> = best.iter().map(|&(id, _)| id).collect();
            let params = std::iter::once(rusqlite::types::Value::Text(
                serde_json::to_string(&ids).expect("ids serialize"),
            ))
            .chain(w.params.iter().cloned());
            let mut rows: HashMap<MemoryId, Memory> = stmt
                .query_map(params_from_iter(params), memory_from_row)
                .context("cannot search")?
                .map(|r| r.map(|m| (m.id, m)))
                .collect::<rusqlite::Result<_>>()
                .context("cannot search")?;
            hits.extend(
                best.into_iter()
                    .filter_map(|(id, score)| rows.remove(&id).map(|m| (m, score)))
                    .take(depth - hits.len()),
            );
            if !narrowed && hits.len() < depth && !rest.is_empty() {
                // Too few of the best were in the filter's namespace: if it is a small one,
                // the rest's matches elsewhere are dropped by id before more rows are read.
                narrowed = true;
                if let Some(ids) = self.few_in_namespace(filter)? {
                    let ids: HashSet<MemoryId> = ids.into_iter().collect();
                    rest.retain(|(id, _)| ids.contains(id));
                }
            }
            chunk = chunk.saturating_mul(4);
        }
        Ok(Some(hits))
    }

    /// The best `fetch` matches by FTS5 rank, then those with `status`, at most `depth`; and
    /// whether every match was seen (fewer than `fetch` matched). With no rows the second is
    /// false: the caller cannot tell and should ask the general query.
    fn top_by_rank(&self, fts: &str, filter: &Filter, depth: usize, fetch: usize) -> Result<Hits> {
        let sql = format!(
            "SELECT {MEMORY_COLUMNS}, -t.score, t.n FROM \
               (SELECT rowid AS id, rank AS score, count(*) OVER () AS n FROM memories_fts \
                WHERE memories_fts MATCH ?1 ORDER BY rank LIMIT ?2) t \
             JOIN memories m ON m.id = t.id WHERE m.status IN (?3, ?6, ?7, ?8) \
             AND m.confidence >= ?5 \
             ORDER BY t.score LIMIT ?4"
        );
        let mut stmt = self.conn.prepare_cached(&sql).context("cannot search")?;
        let [s1, s2, s3, s4] = four_statuses(filter);
        let rows = stmt
            .query_map(
                params![
                    fts,
                    to_i64(fetch),
                    s1,
                    to_i64(depth),
                    filter.min_confidence.unwrap_or(0.0),
                    s2,
                    s3,
                    s4
                ],
                |row| {
                    let matches: i64 = row.get(MEMORY_COLUMN_COUNT + 1)?;
                    Ok((candidate_from_row(row)?, matches))
                },
            )
            .context("cannot search")?
            .collect::<rusqlite::Result<Vec<_>>>()
            .context("cannot search")?;
        let complete = rows
            .first()
            .is_some_and(|&(_, matches)| matches < to_i64(fetch));
        Ok((rows.into_iter().map(|(c, _)| c).collect(), complete))
    }
}

/// FTS5's score (`rank`, negated) of each of `ids` that matches `text`'s words, in the order
/// of `ids`: every match ranked, those asked for kept.
fn ranked_by_fts5(
    conn: &rusqlite::Connection,
    text: &str,
    ids: &[MemoryId],
) -> Result<Vec<(MemoryId, f64)>> {
    let Some(fts) = fts5_query(text) else {
        return Ok(Vec::new());
    };
    let wanted: HashSet<MemoryId> = ids.iter().copied().collect();
    let mut stmt = conn
        .prepare_cached("SELECT rowid, -rank FROM memories_fts WHERE memories_fts MATCH ?1")
        .context("cannot search")?;
    let found: HashMap<MemoryId, f64> = stmt
        .query_map([fts], |r| Ok((r.get(0)?, r.get(1)?)))
        .context("cannot search")?
        .filter(|r| match r {
            Ok((id, _)) => wanted.contains(id),
            Err(_) => true,
        })
        .collect::<rusqlite::Result<_>>()
        .context("cannot search")?;
    Ok(ids
        .iter()
        .filter_map(|id| Some((*id, *found.get(id)?)))
        .collect())
}

/// How the exact scan of [`Store::vector_candidates`] reads the memories a filter selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scan {
    /// Through the index of the filter's namespace or session, a table seek each: for a few.
    ByIndex,
    /// The whole table, in id order: for a namespace that is much of the store, whose
    /// memories the index gives in order of creation, each a seek elsewhere in the table
    /// (twice the time of reading the table through, for a namespace of nearly all of it).
    Table,
}

/// A namespace of at most this share of a model's embeddings is read through its index.
const INDEXED_SHARE: usize = 4;

/// The most ids of a namespace a warm lexical search reads to drop the matches outside it: a
/// larger namespace is read out of the best matches a chunk at a time, as other filters are.
/// Reading an id from the index costs about 60 ns, a tenth of reading a match's row.
const FEW_IDS: i64 = 10_000;

impl Store {
    /// How to scan for `filter`'s memories with `model`'s embeddings: through the index
    /// unless a namespace without a session condition holds more than a quarter of them,
    /// which counting at most that many of its index entries tells ([`Store::count_up_to`],
    /// kept until the database changes).
    pub(crate) fn scan_for(&self, model: &str, filter: &Filter) -> Result<Scan> {
        if lone_namespace(filter).is_none() {
            return Ok(Scan::ByIndex);
        }
        let context = "cannot plan a vector search";
        let embedded: i64 = self
            .conn
            .prepare_cached("SELECT coalesce(sum(len), 0) FROM vector_chunks WHERE model = ?1")
            .context(context)?
            .query_row([model], |r| r.get(0))
            .context(context)?;
        // The namespace with the filter's status alone, as its index holds it.
        let namespace = Filter {
            namespace: filter.namespace.clone(),
            statuses: filter.statuses.clone(),
            include_superseded: filter.include_superseded,
            ..Filter::default()
        };
        let most = (embedded / INDEXED_SHARE as i64).max(0) as u64;
        Ok(if self.count_up_to(&namespace, most + 1)? <= most {
            Scan::ByIndex
        } else {
            Scan::Table
        })
    }

    /// The ids of the memories of `filter`'s namespace with its status, from the namespace's
    /// index, when they are at most a quarter of the store (by its largest id) and at most
    /// [`FEW_IDS`]; `None` when they are more (having read that many), or the filter has no
    /// namespace or has a session, whose index the planner then uses.
    pub(crate) fn few_in_namespace(&self, filter: &Filter) -> Result<Option<Vec<MemoryId>>> {
        if lone_namespace(filter).is_none() {
            return Ok(None);
        }
        let largest: i64 = self
            .conn
            .prepare_cached("SELECT coalesce(max(id), 0) FROM memories")
            .context("cannot read a namespace's memories")?
            .query_row([], |r| r.get(0))
            .context("cannot read a namespace's memories")?;
        self.namespace_ids(filter, (largest / INDEXED_SHARE as i64).min(FEW_IDS))
    }

    /// The ids of the memories of `filter`'s namespace ([`lone_namespace`]) with its status,
    /// from the namespace's index, if they are at most `most` (at most `most + 1` are read);
    /// `None` when they are more or the filter has no such namespace.
    fn namespace_ids(&self, filter: &Filter, most: i64) -> Result<Option<Vec<MemoryId>>> {
        let Some(namespace) = lone_namespace(filter) else {
            return Ok(None);
        };
        let context = "cannot read a namespace's memories";
        let [s1, s2, s3, s4] = four_statuses(filter);
        let ids: Vec<MemoryId> = self
            .conn
            .prepare_cached(
                "SELECT id FROM memories WHERE namespace = ?1 AND status IN (?2, ?4, ?5, ?6) \
                 LIMIT ?3",
            )
            .context(context)?
            .query_map(params![namespace, s1, most + 1, s2, s3, s4], |r| r.get(0))
            .context(context)?
            .collect::<rusqlite::Result<_>>()
            .context(context)?;
        Ok((ids.len() as i64 <= most).then_some(ids))
    }
}

/// The namespace of `filter` whose own index a search may read instead of SQLite's choice:
/// none with a session condition, whose index the planner uses.
fn lone_namespace(filter: &Filter) -> Option<&str> {
    filter
        .namespace
        .as_deref()
        .filter(|_| filter.session.is_none())
}

/// The exact scan of [`Store::vector_candidates`] under `filter`, and its parameters: the
/// embedding from `model` of every memory the filter selects, read as `scan` says.
///
/// The model's condition has a unary `+`, which keeps SQLite from searching the
/// `memories_embedding_model` index by it: with no statistics the planner prefers that index
/// to a namespace's, and since nearly every memory has an embedding from the store's one
/// model, it then read the whole store, a table seek a memory, to find a namespace's few (a
/// store of 20,000 memories in 200 namespaces took 15 ms a query so).
pub(crate) fn scan_sql(model: &str, filter: &Filter, scan: Scan) -> Result<(String, Vec<Value>)> {
    let w = Where::from_filter(filter)?;
    let table = match scan {
        Scan::ByIndex => "memories m",
        Scan::Table => "memories m NOT INDEXED",
    };
    let sql = format!(
        "SELECT m.id, m.embedding, m.embedding_dim FROM {table} \
         WHERE +m.embedding_model = ? AND m.embedding IS NOT NULL AND {}",
        w.sql
    );
    let params = std::iter::once(Value::Text(model.to_string()))
        .chain(w.params)
        .collect();
    Ok((sql, params))
}

/// The best memories, best first, with their scores, and whether every match was seen.
type Hits = (Vec<(Memory, f64)>, bool);

/// The best `n` of `rest` (`(id, score)`), best first (ties by id, as FTS5 orders them),
/// taken out of it.
fn take_best(rest: &mut Vec<(MemoryId, f64)>, n: usize) -> Vec<(MemoryId, f64)> {
    let order = |a: &(MemoryId, f64), b: &(MemoryId, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if rest.len() > n && n > 0 {
        rest.select_nth_unstable_by(n - 1, order);
    }
    let mut best: Vec<_> = if rest.len() > n {
        rest.drain(..n).collect()
    } else {
        std::mem::take(rest)
    };
    best.sort_unstable_by(order);
    best
}

/// A memory and the BM25 score in the column after it.
pub(crate) fn candidate_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(Memory, f64)> {
    Ok((memory_from_row(row)?, row.get(MEMORY_COLUMN_COUNT)?))
}

fn sorted_hits(top: TopK<MemoryId>) -> Vec<(MemoryId, f64)> {
    top.into_sorted_vec()
        .into_iter()
        .map(|(score, id)| (id, f64::from(score)))
        .collect()
}

/// Runs `stmt`, which selects `embedding, embedding_dim` of at most one memory, and decodes
/// the vector; `None` when no row matches or the blob is not `embedding_dim` floats.
pub(crate) fn embedding_row(
    stmt: &mut rusqlite::CachedStatement<'_>,
    params: impl rusqlite::Params,
) -> Result<Option<Vec<f32>>> {
    let row = stmt
        .query_row(params, |r| {
            Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, i64>(1)?))
        })
        .optional()
        .context("cannot read embedding")?;
    Ok(row.and_then(|(blob, dim)| vectors::from_blob(&blob, usize::try_from(dim).ok()?)))
}
