//! An in-memory copy of what duplicate checks and warm searches read from the FTS5 index,
//! scoring exactly as FTS5's `bm25()` does.
//!
//! A deduplicated write asks which memories score close to the new memory's own score for
//! the OR of its words. FTS5 answers by walking each word's list in the index and calling
//! `bm25()` for each match (about 1.5 µs each), write after write; at 100k memories that was
//! 25 ms a write even with MaxScore pruning ([`crate::similar`]). A search of a large store
//! pays the same per match: a stopword-heavy question matching 72k of a million memories
//! took about 100 ms. Here the lists are read from FTS5 once, kept in memory, and a check or
//! a search is one pass over them.
//!
//! The mirror holds:
//! - the row count and the token total of FTS5's averages record, and each row's token count
//!   (FTS5's `docsize` table), read when the mirror is built;
//! - for each term a check or a search needed, the rows holding it with its frequency, each
//!   occurrence counted with its column's weight, read from an `fts5vocab` instance table the
//!   first time the term is needed (FTS5 flushes its pending writes for it, so the write
//!   transaction's own inserts are there).
//!
//! A memory a batch inserts is added, tokenized by the index's own tokenizer ([`Analyzer`]),
//! and taken out again if it proves a duplicate and its insert is rolled back. Scores follow
//! `fts5Bm25Function` operation by operation, in the order of the query's phrases, so they are
//! the same floating-point numbers, and a search orders ties as FTS5 does, by rowid (property
//! tests hold both to FTS5's, bit for bit). Each check also compares the mirror's totals and
//! the new memory's length with what FTS5 stored; if they ever differ the mirror is dropped
//! and FTS5 answers.
//!
//! The store keeps the mirror between batches and searches and trusts it only while the index
//! is as the mirror last saw it ([`Stamp`]); else it reads a new one.

use std::collections::HashMap;

use oro_mem_core::{MemoryId, Result};
use oro_mem_text::bm25::{self, Bm25};
use oro_mem_text::{field_weight, query_terms, Term};
use rusqlite::{Connection, OptionalExtension};

use crate::store::SqlContext;
use oro_mem_text::{Analyzer, Document, Fields};

/// The length of a row the index does not hold.
const NO_ROW: u32 = u32::MAX;

/// FTS5's `%_data` ids of its averages and structure records.
const AVERAGES_ID: i64 = 1;
const STRUCTURE_ID: i64 = 10;

/// What the index was when the mirror last matched it: `PRAGMA data_version`, which changes
/// when another connection commits, and FTS5's structure record, which changes with every
/// flush of changes to the index (a new segment), this connection's included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    data_version: i64,
    structure: Option<Vec<u8>>,
}

impl Stamp {
    /// The stamp now. Read it inside the transaction that uses the mirror, before it writes.
    fn read(conn: &Connection) -> Result<Stamp> {
        Ok(Stamp {
            data_version: data_version(conn)?,
            structure: structure(conn)?,
        })
    }

    /// The stamp after this connection committed a batch: `data_version` as read inside its
    /// transaction (this connection's own commits leave it be, and it must not take in a
    /// commit of another connection after ours), the structure record as committed.
    pub(crate) fn after_commit(conn: &Connection, data_version: i64) -> Result<Stamp> {
        Ok(Stamp {
            data_version,
            structure: structure(conn)?,
        })
    }
}

/// `PRAGMA data_version`.
pub(crate) fn data_version(conn: &Connection) -> Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
        .context("cannot read the data version")
}

/// The FTS5 record with `%_data` id `id`, if there is one.
fn data_block(conn: &Connection, id: i64) -> Result<Option<Vec<u8>>> {
    conn.prepare_cached("SELECT block FROM memories_fts_data WHERE id = ?1")
        .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
        .context("cannot read the full-text index")
}

/// FTS5's row count and token total, from its averages record.
pub(crate) fn totals(conn: &Connection) -> Result<(i64, i64)> {
    let Some(block) = data_block(conn, AVERAGES_ID)? else {
        return Ok((0, 0));
    };
    let mut values = Varints(&block);
    let rows = values.next().unwrap_or(0);
    let tokens: u64 = values.sum();
    Ok((
        i64::try_from(rows).unwrap_or(i64::MAX),
        i64::try_from(tokens).unwrap_or(i64::MAX),
    ))
}

fn structure(conn: &Connection) -> Result<Option<Vec<u8>>> {
    data_block(conn, STRUCTURE_ID)
}

/// One term's rows, ascending, and its weighted frequency in each.
#[derive(Debug)]
struct Postings {
    rows: Vec<u32>,
    freqs: Vec<f64>,
    /// The largest frequency and the shortest row ever in the list: what bounds the term's
    /// score in any of its rows.
    max_freq: f64,
    min_len: u32,
}

impl Postings {
    fn new() -> Postings {
        Postings {
            rows: Vec::new(),
            freqs: Vec::new(),
            max_freq: 0.0,
            min_len: NO_ROW,
        }
    }

    fn push(&mut self, row: u32, freq: f64, len: u32) {
        debug_assert!(self.rows.last().is_none_or(|&last| last < row));
        self.rows.push(row);
        self.freqs.push(freq);
        self.max_freq = self.max_freq.max(freq);
        self.min_len = self.min_len.min(len);
    }

    /// The term's frequency in `row`.
    fn freq(&self, row: u32) -> Option<f64> {
        self.rows.binary_search(&row).ok().map(|i| self.freqs[i])
    }
}

/// Adds the parts of the term with rows `p` and IDF `idf` to the `scores` of its rows, marking
/// in `touched` each row it scores first; in the order of the calls, so a row's sum is FTS5's
/// when the calls follow the query's phrases.
fn accumulate(
    scores: &mut [f64],
    touched: &mut Vec<u32>,
    lens: &[u32],
    p: &Postings,
    idf: f64,
    avgdl: f64,
) {
    for (&row, &f) in p.rows.iter().zip(&p.freqs) {
        let score = &mut scores[row as usize];
        if *score == 0.0 {
            touched.push(row);
        }
        *score += part(idf, f, f64::from(lens[row as usize]), avgdl);
    }
}

/// The IDF of a term in `hits` of the index's `rows` rows ([`bm25::idf`]).
pub(crate) fn idf(rows: i64, hits: usize) -> f64 {
    bm25::idf(rows, i64::try_from(hits).unwrap_or(i64::MAX))
}

/// One term's part of a row's BM25 score, as FTS5 computes it ([`Bm25::part`]).
#[inline]
pub(crate) fn part(idf: f64, f: f64, len: f64, avglen: f64) -> f64 {
    Bm25::FTS5.part(idf, f, len, avglen)
}

/// Postings the mirror keeps between batches, at most: about 12 bytes each, so some 100 MB.
/// A store whose index is larger starts a batch with an empty set of terms instead.
const KEEP_POSTINGS: usize = 8_000_000;

/// The copy of the index; see the module documentation.
pub(crate) struct Mirror {
    analyzer: Analyzer,
    stamp: Stamp,
    /// FTS5's row count and token total (`xRowCount`, `xColumnTotalSize(-1)`).
    rows: i64,
    tokens: i64,
    /// Each row's token count, by rowid; [`NO_ROW`] for none.
    lens: Vec<u32>,
    postings: HashMap<String, Postings>,
    /// How many postings `postings` holds.
    held: usize,
    /// A score per rowid, zero but for the `touched` rows of the check under way.
    scores: Vec<f64>,
    touched: Vec<u32>,
    /// Checks the mirror answered.
    pub(crate) answered: u64,
    /// Set when the mirror's totals, or a memory's length, differed from FTS5's: the mirror
    /// must not be used again.
    pub(crate) broken: bool,
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror")
            .field("rows", &self.rows)
            .field("terms", &self.postings.len())
            .finish_non_exhaustive()
    }
}

/// What [`Mirror::matches`] found.
#[derive(Debug)]
pub(crate) struct Matches {
    /// The memory's own score.
    pub(crate) own: f64,
    /// The rows that score at least the threshold, with their scores, unordered.
    pub(crate) rows: Vec<(MemoryId, f64)>,
}

/// A memory about to be written, as the mirror sees it.
#[derive(Debug)]
pub(crate) struct Prepared {
    doc: Document,
    /// The term of each phrase of the duplicate query, in order; `None` when a phrase is not
    /// one term (a CJK bigram is two), which the mirror leaves to FTS5.
    terms: Option<Vec<String>>,
}

impl Mirror {
    /// The mirror in `slot` if the index is still as it last saw it (and it is not broken),
    /// else a new one read now. `conn` is in the transaction that will use it.
    pub(crate) fn current<'a>(
        slot: &'a mut Option<Mirror>,
        conn: &Connection,
    ) -> Result<&'a mut Mirror> {
        let stamp = Stamp::read(conn)?;
        if slot.as_ref().is_none_or(|m| m.stamp != stamp || m.broken) {
            *slot = Some(Mirror::load(conn, stamp)?);
        }
        Ok(slot.as_mut().expect("set above"))
    }

    /// Reads the index's totals and row lengths, as they are now. Terms are read as needed.
    fn load(conn: &Connection, stamp: Stamp) -> Result<Mirror> {
        let (rows, tokens) = totals(conn)?;
        let mut lens: Vec<u32> = Vec::new();
        let mut s = conn
            .prepare("SELECT id, sz FROM memories_fts_docsize")
            .context("cannot read the full-text index")?;
        let mut sizes = s.query([]).context("cannot read the full-text index")?;
        while let Some(r) = sizes.next().context("cannot read the full-text index")? {
            let id = slot(r.get(0).context("cannot read the full-text index")?);
            let size: u64 = Varints(
                r.get_ref(1)
                    .and_then(|v| Ok(v.as_blob()?))
                    .context("cannot read the full-text index")?,
            )
            .sum();
            set_len(&mut lens, id, u32::try_from(size).unwrap_or(NO_ROW - 1));
        }
        Ok(Mirror {
            analyzer: Analyzer::new()?,
            stamp,
            rows,
            tokens,
            scores: Vec::new(),
            lens,
            postings: HashMap::new(),
            held: 0,
            touched: Vec::new(),
            answered: 0,
            broken: false,
        })
    }

    /// Marks the mirror as matching the index at `stamp`, at the end of a batch, and lets go
    /// of its terms if they hold more than [`KEEP_POSTINGS`].
    pub(crate) fn keep(&mut self, stamp: Stamp) {
        self.stamp = stamp;
        self.trim();
    }

    /// Lets go of the terms read so far if they hold more than [`KEEP_POSTINGS`]: they are
    /// read again as needed.
    pub(crate) fn trim(&mut self) {
        if self.held > KEEP_POSTINGS {
            self.postings = HashMap::new();
            self.held = 0;
        }
    }

    /// Tokenizes a memory about to be inserted, whose text fields are `fields`, and reads
    /// from the index, before the insert, the rows of each term of its duplicate query.
    pub(crate) fn prepare(&mut self, conn: &Connection, fields: &Fields<'_>) -> Result<Prepared> {
        // FTS5 wrote its totals when the savepoint began: they must be the mirror's.
        if totals(conn)? != (self.rows, self.tokens) {
            self.broken = true;
        }
        let doc = self.analyzer.document(fields)?;
        let terms = self.query_terms(conn, &query_terms(fields.content))?;
        Ok(Prepared { doc, terms })
    }

    /// `prepared` asked a narrower query, `content` (some of its words): `None` when a term
    /// of it is not one of `prepared`'s, whose rows the mirror read, or not one term.
    pub(crate) fn narrow(&self, prepared: &Prepared, content: &str) -> Result<Option<Prepared>> {
        let (Some(all), Some(terms)) = (
            prepared.terms.as_ref(),
            single_terms(&self.analyzer, &query_terms(content))?,
        ) else {
            return Ok(None);
        };
        Ok(terms.iter().all(|t| all.contains(t)).then(|| Prepared {
            doc: prepared.doc.clone(),
            terms: Some(terms),
        }))
    }

    /// The index term of each phrase of `query`, with its rows read; `None` when a phrase is
    /// not one term (a CJK bigram is two), which the mirror leaves to FTS5.
    fn query_terms(&mut self, conn: &Connection, query: &[Term]) -> Result<Option<Vec<String>>> {
        let Some(terms) = single_terms(&self.analyzer, query)? else {
            return Ok(None);
        };
        for term in &terms {
            self.read_term(conn, term)?;
        }
        Ok(Some(terms))
    }

    /// Every row matching the OR of `query`'s phrases, with its score as FTS5's `rank` gives
    /// it (negated), unordered; `None` when the mirror leaves this query to FTS5.
    pub(crate) fn ranked(
        &mut self,
        conn: &Connection,
        query: &[Term],
    ) -> Result<Option<Vec<(MemoryId, f64)>>> {
        if self.broken {
            return Ok(None);
        }
        let Some(terms) = self.query_terms(conn, query)? else {
            return Ok(None);
        };
        self.scores.resize(self.lens.len(), 0.0);
        let avgdl = self.tokens as f64 / self.rows as f64;
        for term in &terms {
            let p = &self.postings[term];
            let idf = idf(self.rows, p.rows.len());
            accumulate(
                &mut self.scores,
                &mut self.touched,
                &self.lens,
                p,
                idf,
                avgdl,
            );
        }
        let mut hits = Vec::with_capacity(self.touched.len());
        for row in self.touched.drain(..) {
            hits.push((
                i64::from(row),
                std::mem::take(&mut self.scores[row as usize]),
            ));
        }
        Ok(Some(hits))
    }

    /// The score FTS5's `rank` gives (negated) each of `ids` that matches the OR of `query`'s
    /// phrases, in the order of `ids`; `None` when the mirror leaves this query to FTS5.
    pub(crate) fn scores_of(
        &mut self,
        conn: &Connection,
        query: &[Term],
        ids: &[MemoryId],
    ) -> Result<Option<Vec<(MemoryId, f64)>>> {
        if self.broken {
            return Ok(None);
        }
        let Some(terms) = self.query_terms(conn, query)? else {
            return Ok(None);
        };
        let avgdl = self.tokens as f64 / self.rows as f64;
        let lists: Vec<(&Postings, f64)> = terms
            .iter()
            .map(|t| {
                let p = &self.postings[t];
                (p, idf(self.rows, p.rows.len()))
            })
            .collect();
        Ok(Some(
            ids.iter()
                .filter_map(|&id| {
                    let row = slot(id);
                    let d = f64::from(self.len(row));
                    // Summed in the order of the query's phrases, as `ranked` sums.
                    lists
                        .iter()
                        .filter_map(|&(p, idf)| Some(part(idf, p.freq(row)?, d, avgdl)))
                        .reduce(|a, b| a + b)
                        .map(|score| (id, score))
                })
                .collect(),
        ))
    }

    /// Reads `term`'s rows from the index, unless they are here already.
    fn read_term(&mut self, conn: &Connection, term: &str) -> Result<()> {
        if self.postings.contains_key(term) {
            return Ok(());
        }
        // Made here too: a write's transaction that made it and was rolled back took it
        // with it (searches make it before their transaction, see `make_vocabularies`).
        conn.execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.oro_fts_instance \
             USING fts5vocab(main, memories_fts, instance)",
        )
        .context("cannot read the full-text index")?;
        let mut s = conn
            .prepare_cached("SELECT doc, col FROM temp.oro_fts_instance WHERE term = ?1")
            .context("cannot read the full-text index")?;
        let mut rows = s.query([term]).context("cannot read the full-text index")?;
        let mut found: Vec<(u32, f64)> = Vec::new();
        while let Some(r) = rows.next().context("cannot read the full-text index")? {
            let row = slot(r.get(0).context("cannot read the full-text index")?);
            let column = r
                .get_ref(1)
                .and_then(|v| Ok(v.as_str()?))
                .context("cannot read the full-text index")?;
            let weight = f64::from(field_weight(column));
            // Instances come by row, then column and offset.
            match found.last_mut() {
                Some((last, f)) if *last == row => *f += weight,
                _ => found.push((row, weight)),
            }
        }
        let mut p = Postings::new();
        for (row, freq) in found {
            p.push(row, freq, self.len(row));
        }
        self.held += p.rows.len();
        self.postings.insert(term.to_owned(), p);
        Ok(())
    }

    /// The token count of `row`.
    fn len(&self, row: u32) -> u32 {
        self.lens.get(row as usize).copied().unwrap_or(NO_ROW)
    }

    /// Adds the memory just inserted as `id`.
    pub(crate) fn add(&mut self, id: MemoryId, prepared: &Prepared) {
        let row = slot(id);
        let len = u32::try_from(prepared.doc.len).unwrap_or(0);
        set_len(&mut self.lens, row, len);
        self.rows += 1;
        self.tokens += i64::from(len);
        for (term, freq) in &prepared.doc.terms {
            if let Some(p) = self.postings.get_mut(term) {
                p.push(row, f64::from(*freq), len);
                self.held += 1;
            }
        }
    }

    /// Takes out the memory [`Mirror::add`] added last, whose insert was rolled back.
    pub(crate) fn remove(&mut self, id: MemoryId, prepared: &Prepared) {
        let row = slot(id);
        let len = u32::try_from(prepared.doc.len).unwrap_or(0);
        set_len(&mut self.lens, row, NO_ROW);
        self.rows -= 1;
        self.tokens -= i64::from(len);
        for (term, _) in &prepared.doc.terms {
            if let Some(p) = self.postings.get_mut(term) {
                if p.rows.last() == Some(&row) {
                    p.rows.pop();
                    p.freqs.pop();
                    self.held -= 1;
                }
            }
        }
    }

    /// The prepared memory's own score for its duplicate query, and the rows other than
    /// `self_id` (the memory, inserted) whose score reaches `min_similarity` times it; no
    /// rows when its own score is not above 0, as FTS5 would not match it. `None` when the
    /// mirror leaves this memory to FTS5, or when the memory's length differs from FTS5's:
    /// then the mirror is [`broken`](Mirror::broken).
    pub(crate) fn matches(
        &mut self,
        conn: &Connection,
        prepared: &Prepared,
        self_id: MemoryId,
        min_similarity: f64,
    ) -> Result<Option<Matches>> {
        let Some(terms) = prepared.terms.as_ref().filter(|_| !self.broken) else {
            return Ok(None);
        };
        // What FTS5 stored for the memory: a check, at the cost of a lookup, that the
        // tokenizer ran alike.
        if fts5_length(conn, self_id)? != u64::try_from(prepared.doc.len).ok() {
            self.broken = true;
            return Ok(None);
        }
        self.scores.resize(self.lens.len(), 0.0);
        let avgdl = self.tokens as f64 / self.rows as f64;
        let lists: Vec<(&Postings, f64)> = terms
            .iter()
            .map(|t| {
                let p = &self.postings[t];
                (p, idf(self.rows, p.rows.len()))
            })
            .collect();
        let own = own_score(&prepared.doc, terms, &lists, avgdl);
        self.answered += 1;
        if own <= 0.0 {
            return Ok(Some(Matches {
                own,
                rows: Vec::new(),
            }));
        }
        let threshold = min_similarity * own;
        // MaxScore: only rows holding an essential term can reach the threshold. Their lists
        // are walked; the optional terms add their bound.
        let by_bound = bounds(&lists, avgdl);
        let (optional, bound) = bm25::optional_terms(by_bound.iter().map(|b| b.0), threshold);
        let (optional, essential) = by_bound.split_at(optional);
        for &(_, i) in essential {
            let (p, idf) = lists[i];
            accumulate(
                &mut self.scores,
                &mut self.touched,
                &self.lens,
                p,
                idf,
                avgdl,
            );
        }
        // The rows that may still reach it take the optional terms' parts: a pass over each
        // list that computes only for them.
        let mut hopeful = std::mem::take(&mut self.touched);
        hopeful.retain(|&row| {
            let score = &mut self.scores[row as usize];
            let keep = i64::from(row) != self_id && bm25::may_reach(*score + bound, threshold);
            if !keep {
                *score = 0.0;
            }
            keep
        });
        if !hopeful.is_empty() {
            for &(_, i) in optional {
                let (p, idf) = lists[i];
                add_to_scored(&mut self.scores, &self.lens, p, idf, avgdl);
            }
        }
        let rows = exactly(
            &mut self.scores,
            &self.lens,
            &hopeful,
            &lists,
            avgdl,
            threshold,
        );
        hopeful.clear();
        self.touched = hopeful;
        Ok(Some(Matches { own, rows }))
    }
}

/// The length FTS5 stored for memory `id`, if it is indexed.
fn fts5_length(conn: &Connection, id: MemoryId) -> Result<Option<u64>> {
    let size: Option<Vec<u8>> = conn
        .prepare_cached("SELECT sz FROM memories_fts_docsize WHERE id = ?1")
        .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
        .context("cannot read the full-text index")?;
    Ok(size.map(|b| Varints(&b).sum::<u64>()))
}

/// The most each term of `lists` can add to a row's score (its highest frequency at the
/// shortest length of a row holding it), with the term's index, lowest first.
fn bounds(lists: &[(&Postings, f64)], avgdl: f64) -> Vec<(f64, usize)> {
    let mut by_bound: Vec<(f64, usize)> = lists
        .iter()
        .enumerate()
        .map(|(i, &(p, idf))| (part(idf, p.max_freq, f64::from(p.min_len), avgdl), i))
        .collect();
    by_bound.sort_by(|a, b| a.0.total_cmp(&b.0));
    by_bound
}

/// The score of `doc` for its own duplicate query (`terms`, with their `lists`), phrase by
/// phrase as FTS5 adds it up.
fn own_score(doc: &Document, terms: &[String], lists: &[(&Postings, f64)], avgdl: f64) -> f64 {
    let d = f64::from(u32::try_from(doc.len).unwrap_or(0));
    let mut own = 0.0;
    for (term, &(_, idf)) in terms.iter().zip(lists) {
        if let Some(f) = doc.frequency(term) {
            own += part(idf, f64::from(f), d, avgdl);
        }
    }
    own
}

/// Adds the part of the term of `list` (its IDF `idf`) to the rows already scored (not 0).
fn add_to_scored(scores: &mut [f64], lens: &[u32], list: &Postings, idf: f64, avgdl: f64) {
    for (&row, &f) in list.rows.iter().zip(&list.freqs) {
        let score = &mut scores[row as usize];
        if *score != 0.0 {
            *score += part(idf, f, f64::from(lens[row as usize]), avgdl);
        }
    }
}

/// The rows of `hopeful` near or over `threshold` by their `scores` (reset to 0 here),
/// scored exactly (every phrase in order), with those that reach it.
fn exactly(
    scores: &mut [f64],
    lens: &[u32],
    hopeful: &[u32],
    lists: &[(&Postings, f64)],
    avgdl: f64,
    threshold: f64,
) -> Vec<(MemoryId, f64)> {
    let mut out = Vec::new();
    for &row in hopeful {
        let near = std::mem::take(&mut scores[row as usize]);
        if !bm25::may_reach(near, threshold) {
            continue;
        }
        let d = f64::from(lens[row as usize]);
        let mut score = 0.0;
        for &(p, idf) in lists {
            if let Some(f) = p.freq(row) {
                score += part(idf, f, d, avgdl);
            }
        }
        if score >= threshold {
            out.push((i64::from(row), score));
        }
    }
    out
}

/// Makes the `fts5vocab` tables the mirror ([`Mirror::read_term`]) and [`crate::rescore`]
/// read, unless they are there: `temp.oro_fts_instance` (every occurrence of a term) and
/// `temp.oro_fts_row` (how many rows hold it). Call it outside a transaction: made in one,
/// they go when it ends, and each making of them changes the schema, which has every
/// statement prepared again.
///
/// # Errors
///
/// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when SQLite fails.
pub(crate) fn make_vocabularies(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.oro_fts_instance \
         USING fts5vocab(main, memories_fts, instance);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.oro_fts_row \
         USING fts5vocab(main, memories_fts, row);",
    )
    .context("cannot read the full-text index")
}

/// The index term of each phrase of `query`, in order; `None` when a phrase is not one term
/// (a CJK bigram is two, an FTS5 phrase whose rows no term's list gives) or is no term at all.
pub(crate) fn single_terms(analyzer: &Analyzer, query: &[Term]) -> Result<Option<Vec<String>>> {
    let terms = analyzer.query(query)?;
    if terms.len() != query.len() || terms.iter().any(|t| t.contains(' ')) {
        return Ok(None);
    }
    Ok(Some(terms))
}

/// A rowid as an index into the mirror's vectors. Rowids of memories are positive and far
/// below `u32::MAX` (one per memory ever written); a larger one is refused when read.
fn slot(id: i64) -> u32 {
    u32::try_from(id).unwrap_or(NO_ROW)
}

fn set_len(lens: &mut Vec<u32>, row: u32, len: u32) {
    let i = row as usize;
    if lens.len() <= i {
        lens.resize(i + 1, NO_ROW);
    }
    lens[i] = len;
}

/// SQLite's variable-length integers, as FTS5 writes its records: big-endian groups of
/// seven bits, the high bit set on all but the last byte; a ninth byte gives all eight.
struct Varints<'a>(&'a [u8]);

impl Iterator for Varints<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let mut value: u64 = 0;
        for (i, &byte) in self.0.iter().enumerate() {
            if i == 8 {
                self.0 = &self.0[9..];
                return Some((value << 8) | u64::from(byte));
            }
            value = (value << 7) | u64::from(byte & 0x7f);
            if byte & 0x80 == 0 {
                self.0 = &self.0[i + 1..];
                return Some(value);
            }
        }
        self.0 = &[];
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{remember, remember_batch};
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{MemoryType, NewMemory, WriteOutcome};
    use proptest::prelude::*;

    use super::*;
    use crate::Store;

    /// Words of every kind the index meets: common and rare, stemmed alike, diacritics, CJK
    /// (whose bigram queries the mirror leaves to FTS5).
    const WORDS: &[&str] = &[
        "sqlite",
        "sqlite",
        "sqlite",
        "lock",
        "locking",
        "locks",
        "writer",
        "writer",
        "retry",
        "backoff",
        "jitter",
        "cache",
        "café",
        "cafe",
        "schema",
        "migration",
        "vector",
        "index",
        "数据库",
        "锁",
        // Names and values: the update check's second query, by the plain words alone.
        "Jest",
        "Vitest",
        "v2.1",
    ];

    fn text(words: &[usize]) -> String {
        let words: Vec<&str> = words.iter().map(|&i| WORDS[i]).collect();
        words.join(" ")
    }

    fn memory(words: &[usize], about: &[usize], in_a: bool, confidence: f64) -> NewMemory {
        let mut m = NewMemory::new(text(words), MemoryType::Lesson)
            .namespace(if in_a { "a" } else { "b" })
            .confidence(confidence);
        if let Some((&first, rest)) = about.split_first() {
            m = m.tags(vec![WORDS[first].to_string()]);
            m.summary = (!rest.is_empty()).then(|| text(rest));
            m.files = rest
                .iter()
                .map(|&i| format!("src/{}.rs", WORDS[i]))
                .collect();
        }
        m
    }

    fn lesson(text: &str, namespace: &str) -> NewMemory {
        NewMemory::new(text, MemoryType::Lesson).namespace(namespace)
    }

    fn answered(s: &Store) -> Option<u64> {
        s.mirror.borrow().as_ref().map(|m| m.answered)
    }

    /// Stored memories: their words, what they are about (tags, summary, files), whether in
    /// namespace `a`.
    type Docs = Vec<(Vec<usize>, Vec<usize>, bool)>;

    fn docs(len: std::ops::Range<usize>) -> impl Strategy<Value = Docs> {
        prop::collection::vec(
            (
                prop::collection::vec(0..WORDS.len(), 1..8),
                prop::collection::vec(0..WORDS.len(), 0..3),
                any::<bool>(),
            ),
            len,
        )
    }

    /// Two stores holding `docs`, the first checking duplicates with the mirror, the second
    /// with FTS5.
    fn mirrored_and_plain(docs: &Docs) -> (Store, Store) {
        let off = DedupConfig {
            enabled: false,
            ..DedupConfig::default()
        };
        let mut mirrored = Store::open_in_memory().unwrap();
        let mut plain = Store::open_in_memory().unwrap();
        plain.mirror_enabled = false;
        for (words, about, in_a) in docs {
            for s in [&mut mirrored, &mut plain] {
                remember(s, memory(words, about, *in_a, 0.5), &off).unwrap();
            }
        }
        (mirrored, plain)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Batches checked by the mirror end as batches checked by FTS5: the same outcomes
        /// and similarities, to the bit, a second batch reusing the first's mirror.
        #[test]
        fn the_mirror_finds_what_fts5_finds(
            docs in docs(0..40),
            batches in prop::collection::vec(
                prop::collection::vec(
                    (prop::collection::vec(0..WORDS.len(), 1..8),
                     prop::collection::vec(0..WORDS.len(), 0..3),
                     any::<bool>(),
                     0.1..1.0f64),
                    1..12,
                ),
                1..3,
            ),
            bm25 in prop::sample::select(vec![0.3, 0.5, 0.7, 0.85]),
        ) {
            let dedup = DedupConfig { bm25, ..DedupConfig::default() };
            let (mut mirrored, mut plain) = mirrored_and_plain(&docs);
            for batch in &batches {
                let new: Vec<NewMemory> = batch
                    .iter()
                    .map(|(words, about, in_a, c)| memory(words, about, *in_a, *c))
                    .collect();
                let a = remember_batch(&mut mirrored, new.clone(), &dedup).unwrap();
                let b = remember_batch(&mut plain, new, &dedup).unwrap();
                prop_assert_eq!(a, b);
                let m = mirrored.mirror.borrow();
                prop_assert!(!m.as_ref().expect("the mirror is kept").broken);
            }
        }

        /// A memory written provisionally and asked with some of its words (the update
        /// check's plain words) finds what FTS5 finds for them: the same neighbours and
        /// similarities, to the bit.
        #[test]
        fn a_narrowed_query_finds_what_fts5_finds(
            docs in docs(1..40),
            words in prop::collection::vec(0..WORDS.len(), 1..8),
            kept in prop::collection::vec(any::<bool>(), 8),
            floor in prop::sample::select(vec![0.0, 0.3, 0.5]),
        ) {
            use oro_mem_core::store::Commit;
            let (mut mirrored, mut plain) = mirrored_and_plain(&docs);
            let m = memory(&words, &[], true, 0.5);
            let some: Vec<usize> = words.iter().zip(&kept).filter(|(_, k)| **k).map(|(w, _)| *w).collect();
            let narrowed = text(&some);
            let mut found = Vec::new();
            for s in [&mut mirrored, &mut plain] {
                let mut hits = Vec::new();
                s.transact(&mut |tx| {
                    let id = tx.insert_provisionally(&m, None, oro_mem_core::Timestamp(1))?;
                    hits = tx.similar_lexically(id, &narrowed, "a", floor, 10)?;
                    Ok(Commit::No)
                })
                .unwrap();
                found.push(hits);
            }
            prop_assert_eq!(&found[0], &found[1]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A warm store's lexical search gives what FTS5 gives: the same memories, scores
        /// (to the bit) and order, ties included, under filters of every kind the SQL takes
        /// (namespace, tags, confidence, the status of archived memories), before and after
        /// writes between searches.
        #[test]
        fn warm_search_is_fts5s(
            docs in prop::collection::vec(
                (prop::collection::vec(0..WORDS.len(), 1..8),
                 prop::collection::vec(0..WORDS.len(), 0..3),
                 any::<bool>(),
                 0.1..1.0f64),
                0..60,
            ),
            later in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..8), 0..4),
            queries in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..5), 1..6),
            depth in 1usize..20,
            min_confidence in prop::option::of(0.0..1.0f64),
            namespace in prop::option::of(prop::sample::select(vec!["a", "b"])),
            tag in prop::option::of(0..WORDS.len()),
            archived in prop::collection::vec(any::<prop::sample::Index>(), 0..5),
        ) {
            let off = DedupConfig { enabled: false, ..DedupConfig::default() };
            let mut warm = Store::open_in_memory().unwrap();
            warm.set_warm(true);
            let mut cold = Store::open_in_memory().unwrap();
            for (words, about, in_a, confidence) in &docs {
                for s in [&mut warm, &mut cold] {
                    remember(s, memory(words, about, *in_a, *confidence), &off).unwrap();
                }
            }
            // Some archived: a filter on the status, or the default, leaves them out.
            for i in &archived {
                if !docs.is_empty() {
                    let id = i.index(docs.len()) as i64 + 1;
                    for s in [&mut warm, &mut cold] {
                        s.set_status(id, oro_mem_core::Status::Archived).unwrap();
                    }
                }
            }
            let filter = oro_mem_core::Filter {
                min_confidence,
                namespace: namespace.map(str::to_string),
                tags_any: tag.map(|t| vec![WORDS[t].to_string()]).unwrap_or_default(),
                ..Default::default()
            };
            let search = |s: &Store, q: &str| -> Vec<(MemoryId, u64)> {
                s.lexical_candidates(q, &filter, depth)
                    .unwrap()
                    .into_iter()
                    .map(|(m, score)| (m.id, score.to_bits()))
                    .collect()
            };
            for (i, q) in queries.iter().enumerate() {
                let q = text(q);
                prop_assert_eq!(search(&warm, &q), search(&cold, &q), "{}", q);
                if let Some(words) = later.get(i) {
                    for s in [&mut warm, &mut cold] {
                        remember(s, memory(words, &[], true, 0.5), &off).unwrap();
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The BM25 score of given memories, warm (from the mirror) or cold (from the index's
        /// term counts and each memory's text, or through FTS5 for a CJK bigram), is the one
        /// FTS5's `rank` gives them, to the bit, in the order asked, leaving out memories
        /// without a word of the query, forgotten ones and ids never written; also after
        /// writes between queries.
        #[test]
        fn lexical_scores_are_fts5s(
            docs in prop::collection::vec(
                (prop::collection::vec(0..WORDS.len(), 1..8),
                 prop::collection::vec(0..WORDS.len(), 0..3)),
                1..50,
            ),
            forgotten in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
            later in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..8), 0..4),
            queries in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 1..5), 1..6),
            asked in prop::collection::vec(any::<prop::sample::Index>(), 1..12),
        ) {
            let off = DedupConfig { enabled: false, ..DedupConfig::default() };
            let mut warm = Store::open_in_memory().unwrap();
            warm.set_warm(true);
            let mut cold = Store::open_in_memory().unwrap();
            for (words, about) in &docs {
                for s in [&mut warm, &mut cold] {
                    remember(s, memory(words, about, true, 0.5), &off).unwrap();
                }
            }
            let forgotten: std::collections::BTreeSet<MemoryId> =
                forgotten.iter().map(|i| i.index(docs.len()) as i64 + 1).collect();
            for &id in &forgotten {
                for s in [&mut warm, &mut cold] {
                    s.forget(id).unwrap();
                }
            }
            // Two ids past the last memory: never written.
            let ids: Vec<MemoryId> =
                asked.iter().map(|i| i.index(docs.len() + 2) as i64 + 1).collect();
            for (i, q) in queries.iter().enumerate() {
                let q = text(q);
                let fts = crate::fts5::fts5_query(&q).expect("words");
                let ranked: HashMap<MemoryId, f64> = cold
                    .conn
                    .prepare("SELECT rowid, -rank FROM memories_fts WHERE memories_fts MATCH ?1")
                    .unwrap()
                    .query_map([&fts], |r| Ok((r.get(0)?, r.get(1)?)))
                    .unwrap()
                    .collect::<rusqlite::Result<_>>()
                    .unwrap();
                let expected: Vec<(MemoryId, u64)> = ids
                    .iter()
                    .filter_map(|id| Some((*id, ranked.get(id)?.to_bits())))
                    .collect();
                for s in [&warm, &cold] {
                    let got: Vec<(MemoryId, u64)> = s
                        .lexical_scores(&q, &ids)
                        .unwrap()
                        .into_iter()
                        .map(|(id, score)| (id, score.to_bits()))
                        .collect();
                    prop_assert_eq!(&got, &expected, "{} (warm: {})", q, s.warm);
                }
                if let Some(words) = later.get(i) {
                    for s in [&mut warm, &mut cold] {
                        remember(s, memory(words, &[], true, 0.5), &off).unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn a_warm_search_reads_on_past_the_matches_a_filter_leaves_out() {
        let off = DedupConfig {
            enabled: false,
            ..DedupConfig::default()
        };
        let mut warm = Store::open_in_memory().unwrap();
        warm.set_warm(true);
        let mut cold = Store::open_in_memory().unwrap();
        for s in [&mut warm, &mut cold] {
            for i in 0..200 {
                let m = lesson(&format!("pgbouncer pool pgbouncer exhausted {i}"), "b");
                remember(s, m, &off).unwrap();
            }
            remember(
                s,
                lesson(
                    "a long note that mentions pgbouncer once among many other words",
                    "a",
                ),
                &off,
            )
            .unwrap();
        }
        let filter = oro_mem_core::Filter {
            namespace: Some("a".into()),
            ..Default::default()
        };
        let ids = |s: &Store| -> Vec<(MemoryId, f64)> {
            s.lexical_candidates("pgbouncer pool", &filter, 1)
                .unwrap()
                .into_iter()
                .map(|(m, score)| (m.id, score))
                .collect()
        };
        assert_eq!(ids(&warm), [(201, ids(&cold)[0].1)]);
        assert_eq!(ids(&warm), ids(&cold));
    }

    #[test]
    fn a_warm_search_sees_another_connections_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        let mut a = Store::open(&path).unwrap();
        a.set_warm(true);
        let off = DedupConfig {
            enabled: false,
            ..DedupConfig::default()
        };
        remember(&mut a, lesson("pgbouncer pool exhausted", "a"), &off).unwrap();
        let filter = oro_mem_core::Filter::default();
        assert_eq!(
            a.lexical_candidates("pgbouncer", &filter, 5).unwrap().len(),
            1
        );
        let mut b = Store::open(&path).unwrap();
        remember(&mut b, lesson("pgbouncer restarted", "a"), &off).unwrap();
        let warm = a.lexical_candidates("pgbouncer", &filter, 5).unwrap();
        let cold = b.lexical_candidates("pgbouncer", &filter, 5).unwrap();
        assert_eq!(warm.len(), 2);
        let ids = |c: &[(oro_mem_core::Memory, f64)]| -> Vec<(MemoryId, f64)> {
            c.iter().map(|(m, s)| (m.id, *s)).collect()
        };
        assert_eq!(ids(&warm), ids(&cold));
    }

    #[test]
    fn the_mirror_answers_and_is_kept_between_batches() {
        let mut s = Store::open_in_memory().unwrap();
        let dedup = DedupConfig::default();
        let batch = |texts: &[&str]| texts.iter().map(|t| lesson(t, "a")).collect::<Vec<_>>();
        remember_batch(
            &mut s,
            batch(&["wal mode lets readers run", "busy timeout"]),
            &dedup,
        )
        .unwrap();
        assert_eq!(answered(&s), Some(2));
        let out = remember_batch(&mut s, batch(&["wal mode lets readers run"]), &dedup).unwrap();
        assert!(matches!(out[0], WriteOutcome::Skipped { .. }), "{out:?}");
        assert_eq!(answered(&s), Some(3), "the same mirror answered again");
        // CJK queries are FTS5's: the mirror stays, without answering.
        remember_batch(&mut s, batch(&["数据库 锁"]), &dedup).unwrap();
        assert_eq!(answered(&s), Some(3));
    }

    #[test]
    fn a_change_by_this_connection_or_another_is_not_missed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        let dedup = DedupConfig::default();
        let mut a = Store::open(&path).unwrap();
        // Loads the terms the other connection's memory will hold.
        remember(
            &mut a,
            lesson("pgbouncer pool exhausted under load", "one"),
            &dedup,
        )
        .unwrap();
        assert_eq!(answered(&a), Some(1));
        let mut b = Store::open(&path).unwrap();
        let theirs = remember(
            &mut b,
            lesson("pgbouncer pool exhausted under load spikes", "two"),
            &dedup,
        )
        .unwrap()
        .id();
        let out = remember(
            &mut a,
            lesson("pgbouncer pool exhausted under load spikes", "two"),
            &dedup,
        )
        .unwrap();
        assert_eq!(
            out,
            WriteOutcome::Skipped {
                duplicate_of: theirs,
                similarity: 1.0
            }
        );
        assert_eq!(
            answered(&a),
            Some(1),
            "a new mirror, not the stale one, answered"
        );
        // This connection deletes the memory: the next check must not find it.
        a.forget(theirs).unwrap();
        let again = remember(
            &mut a,
            lesson("pgbouncer pool exhausted under load spikes", "two"),
            &dedup,
        )
        .unwrap();
        assert!(matches!(again, WriteOutcome::Inserted { .. }), "{again:?}");
        assert_eq!(
            answered(&a),
            Some(1),
            "a new mirror, not the stale one, answered"
        );
    }

    #[test]
    fn varints_read_as_sqlite_writes_them() {
        let v: Vec<u64> = Varints(&[0x05, 0x81, 0x00, 0xff, 0x7f]).collect();
        assert_eq!(v, [5, 128, 16_383]);
        let nine = [0xff; 9];
        assert_eq!(Varints(&nine).next(), Some(u64::MAX));
        // A truncated value is not read.
        assert_eq!(Varints(&[0x81]).next(), None);
    }
}
