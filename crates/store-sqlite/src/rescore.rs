//! BM25 scores of given memories, for candidates another source found: what FTS5's `rank`
//! would give them, without ranking every match again.
//!
//! FTS5 scores a row from each query term's row count (its IDF), the term's weighted
//! frequency in the row and the row's length over the average. The first comes from an
//! `fts5vocab` table of type `row`, one lookup a term; the others from the rows' own text,
//! as the index holds it (`memories_fts_source`), cut by the index's tokenizer
//! ([`Analyzer`]) in one pass. Every match's rank would cost as much as the search itself
//! (about 100 ms for a question of common words at a million memories).
//!
//! A query with a phrase that is not one term (a CJK bigram) is left to FTS5.

use oro_mem_core::{MemoryId, Result};
use oro_mem_text::Term;
use rusqlite::{Connection, OptionalExtension};

use crate::mirror::{idf, part, single_terms, totals};
use crate::store::SqlContext;
use oro_mem_text::{Analyzer, Fields};

/// The score FTS5's `rank` gives (negated) each of `ids` that matches the OR of `query`'s
/// phrases, in the order of `ids`; `None` when a phrase is not one term. `conn` should be in a
/// read transaction, so that the statistics and the rows are of one state of the index, and
/// have the tables of [`make_vocabularies`](crate::mirror::make_vocabularies).
pub(crate) fn scores(
    conn: &Connection,
    analyzer: &Analyzer,
    query: &[Term],
    ids: &[MemoryId],
) -> Result<Option<Vec<(MemoryId, f64)>>> {
    let Some(terms) = single_terms(analyzer, query)? else {
        return Ok(None);
    };
    let (rows, tokens) = totals(conn)?;
    if rows == 0 {
        return Ok(Some(Vec::new()));
    }
    let avgdl = tokens as f64 / rows as f64;
    let mut count = conn
        .prepare_cached("SELECT doc FROM temp.oro_fts_row WHERE term = ?1")
        .context("cannot read the full-text index")?;
    let mut idfs = Vec::with_capacity(terms.len());
    for term in &terms {
        let hits: Option<i64> = count
            .query_row([term], |r| r.get(0))
            .optional()
            .context("cannot read the full-text index")?;
        idfs.push(idf(rows, usize::try_from(hits.unwrap_or(0)).unwrap_or(0)));
    }
    let mut text = conn
        .prepare_cached(
            "SELECT body, tags, coalesce(summary, ''), files, entities \
             FROM memories_fts_source WHERE id = ?1",
        )
        .context("cannot read memories")?;
    let mut held: Vec<(MemoryId, [String; 5])> = Vec::with_capacity(ids.len());
    for &id in ids {
        let row = text
            .query_row([id], |r| {
                Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?])
            })
            .optional()
            .context("cannot read memories")?;
        held.extend(row.map(|fields| (id, fields)));
    }
    let fields: Vec<Fields<'_>> = held
        .iter()
        .map(|(_, [content, tags, summary, files, entities])| Fields {
            content,
            tags,
            summary,
            files,
            entities,
        })
        .collect();
    let docs = analyzer.documents(&fields)?;
    let mut out = Vec::with_capacity(held.len());
    for ((id, _), doc) in held.iter().zip(&docs) {
        let d = f64::from(doc.len);
        // Summed in the order of the query's phrases, as `bm25()` sums.
        let score = terms
            .iter()
            .zip(&idfs)
            .filter_map(|(term, &idf)| Some(part(idf, f64::from(doc.frequency(term)?), d, avgdl)))
            .reduce(|a, b| a + b);
        out.extend(score.map(|score| (*id, score)));
    }
    Ok(Some(out))
}
