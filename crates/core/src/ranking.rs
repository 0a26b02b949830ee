//! Candidates going into rankers and the rankings coming out.

use std::collections::HashMap;

use crate::memory::{Memory, MemoryId};

/// A memory under consideration for one query, with the per-query signals the store computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The memory itself.
    pub memory: Memory,
    /// Lexical relevance: FTS5 `bm25()` negated, so larger is better; `None` when the memory
    /// did not match the query's terms.
    pub bm25: Option<f64>,
    /// Cosine similarity between the query's and the memory's embeddings; `None` when either
    /// is missing.
    pub similarity: Option<f64>,
}

impl Candidate {
    /// A candidate with no signals yet.
    pub fn new(memory: Memory) -> Candidate {
        Candidate {
            memory,
            bm25: None,
            similarity: None,
        }
    }

    /// The memory's id.
    pub fn id(&self) -> MemoryId {
        self.memory.id
    }
}

/// The set of candidates for one query; ids are unique.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Candidates {
    items: Vec<Candidate>,
}

impl Candidates {
    /// Collects candidates, keeping the first of any repeated id.
    pub fn new(items: impl IntoIterator<Item = Candidate>) -> Candidates {
        let mut seen = std::collections::HashSet::new();
        Candidates {
            items: items.into_iter().filter(|c| seen.insert(c.id())).collect(),
        }
    }

    /// The candidates, in the order they were collected.
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items
    }

    /// Keeps only the candidates for which `keep` is true, in their order.
    pub fn retain(&mut self, keep: impl FnMut(&Candidate) -> bool) {
        self.items.retain(keep);
    }

    /// Mutable access, e.g. to fill in signals. Do not change ids.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Candidate> {
        self.items.iter_mut()
    }

    /// Iterates over the candidates.
    pub fn iter(&self) -> std::slice::Iter<'_, Candidate> {
        self.items.iter()
    }

    /// How many candidates there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Consumes the set.
    pub fn into_vec(self) -> Vec<Candidate> {
        self.items
    }
}

impl<'a> IntoIterator for &'a Candidates {
    type Item = &'a Candidate;
    type IntoIter = std::slice::Iter<'a, Candidate>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// One ranked document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The memory.
    pub id: MemoryId,
    /// Larger is better; comparable only within one ranking.
    pub score: f64,
}

/// An ordered list of hits: descending score, ties by ascending id, ids unique, scores finite.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranking {
    hits: Vec<Hit>,
}

impl Ranking {
    /// Builds a ranking from `(id, score)` pairs in any order.
    ///
    /// Non-finite scores are dropped; of a repeated id the best score is kept.
    pub fn from_scores(scores: impl IntoIterator<Item = (MemoryId, f64)>) -> Ranking {
        let mut best: HashMap<MemoryId, f64> = HashMap::new();
        for (id, score) in scores {
            if !score.is_finite() {
                continue;
            }
            best.entry(id)
                .and_modify(|s| *s = s.max(score))
                .or_insert(score);
        }
        let mut hits: Vec<Hit> = best
            .into_iter()
            .map(|(id, score)| Hit { id, score })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        Ranking { hits }
    }

    /// The hits, best first.
    pub fn hits(&self) -> &[Hit] {
        &self.hits
    }

    /// Number of hits.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// True when there are no hits.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Keeps the best `n` hits.
    pub fn truncate(&mut self, n: usize) {
        self.hits.truncate(n);
    }

    /// Ranks from 1 with ties sharing the best rank of their group ("1224" ranking), so that
    /// equal scores never favor one document over another.
    pub fn ranks(&self) -> impl Iterator<Item = (MemoryId, usize)> + '_ {
        let mut rank = 0;
        let mut prev: Option<f64> = None;
        self.hits.iter().enumerate().map(move |(i, h)| {
            if prev != Some(h.score) {
                rank = i + 1;
                prev = Some(h.score);
            }
            (h.id, rank)
        })
    }

    /// The tie-aware rank of `id`, if present.
    pub fn rank_of(&self, id: MemoryId) -> Option<usize> {
        self.ranks().find(|&(i, _)| i == id).map(|(_, r)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_scores_sorts_dedups_and_breaks_ties_by_id() {
        let r = Ranking::from_scores([(3, 1.0), (1, 2.0), (2, 1.0), (1, 0.5), (9, f64::NAN)]);
        let ids: Vec<_> = r.hits().iter().map(|h| h.id).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(r.hits()[0].score, 2.0);
    }

    #[test]
    fn tied_scores_share_a_rank() {
        let r = Ranking::from_scores([(1, 5.0), (2, 3.0), (3, 3.0), (4, 1.0)]);
        let ranks: Vec<_> = r.ranks().map(|(_, r)| r).collect();
        assert_eq!(ranks, [1, 2, 2, 4]);
        assert_eq!(r.rank_of(3), Some(2));
        assert_eq!(r.rank_of(7), None);
    }
}
