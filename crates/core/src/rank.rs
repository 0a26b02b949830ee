//! The two plug-in points of recall: [`Ranker`] orders candidates by one signal, [`Fuser`]
//! combines several rankings into one.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::memory::MemoryId;
use crate::query::Query;
use crate::ranking::{Candidates, Ranking};

/// Orders a candidate set by one signal (lexical match, recency, access, similarity, ...).
///
/// # Contract
///
/// - Every returned id comes from `candidates`; ids are unique.
/// - Hits are sorted by descending score, ties by ascending id (build them with
///   [`Ranking::from_scores`]).
/// - A candidate the signal knows nothing about (no lexical hit, no embedding) is left out
///   rather than given a made-up score: fusion gives absent documents nothing from this list.
/// - Ranking is deterministic for the same query and candidates.
///
/// A ranker that reads no signal (a prior over the memories, such as recency) and gives every
/// candidate the same score tells them nothing apart: recall leaves its list out of fusion
/// (the engine's rank stage). Scores whose 0 means "nothing" suit every
/// fuser; the built-in `weighted_max` counts a negative score as 0.
pub trait Ranker: Send + Sync {
    /// A short stable name (`bm25`, `recency`, ...) used in configuration and `--explain`.
    fn name(&self) -> &str;

    /// The per-query [`Signal`](crate::Signal) it reads from the candidates
    /// ([`Candidates::scores`]), if any: recall leaves the ranker out when no candidate
    /// source gives that signal (a vector ranker in full-text-only mode). `None` (the
    /// default) for a ranker that needs only the memories themselves.
    fn signal(&self) -> Option<&str> {
        None
    }

    /// False when `query` gives the ranker nothing to rank by (the spatial ranker without a
    /// point): recall then leaves it out altogether, `--explain` included. True by default.
    fn applies_to(&self, query: &Query<'_>) -> bool {
        let _ = query;
        true
    }

    /// Ranks `candidates` for `query`.
    ///
    /// # Errors
    ///
    /// When the signal cannot be computed at all (a model that fails, ...). Recall treats such
    /// an error as "this list is empty" and says so, never losing the other lists.
    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking>;
}

impl<R: Ranker + ?Sized> Ranker for &R {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn signal(&self) -> Option<&str> {
        (**self).signal()
    }
    fn applies_to(&self, query: &Query<'_>) -> bool {
        (**self).applies_to(query)
    }
    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        (**self).rank(query, candidates)
    }
}

impl<R: Ranker + ?Sized> Ranker for Box<R> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn signal(&self) -> Option<&str> {
        (**self).signal()
    }
    fn applies_to(&self, query: &Query<'_>) -> bool {
        (**self).applies_to(query)
    }
    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        (**self).rank(query, candidates)
    }
}

impl<R: Ranker + ?Sized> Ranker for Arc<R> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn signal(&self) -> Option<&str> {
        (**self).signal()
    }
    fn applies_to(&self, query: &Query<'_>) -> bool {
        (**self).applies_to(query)
    }
    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        (**self).rank(query, candidates)
    }
}

/// One input list of a [`Fuser`]: a ranking, its weight and the name of the list.
#[derive(Clone, Copy, Debug)]
pub struct Weighted<'a> {
    name: &'a str,
    weight: f64,
    ranking: &'a Ranking,
}

impl<'a> Weighted<'a> {
    /// A weighted list.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) when `weight` is negative or not finite.
    pub fn new(name: &'a str, weight: f64, ranking: &'a Ranking) -> Result<Weighted<'a>> {
        if !weight.is_finite() || weight < 0.0 {
            return Err(Error::config(format!(
                "weight of {name:?} must be a finite number >= 0, got {weight}"
            )));
        }
        Ok(Weighted {
            name,
            weight,
            ranking,
        })
    }

    /// The list's name.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The list's weight, finite and at least 0.
    pub fn weight(&self) -> f64 {
        self.weight
    }

    /// The ranking.
    pub fn ranking(&self) -> &'a Ranking {
        self.ranking
    }
}

/// Combines several weighted rankings into one.
///
/// # Contract
///
/// - The result is sorted by descending score, ties by ascending id; ids are unique; at most
///   `limit` hits.
/// - A document gets nothing from a list it is missing from.
/// - A list of weight 0 changes nothing: neither scores nor which documents appear.
/// - The order of `inputs` does not matter.
/// - [`Fuser::contributions`] explains a fused score: one value per input, summing to it.
/// - [`Fuser::pinned_bonus`] is on the scale of the fused scores.
pub trait Fuser: Send + Sync {
    /// A short stable name (`rrf`, `weighted_score`).
    fn name(&self) -> &str;

    /// Fuses `inputs` into one ranking of at most `limit` hits.
    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking;

    /// What document `id` received from each input, in the order of `inputs`.
    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64>;

    /// What pinning a memory adds to its fused score, before confidence and decay: about what
    /// ten places of one weight-1 list are worth. 0 (the default) gives pinning no lift.
    fn pinned_bonus(&self) -> f64 {
        0.0
    }
}

impl<F: Fuser + ?Sized> Fuser for &F {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        (**self).fuse(inputs, limit)
    }
    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        (**self).contributions(inputs, id)
    }
    fn pinned_bonus(&self) -> f64 {
        (**self).pinned_bonus()
    }
}

impl<F: Fuser + ?Sized> Fuser for Box<F> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        (**self).fuse(inputs, limit)
    }
    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        (**self).contributions(inputs, id)
    }
    fn pinned_bonus(&self) -> f64 {
        (**self).pinned_bonus()
    }
}

impl<F: Fuser + ?Sized> Fuser for Arc<F> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        (**self).fuse(inputs, limit)
    }
    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        (**self).contributions(inputs, id)
    }
    fn pinned_bonus(&self) -> f64 {
        (**self).pinned_bonus()
    }
}
