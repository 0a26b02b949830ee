//! Candidates: BM25 over the postings, nearest embeddings by pgvector's HNSW rescored
//! exactly, exact similarities, and session neighbours.

use std::collections::HashMap;

use oro_mem_core::memory::CONTEXT_MEMORIES;
use oro_mem_core::store::ToEmbed;
use oro_mem_core::{Filter, Memory, MemoryId, Neighbour, Result, Timestamp};
use oro_mem_text::bm25::{self, Bm25};
use oro_mem_text::query_terms;
use pgvector::Vector;
use postgres::GenericClient;

use crate::sql::{filter_sql, Params};
use crate::store::{memory_from_row, to_i64, Context, Store, MEMORY_COLUMNS, MEMORY_COLUMN_COUNT};
use crate::write::{to_embed_columns, to_embed_from_row, NEXT_ACTIVE};

/// How many neighbours the HNSW search keeps in its candidate list (pgvector's
/// `hnsw.ef_search`) at least, set for each connection; more when more results are asked for.
pub(crate) const EF_SEARCH: usize = 100;

/// A `WITH` clause whose `s (id, score)` holds the BM25 score, exactly as FTS5's `bm25()`
/// computes it ([`oro_mem_text::bm25`]: `k1` 1.2, `b` 0.75, IDF floored at 1e-6, length
/// over the average of the whole store), of each memory that holds one of the terms `$terms`
/// (a `text[]`, one entry per query phrase), among the postings `p` that meet `postings`
/// (`true` for all); with `cond`, only of memories `m` that meet it. Without, the scores come from the postings'
/// index alone.
pub(crate) fn bm25_with(terms: &str, postings: &str, cond: Option<&str>) -> String {
    let (join, cond) = match cond {
        Some(cond) => ("JOIN memories m ON m.id = p.memory_id", cond),
        None => ("", "true"),
    };
    // The store's totals as scalar subqueries, each read once per query: joined as a table,
    // their row's dead versions (one per write until vacuumed) made the planner expect
    // thousands of rows and plan a scan of every memory. `q` is materialized: inlined, it had
    // each term's document frequency read once per posting instead of once per term, and a
    // transaction writing many memories that share words makes each of their `lex_terms` rows
    // a chain of versions that every read walks (an import of 200 alike memories in one
    // transaction: 5.6 s inlined, 0.7 s materialized).
    let idf = bm25::sql_idf("(SELECT docs FROM lex_stats)", "coalesce(t.df, 0)");
    let part = Bm25::FTS5.sql_part(
        "q.idf",
        "p.tf",
        "p.len",
        "(SELECT tokens::float8 / greatest(docs, 1) FROM lex_stats)",
    );
    format!(
        "WITH q AS MATERIALIZED (SELECT u.term, {idf} AS idf \
               FROM unnest({terms}::text[]) AS u(term) \
               LEFT JOIN lex_terms t ON t.term = u.term COLLATE \"C\"), \
         s AS (SELECT p.memory_id AS id, sum({part}) AS score \
               FROM q JOIN lex_postings p ON p.term = q.term COLLATE \"C\" {join} \
               WHERE ({postings}) AND ({cond}) GROUP BY p.memory_id) "
    )
}

/// How many of the best matches by score alone [`Store::lexical_candidates`] reads first,
/// for each candidate asked for: a filter that keeps most memories (the default keeps the
/// active, trusted ones) is met by the first `depth` of them.
const OVERFETCH: usize = 4;

/// The exact cosine of two unit vectors, as the SQLite store computes it.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    f64::from(oro_mem_core::store::dot(a, b))
}

/// The id of the embedding model `model` with `dim` dimensions, if any memory was ever given
/// an embedding by it.
pub(crate) fn model_id(
    client: &mut impl GenericClient,
    model: &str,
    dim: usize,
) -> Result<Option<i32>> {
    let dim = i32::try_from(dim).unwrap_or(i32::MAX);
    Ok(client
        .query_opt(
            "SELECT id FROM embedding_models WHERE model = $1 AND dim = $2",
            &[&model, &dim],
        )
        .context("cannot read embedding models")?
        .map(|r| r.get(0)))
}

/// Up to `depth` memories of embedding model `model_id` (of `dim` dimensions) meeting `cond`
/// (its parameters in `p`), nearest to `query` by the HNSW index, with their exact cosine,
/// best first.
pub(crate) fn nearest(
    client: &mut impl GenericClient,
    model_id: i32,
    dim: usize,
    query: &[f32],
    cond: &str,
    p: Params,
    depth: usize,
) -> Result<Vec<(MemoryId, f64)>> {
    let (sql, p) = nearest_sql(model_id, dim, query, cond, p, depth);
    let rows = if depth <= EF_SEARCH {
        // The session's settings (see `connect`) are enough.
        client
            .query(&sql, &p.refs())
            .context("cannot search embeddings")?
    } else {
        let mut tx = client.transaction().context("cannot search embeddings")?;
        // An integer of this crate's own making.
        tx.batch_execute(&format!("SET LOCAL hnsw.ef_search = {}", depth.min(1_000)))
            .context("cannot search embeddings")?;
        let rows = tx
            .query(&sql, &p.refs())
            .context("cannot search embeddings")?;
        tx.commit().context("cannot search embeddings")?;
        rows
    };
    Ok(rescored(&rows, query))
}

/// The statement of [`nearest`].
fn nearest_sql(
    model_id: i32,
    dim: usize,
    query: &[f32],
    cond: &str,
    mut p: Params,
    depth: usize,
) -> (String, Params) {
    let sql = format!(
        "SELECT m.id, m.embedding FROM memories m \
         WHERE m.embedding_model_id = {model_id} AND {cond} \
         ORDER BY m.embedding::halfvec({dim}) <=> {}::vector::halfvec({dim}) LIMIT {}",
        p.add(Vector::from(query.to_vec())),
        p.add(to_i64(depth)),
    );
    (sql, p)
}

/// `(id, embedding)` rows as `(id, exact cosine with query)`, best first.
fn rescored(rows: &[postgres::Row], query: &[f32]) -> Vec<(MemoryId, f64)> {
    let mut out: Vec<(MemoryId, f64)> = rows
        .iter()
        .map(|r| {
            let v: Vector = r.get(1);
            (r.get::<_, i64>(0), dot(query, v.as_slice()))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

impl Store {
    /// The best `depth` memories matching `text`'s words under `filter`, with their BM25
    /// score (larger is better): FTS5's `bm25()` over the same terms as the SQLite store.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn lexical_candidates(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(Memory, f64)>> {
        let keys = self.analyzer.query(&query_terms(text))?;
        if keys.is_empty() || depth == 0 {
            filter.check()?;
            return Ok(Vec::new());
        }
        // The best matches by score alone first, from the postings' index, then their rows
        // and the filter: scoring every match's row would read one row per match (10k for a
        // question at 100k memories). When the filter leaves fewer than `depth` of them and
        // more matched, the filter is applied to every match instead.
        let fetch = depth.saturating_mul(OVERFETCH).max(100);
        let mut p = Params::default();
        let terms = p.add(keys.clone());
        let cond = filter_sql(filter, &mut p)?;
        let sql = format!(
            "{}, top AS (SELECT id, score FROM s ORDER BY score DESC, id LIMIT {}) \
             SELECT {MEMORY_COLUMNS}, top.score, coalesce(({cond}), false) \
             FROM top JOIN memories m ON m.id = top.id \
             ORDER BY top.score DESC, m.id",
            bm25_with(&terms, "true", None).trim_end(),
            p.add(to_i64(fetch)),
        );
        let rows = self.query(&sql, &p.refs(), "cannot search memories")?;
        let mut out = Vec::with_capacity(depth);
        for r in &rows {
            if out.len() == depth {
                return Ok(out);
            }
            if r.get::<_, bool>(MEMORY_COLUMN_COUNT + 1) {
                out.push((memory_from_row(r)?, r.get::<_, f64>(MEMORY_COLUMN_COUNT)));
            }
        }
        if rows.len() < fetch {
            return Ok(out); // every match was seen
        }
        let mut p = Params::default();
        let terms = p.add(keys);
        let cond = filter_sql(filter, &mut p)?;
        let sql = format!(
            "{}, top AS (SELECT id, score FROM s ORDER BY score DESC, id LIMIT {}) \
             SELECT {MEMORY_COLUMNS}, top.score FROM top JOIN memories m ON m.id = top.id \
             ORDER BY top.score DESC, m.id",
            bm25_with(&terms, "true", Some(&cond)).trim_end(),
            p.add(to_i64(depth)),
        );
        let rows = self.query(&sql, &p.refs(), "cannot search memories")?;
        rows.iter()
            .map(|r| Ok((memory_from_row(r)?, r.get::<_, f64>(MEMORY_COLUMN_COUNT))))
            .collect()
    }

    /// The score [`Store::lexical_candidates`] gives each of `ids` that matches `text`'s
    /// words, however far down its list, in the order of `ids`: read from their postings
    /// alone.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn lexical_scores(&self, text: &str, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        let keys = self.analyzer.query(&query_terms(text))?;
        if keys.is_empty() || ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut p = Params::default();
        let terms = p.add(keys);
        let of = format!("p.memory_id = ANY({})", p.add(ids.to_vec()));
        let sql = format!("{} SELECT id, score FROM s", bm25_with(&terms, &of, None));
        let rows = self.query(&sql, &p.refs(), "cannot search memories")?;
        let found: HashMap<MemoryId, f64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        Ok(ids
            .iter()
            .filter_map(|id| found.get(id).map(|&s| (*id, s)))
            .collect())
    }

    /// The `depth` memories under `filter` whose embeddings by `model` are nearest to `query`,
    /// with their exact cosine, best first: pgvector's HNSW index (cosine) finds them,
    /// searching on past filtered-out rows (`hnsw.iterative_scan`), and each is rescored from
    /// its stored vector.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn vector_candidates(
        &self,
        model: &str,
        query: &[f32],
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        let mut p = Params::default();
        let cond = filter_sql(filter, &mut p)?;
        if depth == 0 || query.is_empty() {
            return Ok(Vec::new());
        }
        let Some(id) = self.model(model, query.len())? else {
            return Ok(Vec::new());
        };
        if depth > EF_SEARCH {
            return nearest(
                &mut *self.client()?,
                id,
                query.len(),
                query,
                &cond,
                p,
                depth,
            );
        }
        let (sql, p) = nearest_sql(id, query.len(), query, &cond, p, depth);
        let rows = self.query(&sql, &p.refs(), "cannot search embeddings")?;
        Ok(rescored(&rows, query))
    }

    /// The exact cosine between `query` and the embedding by `model` of each of `ids` that has
    /// one, in the order of `ids`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn similarities(
        &self,
        model: &str,
        query: &[f32],
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, f64)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let Some(model) = self.model(model, query.len())? else {
            return Ok(Vec::new());
        };
        let rows = self.query(
            "SELECT m.id, m.embedding FROM memories m \
             WHERE m.id = ANY($1) AND m.embedding_model_id = $2",
            &[&ids, &model],
            "cannot read embeddings",
        )?;
        let found: HashMap<MemoryId, f64> = rows
            .iter()
            .map(|r| {
                let v: Vector = r.get(1);
                (r.get(0), dot(query, v.as_slice()))
            })
            .collect();
        Ok(ids
            .iter()
            .filter_map(|id| found.get(id).map(|&s| (*id, s)))
            .collect())
    }

    /// The pairs of `memories` at most `window` places apart in their session: see
    /// [`CandidateSearch::session_neighbours`](oro_mem_core::store::CandidateSearch::session_neighbours).
    /// One index read per consecutive pair of a session.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
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
        if sessions.is_empty() {
            return Ok(out);
        }
        // The gap between each two consecutive memories of a session, all in one query.
        let mut groups: Vec<Vec<&Memory>> = Vec::with_capacity(sessions.len());
        let mut pairs: Vec<[&Memory; 2]> = Vec::new();
        for (_, mut ms) in sessions {
            ms.sort_by_key(|m| (m.created_at, m.id));
            ms.dedup_by_key(|m| m.id);
            pairs.extend(ms.windows(2).map(|w| [w[0], w[1]]));
            groups.push(ms);
        }
        if pairs.is_empty() {
            return Ok(out);
        }
        let window = u32::try_from(window).unwrap_or(u32::MAX);
        let column = |f: &dyn Fn(&[&Memory; 2]) -> i64| pairs.iter().map(f).collect::<Vec<i64>>();
        let text = |f: &dyn Fn(&[&Memory; 2]) -> String| pairs.iter().map(f).collect::<Vec<_>>();
        let rows = self
            .query(
                "SELECT (SELECT count(*) FROM (SELECT 1 FROM memories m \
                         WHERE m.session = u.s AND m.namespace = u.ns AND m.status = 'active' \
                           AND (m.created_at, m.id) > (u.ac, u.ai) \
                           AND (m.created_at, m.id) < (u.bc, u.bi) LIMIT $7) x) \
                 FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[], $6::int8[]) \
                      WITH ORDINALITY AS u(s, ns, ac, ai, bc, bi, i) ORDER BY u.i",
                &[
                    &text(&|p| p[0].session.clone().unwrap_or_default()),
                    &text(&|p| p[0].namespace.clone()),
                    &column(&|p| p[0].created_at.as_second()),
                    &column(&|p| p[0].id),
                    &column(&|p| p[1].created_at.as_second()),
                    &column(&|p| p[1].id),
                    &i64::from(window),
                ],
                "cannot read session neighbours",
            )?;
        let mut gaps = rows.iter().map(|r| r.get::<_, i64>(0));
        for ms in groups {
            // Distance from each memory to the next in `ms`.
            let steps: Vec<u32> = (1..ms.len())
                .map(|_| {
                    let gap = gaps.next().unwrap_or(i64::MAX);
                    u32::try_from(gap).unwrap_or(u32::MAX).saturating_add(1)
                })
                .collect();
            let ids: Vec<MemoryId> = ms.iter().map(|m| m.id).collect();
            Neighbour::pairs(&ids, &steps, window, &mut out);
        }
        Ok(out)
    }

    /// How many memories have no embedding by `model`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn count_unembedded(&self, model: &str) -> Result<u64> {
        // Range reads of the model index around the model's ids: microseconds when every
        // memory has an embedding by it (`IS DISTINCT FROM` would read every row).
        let rows = self.query(
            "SELECT (SELECT count(*) FROM memories WHERE embedding_model_id IS NULL) \
                  + (SELECT count(*) FROM memories m JOIN embedding_models e \
                     ON e.id = m.embedding_model_id WHERE e.model <> $1)",
            &[&model],
            "cannot count embeddings",
        )?;
        let n: i64 = rows.first().map_or(0, |r| r.get(0));
        Ok(n.max(0) as u64)
    }

    /// The creation times and texts to embed of the last [`CONTEXT_MEMORIES`] active
    /// memories of `session` in `namespace` created at or before `at`, by creation time and
    /// then id, oldest first: what a memory of that session written at `at` follows. One seek
    /// on the session index.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn last_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<(Timestamp, String)>> {
        let rows = self.query(
            "SELECT created_at, coalesce(summary || E'\\n\\n', '') || content FROM memories \
             WHERE session = $1 AND namespace = $2 AND status = 'active' AND created_at <= $3 \
             ORDER BY created_at DESC, id DESC LIMIT $4",
            &[
                &session,
                &namespace,
                &at.as_second(),
                &to_i64(CONTEXT_MEMORIES),
            ],
            "cannot read the session's last memories",
        )?;
        Ok(rows
            .iter()
            .rev()
            .map(|r| (Timestamp(r.get(0)), r.get(1)))
            .collect())
    }

    /// The first [`CONTEXT_MEMORIES`] active memories of `session` in `namespace` created
    /// after `at`, by creation time and then id: what a memory of that session written at
    /// `at` comes before. One seek on the session index.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn next_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        // After every memory created at `at`, whatever its id.
        let rows = self.query(
            NEXT_ACTIVE,
            &[
                &session,
                &namespace,
                &at.as_second(),
                &MemoryId::MAX,
                &to_i64(CONTEXT_MEMORIES),
            ],
            "cannot read the session's next memories",
        )?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Each memory of `ids` that exists, by ascending id, with its text to embed and the texts
    /// of the memories before it in its session, as [`Store::claim_unembedded`] hands them out
    /// but without claiming them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when PostgreSQL fails.
    pub fn to_embed(&self, ids: &[MemoryId]) -> Result<Vec<ToEmbed>> {
        let rows = self.query(
            &format!(
                "SELECT {} FROM memories m WHERE m.id = ANY($1) ORDER BY m.id",
                to_embed_columns()
            ),
            &[&ids],
            "cannot read memories to embed",
        )?;
        Ok(rows.iter().map(to_embed_from_row).collect())
    }
}
