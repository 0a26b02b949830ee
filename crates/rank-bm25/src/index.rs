//! An in-memory Okapi BM25 index that scores like SQLite FTS5's `bm25()`.

use std::collections::{HashMap, HashSet};

use oro_mem_core::{Candidates, Error, MemoryId, Query, Ranker, Ranking, Result};
use oro_mem_text::bm25::{self, Bm25};
use oro_mem_text::Stemmer;
use oro_mem_text::{identifier_parts, query_terms, segments, Segment, Term};

/// How text becomes index terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Analyzer {
    /// Lowercase only: the same tokens as FTS5's `unicode61` tokenizer on text without
    /// diacritics (unicode61 also folds "é" to "e"; this analyzer keeps it) and without
    /// identifiers in camelCase (this analyzer adds their parts, as the stores do).
    Plain,
    /// Lowercase and English (Snowball) stemming, close to FTS5's `porter unicode61`.
    #[default]
    English,
}

/// Okapi BM25 over documents held in memory.
///
/// Scoring is exactly FTS5's `bm25()` (negated, so larger is better): `k1 = 1.2`, `b = 0.75`,
/// `idf = ln((N - n + 0.5) / (n + 0.5))` floored at `1e-6`, document length in tokens over the
/// average. Query text goes through [`query_terms`], so stopwords and one-letter words are not
/// searched (they still count toward document length, as in FTS5). A code identifier is
/// indexed whole and by its parts, as the stores index it
/// ([`identifier_parts`](oro_mem_text::identifier_parts)). CJK text is indexed as character
/// bigrams.
pub struct Bm25Index {
    analyzer: Analyzer,
    stemmer: Option<Stemmer>,
    bm25: Bm25,
    /// Slot per document ever inserted; `None` once removed.
    docs: Vec<Option<Doc>>,
    slot_of: HashMap<MemoryId, usize>,
    postings: HashMap<String, Vec<(usize, u32)>>,
    total_tokens: u64,
}

#[derive(Debug)]
struct Doc {
    id: MemoryId,
    len: u32,
    terms: Vec<String>,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("analyzer", &self.analyzer)
            .field("docs", &self.len())
            .field("terms", &self.postings.len())
            .finish()
    }
}

impl Default for Bm25Index {
    fn default() -> Bm25Index {
        Bm25Index::new()
    }
}

impl Bm25Index {
    /// An empty index with the [`Analyzer::English`] analyzer.
    pub fn new() -> Bm25Index {
        Bm25Index::with_analyzer(Analyzer::English)
    }

    /// An empty index with the given analyzer.
    pub fn with_analyzer(analyzer: Analyzer) -> Bm25Index {
        Bm25Index {
            analyzer,
            stemmer: (analyzer == Analyzer::English).then(Stemmer::english),
            bm25: Bm25::FTS5,
            docs: Vec::new(),
            slot_of: HashMap::new(),
            postings: HashMap::new(),
            total_tokens: 0,
        }
    }

    /// The same index with BM25 parameters `k1` (term-frequency saturation, FTS5: 1.2) and
    /// `b` (length normalization, FTS5: 0.75). Anserini's BEIR baselines use 0.9 and 0.4.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) when `k1` is negative or not
    /// finite, or `b` is outside `[0, 1]`.
    pub fn with_parameters(mut self, k1: f64, b: f64) -> Result<Bm25Index> {
        self.bm25 = Bm25::new(k1, b).ok_or_else(|| {
            Error::config(format!(
                "BM25 k1 must be a finite number >= 0 and b between 0 and 1, got k1 {k1}, b {b}"
            ))
        })?;
        Ok(self)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// True when the index holds no documents.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    fn word(&self, w: &str) -> String {
        let lower = w.to_lowercase();
        match &self.stemmer {
            Some(s) => s.stem(&lower).into_owned(),
            None => lower,
        }
    }

    fn analyze(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for seg in segments(text) {
            match seg {
                Segment::Word(w) => {
                    out.push(self.word(w));
                    // An identifier's parts beside it, as the stores index them.
                    out.extend(
                        identifier_parts(w)
                            .into_iter()
                            .flatten()
                            .map(|p| self.word(p)),
                    );
                }
                Segment::Cjk(run) => {
                    let chars: Vec<char> = run.chars().collect();
                    if chars.len() == 1 {
                        out.push(run.to_string());
                    }
                    out.extend(chars.windows(2).map(|p| p.iter().collect::<String>()));
                }
            }
        }
        out
    }

    /// Adds a document, replacing any earlier one with the same id.
    pub fn insert(&mut self, id: MemoryId, text: &str) {
        self.remove(id);
        let tokens = self.analyze(text);
        let mut tf: HashMap<String, u32> = HashMap::new();
        for t in &tokens {
            *tf.entry(t.clone()).or_default() += 1;
        }
        let slot = self.docs.len();
        for (term, n) in &tf {
            self.postings
                .entry(term.clone())
                .or_default()
                .push((slot, *n));
        }
        let len = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
        self.total_tokens += u64::from(len);
        self.docs.push(Some(Doc {
            id,
            len,
            terms: tf.into_keys().collect(),
        }));
        self.slot_of.insert(id, slot);
    }

    /// Removes a document; returns whether it was there.
    pub fn remove(&mut self, id: MemoryId) -> bool {
        let Some(slot) = self.slot_of.remove(&id) else {
            return false;
        };
        let Some(doc) = self.docs[slot].take() else {
            return false;
        };
        self.total_tokens -= u64::from(doc.len);
        for term in doc.terms {
            if let Some(list) = self.postings.get_mut(&term) {
                list.retain(|&(s, _)| s != slot);
                if list.is_empty() {
                    self.postings.remove(&term);
                }
            }
        }
        true
    }

    fn query_keys(&self, text: &str) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for t in query_terms(text) {
            let key = match t {
                Term::Word(w) => self.word(&w),
                Term::Cjk(c) => c,
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// BM25 scores (larger is better) of every document matching at least one query term.
    pub fn scores(&self, query: &str) -> HashMap<MemoryId, f64> {
        let mut acc: HashMap<usize, f64> = HashMap::new();
        let rows = self.len() as i64;
        if rows == 0 {
            return HashMap::new();
        }
        let avgdl = self.total_tokens as f64 / rows as f64;
        for key in self.query_keys(query) {
            let Some(list) = self.postings.get(&key) else {
                continue;
            };
            let idf = bm25::idf(rows, list.len() as i64);
            for &(slot, tf) in list {
                let Some(doc) = &self.docs[slot] else {
                    continue;
                };
                *acc.entry(slot).or_default() +=
                    self.bm25
                        .part(idf, f64::from(tf), f64::from(doc.len), avgdl);
            }
        }
        acc.into_iter()
            .filter_map(|(slot, s)| self.docs[slot].as_ref().map(|d| (d.id, s)))
            .collect()
    }

    /// The best `limit` documents for `query`.
    pub fn search(&self, query: &str, limit: usize) -> Ranking {
        let mut r = Ranking::from_scores(self.scores(query));
        r.truncate(limit);
        r
    }
}

/// Ranks a candidate set by this index's BM25 scores; candidates the index does not match are
/// left out.
impl Ranker for Bm25Index {
    fn name(&self) -> &str {
        "bm25"
    }

    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let wanted: HashSet<MemoryId> = candidates.iter().map(|c| c.id()).collect();
        Ok(Ranking::from_scores(
            self.scores(query.text)
                .into_iter()
                .filter(|(id, _)| wanted.contains(id)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stemming_matches_inflections() {
        let mut ix = Bm25Index::new();
        ix.insert(1, "connections were timing out");
        ix.insert(2, "unrelated text");
        assert_eq!(ix.search("connection timeouts timed", 5).hits()[0].id, 1);
    }

    #[test]
    fn parameters_change_length_normalization_and_are_checked() {
        // The same one match in a short and a long document: with b = 0 length does not
        // matter, with b = 1 the short one wins clearly.
        let build = |b| {
            let mut ix = Bm25Index::new().with_parameters(1.2, b).unwrap();
            ix.insert(1, "wal lock");
            ix.insert(
                2,
                "wal lock and a great many other words about nothing at all",
            );
            ix.insert(3, "something else");
            ix.scores("lock")
        };
        let flat = build(0.0);
        assert!((flat[&1] - flat[&2]).abs() < 1e-12, "{flat:?}");
        let full = build(1.0);
        assert!(full[&1] > full[&2] * 1.5, "{full:?}");
        for (k1, b) in [(-1.0, 0.5), (f64::NAN, 0.5), (1.2, 1.5), (1.2, -0.1)] {
            let err = Bm25Index::new().with_parameters(k1, b).unwrap_err();
            assert!(err.to_string().contains("BM25"), "{err}");
        }
    }

    #[test]
    fn insert_replaces_and_remove_forgets() {
        let mut ix = Bm25Index::new();
        ix.insert(1, "alpha beta");
        ix.insert(1, "gamma");
        assert!(ix.search("alpha", 5).is_empty());
        assert_eq!(ix.len(), 1);
        assert!(ix.remove(1));
        assert!(!ix.remove(1));
        assert!(ix.search("gamma", 5).is_empty());
    }

    #[test]
    fn cjk_text_matches_by_bigrams() {
        let mut ix = Bm25Index::new();
        ix.insert(1, "数据库连接超时");
        ix.insert(2, "データベースのロック");
        ix.insert(3, "plain english");
        assert_eq!(ix.search("连接", 5).hits()[0].id, 1);
        assert_eq!(ix.search("ロック", 5).hits()[0].id, 2);
    }
}
