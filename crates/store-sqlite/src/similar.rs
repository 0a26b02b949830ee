//! Lexical duplicate search: the memories whose BM25 score for a new memory's text comes
//! close to the new memory's own score.
//!
//! Scoring every memory that shares a word with the new text (what `ORDER BY rank` does) costs
//! a BM25 evaluation per match, which at 10k memories is most of the write path. But the
//! callers only want matches above a threshold, and a term's contribution to an FTS5 BM25
//! score is bounded: `idf × w(k1+1) / (w + k1(1−b+b·len/avglen)) < idf × (k1+1)`, whatever
//! its frequency `w` in the document. So the lowest-IDF terms whose bounds add up to less than
//! the threshold cannot lift a document over it alone: a document must contain one of the
//! remaining, rarer, *essential* terms (the MaxScore idea of Turtle and Flood, 1995). Only the
//! documents matching an essential term can be duplicates, and of those only the ones whose
//! score over the essential terms, plus the bound of the others, reaches the threshold. Those
//! few are then scored exactly, with every term.
//!
//! The document frequencies the bounds need are counted with FTS5 itself, so they follow its
//! tokenizer (stemming included), once per term for a whole batch ([`TermCounts`]). On the
//! synthetic stores of `benches/` this makes a deduplicated write 2–3× faster: 3.2 ms at 10k
//! memories (`cargo bench -p oro-mem-benches --bench ingest`), 24.6 ms at 100k (`--example
//! ingest_at`; 28.0 ms counting each term for each memory). Most of what is left is the
//! exact scoring of the memories that may pass: the bound of the optional terms is loose, so
//! hundreds to thousands may, and scoring them walks every match of the text. Adding the
//! optional terms one at a time over those memories (MaxScore's next step) was slower here:
//! each term's list is walked whole either way.

use std::collections::HashMap;

use oro_mem_core::{MemoryId, Result};
use rusqlite::{params, Connection, OptionalExtension};

use oro_mem_text::bm25::{self, Bm25};

use crate::fts5::fts5_phrases;
use crate::mirror::{Matches, Mirror, Prepared};
use crate::store::{to_i64, SqlContext};

/// Up to this many memories that may be duplicates are scored one by one, each by a lookup
/// in the index; more, by one walk over every match of the new text.
const SEEK_AT_MOST: usize = 32;

/// How many memories match each term, counted once for a run of duplicate checks in one
/// transaction in which memories are only added (a batch of writes): a count read earlier
/// is at most the count now, so the IDF it gives is at least the IDF now, and the bounds
/// built on it stay bounds. Deleting memories would break that: start afresh after any.
#[derive(Debug, Default)]
pub(crate) struct TermCounts {
    /// The matches of each phrase, the memory being checked when it was counted left out.
    others: HashMap<String, f64>,
}

/// A stored memory whose duplicates are looked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe<'a> {
    pub(crate) id: MemoryId,
    pub(crate) content: &'a str,
    pub(crate) namespace: &'a str,
}

/// Memories of `namespace` lexically similar to `content`, which is stored as `self_id`, with
/// a normalized BM25 of at least `min_similarity`: `(id, normalized BM25)`, best first, at
/// most `limit`. 1.0 means "scores as well as the memory itself". Only active memories count.
///
/// With a `mirror` of the index that holds the memory (prepared before its insert), the
/// mirror scores; else, or when the mirror cannot answer, FTS5 does. The answer is the same.
pub(crate) fn similar(
    conn: &Connection,
    counts: &mut TermCounts,
    mirror: Option<(&mut Mirror, &Prepared)>,
    probe: Probe<'_>,
    limit: usize,
    min_similarity: f64,
) -> Result<Vec<(MemoryId, f64)>> {
    let Probe {
        id: self_id,
        content,
        namespace,
    } = probe;
    let phrases: Vec<String> = fts5_phrases(content);
    if phrases.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let mirrored = match mirror {
        Some((m, prepared)) => m.matches(conn, prepared, self_id, min_similarity)?,
        None => None,
    };
    let (own, scored) = match mirrored {
        Some(Matches { own, rows: matches }) => {
            let threshold = min_similarity * own;
            let scored = in_namespace(conn, matches, self_id, namespace, threshold, limit)?;
            (own, scored)
        }
        None => {
            let q = phrases.join(" OR ");
            let own: Option<f64> = conn
                .prepare_cached(
                    "SELECT -rank FROM memories_fts WHERE memories_fts MATCH ?1 AND rowid = ?2",
                )
                .and_then(|mut s| s.query_row(params![q, self_id], |r| r.get(0)).optional())
                .context("cannot score duplicate")?;
            let Some(own) = own.filter(|s| *s > 0.0) else {
                return Ok(Vec::new());
            };
            let threshold = min_similarity * own;
            let scored = match essential_matches(conn, counts, &phrases, &q, threshold)? {
                Some(matches) => in_namespace(conn, matches, self_id, namespace, threshold, limit)?,
                None => best_matches(conn, &q, self_id, namespace, limit)?,
            };
            (own, scored)
        }
    };
    Ok(scored
        .into_iter()
        .map(|(id, score)| (id, (score / own).min(1.0)))
        .filter(|&(_, similarity)| similarity >= min_similarity)
        .collect())
}

/// Every memory that can score `threshold` or more for the OR of `phrases` (`q`), with its
/// exact score, in no particular order; `None` when no term can be left out, so nothing is
/// saved over scoring every match.
fn essential_matches(
    conn: &Connection,
    counts: &mut TermCounts,
    phrases: &[String],
    q: &str,
    threshold: f64,
) -> Result<Option<Vec<(MemoryId, f64)>>> {
    if threshold.is_nan() || threshold <= 0.0 {
        return Ok(None);
    }
    let mut bounds = bounds(conn, counts, phrases)?;
    bounds.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (optional, sum) = bm25::optional_terms(bounds.iter().map(|b| b.0), threshold);
    if optional == 0 {
        return Ok(None);
    }
    if optional == bounds.len() {
        // Not even the memory itself could reach the threshold (it is above 1).
        return Ok(Some(Vec::new()));
    }
    let essential: Vec<&str> = bounds[optional..]
        .iter()
        .map(|&(_, i)| phrases[i].as_str())
        .collect();
    // A memory's score over the essential terms alone, plus less than `sum` from the others.
    let mut s = conn
        .prepare_cached("SELECT rowid, -rank FROM memories_fts WHERE memories_fts MATCH ?1")
        .context("cannot find duplicates")?;
    let mut hopeful: Vec<MemoryId> = Vec::new();
    let mut rows = s
        .query([essential.join(" OR ")])
        .context("cannot find duplicates")?;
    while let Some(r) = rows.next().context("cannot find duplicates")? {
        let partial: f64 = r.get(1).context("cannot find duplicates")?;
        if bm25::may_reach(partial + sum, threshold) {
            hopeful.push(r.get(0).context("cannot find duplicates")?);
        }
    }
    if hopeful.is_empty() {
        return Ok(Some(Vec::new()));
    }
    exact_scores(conn, q, hopeful).map(Some)
}

/// The upper bound of each of `phrases`' parts of a memory's score, with the phrase's index:
/// by its IDF over the memories other than the new one (counted once per batch, in
/// `counts`), plus the new one.
fn bounds(
    conn: &Connection,
    counts: &mut TermCounts,
    phrases: &[String],
) -> Result<Vec<(f64, usize)>> {
    // FTS5's IDF uses the number of rows in the index, which is at most the largest rowid:
    // a larger count only raises the bounds, so they stay bounds.
    let row_count: f64 = conn
        .query_row("SELECT coalesce(max(id), 0) FROM memories", [], |r| {
            r.get::<_, i64>(0)
        })
        .context("cannot count memories")? as f64;
    let mut count = conn
        .prepare_cached("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?1")
        .context("cannot count term matches")?;
    let mut bounds: Vec<(f64, usize)> = Vec::with_capacity(phrases.len());
    for (i, phrase) in phrases.iter().enumerate() {
        // The memory itself matches each of its phrases; the others were counted once.
        let hits = 1.0
            + match counts.others.get(phrase) {
                Some(&others) => others,
                None => {
                    let all = count
                        .query_row([phrase], |r| r.get::<_, i64>(0))
                        .context("cannot count term matches")? as f64;
                    let others = (all - 1.0).max(0.0);
                    counts.others.insert(phrase.clone(), others);
                    others
                }
            };
        let idf = bm25::idf(row_count as i64, hits as i64);
        bounds.push((Bm25::FTS5.bound(idf), i));
    }
    Ok(bounds)
}

/// The exact scores for `q` of the memories `hopeful` that match it. A few are each looked up
/// in the index (FTS5 seeks every term's list to the row); for more, one walk over every
/// match of `q` scores only these (`+rowid` keeps the constraint from FTS5, which would look
/// up each id afresh).
fn exact_scores(
    conn: &Connection,
    q: &str,
    hopeful: Vec<MemoryId>,
) -> Result<Vec<(MemoryId, f64)>> {
    if hopeful.len() <= SEEK_AT_MOST {
        let mut one = conn
            .prepare_cached(
                "SELECT -rank FROM memories_fts \
                 WHERE memories_fts MATCH ?1 AND rowid = ?2",
            )
            .context("cannot find duplicates")?;
        let mut exact = Vec::with_capacity(hopeful.len());
        for id in hopeful {
            if let Some(score) = one
                .query_row(params![q, id], |r| r.get::<_, f64>(0))
                .optional()
                .context("cannot find duplicates")?
            {
                exact.push((id, score));
            }
        }
        return Ok(exact);
    }
    let ids = format!(
        "[{}]",
        hopeful
            .iter()
            .map(MemoryId::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut s = conn
        .prepare_cached(
            "SELECT rowid, -rank FROM memories_fts \
             WHERE memories_fts MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))",
        )
        .context("cannot find duplicates")?;
    let rows = s
        .query_map(params![q, ids], |r| Ok((r.get(0)?, r.get(1)?)))
        .context("cannot find duplicates")?;
    rows.collect::<rusqlite::Result<Vec<_>>>()
        .context("cannot find duplicates")
}

/// The best `limit` of `matches` scoring at least `threshold` that are active memories of
/// `namespace` other than `self_id`, best first.
fn in_namespace(
    conn: &Connection,
    mut matches: Vec<(MemoryId, f64)>,
    self_id: MemoryId,
    namespace: &str,
    threshold: f64,
    limit: usize,
) -> Result<Vec<(MemoryId, f64)>> {
    matches.retain(|&(id, score)| id != self_id && score >= threshold);
    matches.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut s = conn
        .prepare_cached(
            "SELECT 1 FROM memories WHERE id = ?1 AND namespace = ?2 AND status = 'active'",
        )
        .context("cannot find duplicates")?;
    let mut out = Vec::new();
    for (id, score) in matches {
        if out.len() == limit {
            break;
        }
        if s.exists(params![id, namespace])
            .context("cannot find duplicates")?
        {
            out.push((id, score));
        }
    }
    Ok(out)
}

/// The best `limit` active memories of `namespace` other than `self_id` matching `q`, with
/// their scores, best first, by scoring every match.
fn best_matches(
    conn: &Connection,
    q: &str,
    self_id: MemoryId,
    namespace: &str,
    limit: usize,
) -> Result<Vec<(MemoryId, f64)>> {
    // Fast path, as for recall: rank in FTS5 alone, then look up only the best few rows. The
    // answer is exact when enough of them are in the namespace, or every match was seen;
    // otherwise the general query below joins every match.
    let fetch = limit.saturating_mul(2).max(limit + 16);
    let mut s = conn
        .prepare_cached(
            "SELECT t.id, -t.score, t.n FROM \
               (SELECT rowid AS id, rank AS score, count(*) OVER () AS n FROM memories_fts \
                WHERE memories_fts MATCH ?1 ORDER BY rank LIMIT ?2) t \
             JOIN memories m ON m.id = t.id \
             WHERE m.id <> ?3 AND m.namespace = ?4 AND m.status = 'active' \
             ORDER BY t.score LIMIT ?5",
        )
        .context("cannot find duplicates")?;
    let mut complete = false;
    let best = s
        .query_map(
            params![q, to_i64(fetch), self_id, namespace, to_i64(limit)],
            |r| {
                complete |= r.get::<_, i64>(2)? < to_i64(fetch);
                Ok((r.get::<_, MemoryId>(0)?, r.get::<_, f64>(1)?))
            },
        )
        .context("cannot find duplicates")?
        .collect::<rusqlite::Result<Vec<_>>>()
        .context("cannot find duplicates")?;
    if best.len() >= limit || complete {
        return Ok(best);
    }
    let mut s = conn
        .prepare_cached(
            "SELECT m.id, -memories_fts.rank FROM memories_fts \
             JOIN memories m ON m.id = memories_fts.rowid \
             WHERE memories_fts MATCH ?1 AND m.id <> ?2 AND m.namespace = ?3 \
               AND m.status = 'active' \
             ORDER BY memories_fts.rank LIMIT ?4",
        )
        .context("cannot find duplicates")?;
    let rows = s
        .query_map(params![q, self_id, namespace, to_i64(limit)], |r| {
            Ok((r.get::<_, MemoryId>(0)?, r.get::<_, f64>(1)?))
        })
        .context("cannot find duplicates")?;
    rows.collect::<rusqlite::Result<_>>()
        .context("cannot find duplicates")
}

#[cfg(test)]
mod tests {
    use crate::test_support::{remember, remember_batch};
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{MemoryType, NewMemory};
    use proptest::prelude::*;

    use super::*;
    use crate::Store;

    /// A vocabulary where a few words are in most memories and the rest are rare.
    const WORDS: &[&str] = &[
        "sqlite",
        "sqlite",
        "sqlite",
        "lock",
        "lock",
        "writer",
        "writer",
        "retry",
        "backoff",
        "jitter",
        "cache",
        "schema",
        "migration",
        "vector",
        "index",
        "tokenizer",
        "数据库",
        "数据",
        "锁定",
    ];

    fn store_with(docs: &[(Vec<usize>, bool, bool)]) -> Store {
        let mut s = Store::open_in_memory().unwrap();
        let off = DedupConfig {
            enabled: false,
            ..DedupConfig::default()
        };
        for (words, in_a, archived) in docs {
            let text: Vec<&str> = words.iter().map(|&i| WORDS[i]).collect();
            let m = NewMemory::new(text.join(" "), MemoryType::Lesson).namespace(if *in_a {
                "a"
            } else {
                "b"
            });
            let id = remember(&mut s, m, &off).unwrap().id();
            if *archived {
                s.connection()
                    .execute(
                        "UPDATE memories SET status = 'archived' WHERE id = ?1",
                        [id],
                    )
                    .unwrap();
            }
        }
        s
    }

    fn add(s: &mut Store, text: &str) -> MemoryId {
        let off = DedupConfig {
            enabled: false,
            ..DedupConfig::default()
        };
        remember(
            s,
            NewMemory::new(text, MemoryType::Lesson).namespace("a"),
            &off,
        )
        .unwrap()
        .id()
    }

    #[test]
    fn common_terms_are_left_out_and_the_answer_is_the_same() {
        // 200 memories share "sqlite lock"; one in namespace "a" also has the rare words.
        let mut docs: Vec<(Vec<usize>, bool, bool)> = (0..200)
            .map(|i| (vec![0, 3, 5 + 2 * (i % 2)], i % 3 == 0, false))
            .collect();
        docs.push((vec![0, 3, 9, 10, 12, 15], true, false));
        let mut s = store_with(&docs);
        let text = "sqlite lock jitter cache migration";
        let id = add(&mut s, text);
        let c = s.connection();
        let phrases: Vec<String> = fts5_phrases(text);
        let q = phrases.join(" OR ");
        let pruned = essential_matches(c, &mut TermCounts::default(), &phrases, &q, 1.0).unwrap();
        assert!(pruned.is_some(), "the common terms should be optional");
        let probe = Probe {
            id,
            content: text,
            namespace: "a",
        };
        let find = |min| similar(c, &mut TermCounts::default(), None, probe, 5, min).unwrap();
        let found = find(0.7);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found, {
            let mut all = find(0.0);
            all.retain(|&(_, sim)| sim >= 0.7);
            all
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Pruning finds exactly what scoring every match finds.
        #[test]
        fn pruning_changes_nothing(
            docs in prop::collection::vec(
                (prop::collection::vec(0..WORDS.len(), 1..8), any::<bool>(), prop::bool::weighted(0.1)),
                0..60,
            ),
            new in prop::collection::vec(0..WORDS.len(), 1..8),
            min in prop::sample::select(vec![0.3, 0.5, 0.7, 0.85, 1.0]),
        ) {
            let mut s = store_with(&docs);
            let text: Vec<&str> = new.iter().map(|&i| WORDS[i]).collect();
            let text = text.join(" ");
            let id = add(&mut s, &text);
            let c = s.connection();
            let mut fast = similar(c, &mut TermCounts::default(), None, Probe { id, content: &text, namespace: "a" }, 1000, min).unwrap();
            let mut all = similar(c, &mut TermCounts::default(), None, Probe { id, content: &text, namespace: "a" }, 1000, 0.0).unwrap();
            all.retain(|&(_, sim)| sim >= min);
            fast.sort_by_key(|p| p.0);
            all.sort_by_key(|p| p.0);
            prop_assert_eq!(fast, all);
        }

        /// A batch, whose checks count each term once, finds the duplicates that writing its
        /// memories one at a time finds (each counting afresh, which `pruning_changes_nothing`
        /// checks against scoring every match), its own near-duplicates included.
        #[test]
        fn a_batch_finds_what_single_writes_find(
            docs in prop::collection::vec(
                (prop::collection::vec(0..WORDS.len(), 1..8), any::<bool>(), prop::bool::weighted(0.1)),
                0..40,
            ),
            batch in prop::collection::vec(
                (prop::collection::vec(0..WORDS.len(), 1..8), any::<bool>(), 0.1..1.0f64),
                1..20,
            ),
            bm25 in prop::sample::select(vec![0.3, 0.5, 0.7, 0.85]),
        ) {
            let dedup = DedupConfig { bm25, ..DedupConfig::default() };
            let new: Vec<NewMemory> = batch
                .iter()
                .map(|(words, in_a, confidence)| {
                    let text: Vec<&str> = words.iter().map(|&i| WORDS[i]).collect();
                    NewMemory::new(text.join(" "), MemoryType::Lesson)
                        .namespace(if *in_a { "a" } else { "b" })
                        .confidence(*confidence)
                })
                .collect();
            let mut together = store_with(&docs);
            let at_once = remember_batch(&mut together, new.clone(), &dedup).unwrap();
            let mut apart = store_with(&docs);
            let one_by_one: Vec<_> = new
                .into_iter()
                .map(|m| remember(&mut apart, m, &dedup).unwrap())
                .collect();
            prop_assert_eq!(at_once, one_by_one);
        }
    }
}
