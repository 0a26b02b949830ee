//! Ranking candidates by the BM25 score a store attached to them.

use oro_mem_core::{Candidates, Query, Ranker, Ranking, Result};

/// Ranks candidates by the [`LEXICAL`](Bm25Ranker::SIGNAL) signal: the BM25 score a lexical
/// candidate source (FTS5 in `oro-mem-store-sqlite`) gave them. Candidates without one are
/// left out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bm25Ranker;

impl Bm25Ranker {
    /// The signal it reads: the lexical source's BM25 scores.
    pub const SIGNAL: &'static str = "lexical";
}

impl Ranker for Bm25Ranker {
    fn name(&self) -> &str {
        "bm25"
    }

    fn signal(&self) -> Option<&str> {
        Some(Bm25Ranker::SIGNAL)
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(candidates.scores(Bm25Ranker::SIGNAL)))
    }
}

#[cfg(test)]
mod tests {
    use oro_mem_core::testing::ranker_contract;

    use super::*;

    #[test]
    fn keeps_the_ranker_contract() {
        ranker_contract(&Bm25Ranker);
    }
}
