//! Rankers that need nothing but the memories' own bookkeeping: recency and access frequency.
//!
//! They live in core because every mode uses them and they depend on nothing else.

use crate::error::Result;
use crate::query::Query;
use crate::rank::Ranker;
use crate::ranking::{Candidates, Ranking};

/// Newest first: scored by the seconds a memory is newer than the oldest candidate, so the
/// oldest scores 0 and a fuser that divides by the best (`weighted_max`) gets min-max.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recency;

impl Ranker for Recency {
    fn name(&self) -> &str {
        "recency"
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let oldest = candidates
            .iter()
            .map(|c| c.memory.created_at.as_second())
            .min()
            .unwrap_or(0);
        Ok(Ranking::from_scores(candidates.iter().map(|c| {
            (c.id(), (c.memory.created_at.as_second() - oldest) as f64)
        })))
    }
}

/// Most accessed first, scored with Laplace smoothing:
/// `(access_count + 1) / (total_accesses + candidates)`.
///
/// The smoothing keeps never-accessed memories in the list with a small, equal score, so all of
/// them tie (and share a rank) instead of being dropped or ordered arbitrarily.
#[derive(Clone, Copy, Debug, Default)]
pub struct AccessFrequency;

impl Ranker for AccessFrequency {
    fn name(&self) -> &str {
        "access"
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let total: f64 = candidates
            .iter()
            .map(|c| c.memory.access_count as f64)
            .sum();
        let denom = total + candidates.len() as f64;
        Ok(Ranking::from_scores(candidates.iter().map(|c| {
            (c.id(), (c.memory.access_count as f64 + 1.0) / denom)
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::memory;
    use crate::{Candidate, Filter, Timestamp};

    #[test]
    fn recency_puts_newest_first() {
        let mut a = memory(1, "old");
        a.created_at = Timestamp(100);
        let mut b = memory(2, "new");
        b.created_at = Timestamp(200);
        let c = Candidates::new([Candidate::new(a), Candidate::new(b)]);
        let f = Filter::default();
        let r = Recency.rank(&Query::new("", &f), &c).unwrap();
        assert_eq!(r.hits()[0].id, 2);
    }

    #[test]
    fn access_frequency_is_smoothed_and_ties_unaccessed() {
        let mut a = memory(1, "a");
        a.access_count = 3;
        let b = memory(2, "b");
        let c = memory(3, "c");
        let cands = Candidates::new([a, b, c].map(Candidate::new));
        let f = Filter::default();
        let r = AccessFrequency.rank(&Query::new("", &f), &cands).unwrap();
        assert_eq!(r.hits()[0].id, 1);
        assert!((r.hits()[0].score - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(r.rank_of(2), r.rank_of(3));
    }
}
