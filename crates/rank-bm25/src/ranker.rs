//! Ranking candidates by the BM25 score a store attached to them.

use oro_mem_core::{Candidates, Query, Ranker, Ranking, Result};

/// Ranks candidates by [`Candidate::bm25`](oro_mem_core::Candidate::bm25), the lexical score a
/// store such as `oro-mem-store-sqlite` computed with FTS5. Candidates without one are left
/// out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bm25Ranker;

impl Ranker for Bm25Ranker {
    fn name(&self) -> &str {
        "bm25"
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(
            candidates
                .iter()
                .filter_map(|c| c.bm25.map(|s| (c.id(), s))),
        ))
    }
}
