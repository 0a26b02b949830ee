//! Rank fusion for oro-mem: combine several rankings of the same documents into one.
//!
//! - [`Rrf`]: weighted Reciprocal Rank Fusion, `score(d) = Σ wᵢ / (k + rankᵢ(d))`, ranks from 1,
//!   `k = 60` by default. Only ranks matter, so lists with incomparable scores (BM25, cosine,
//!   timestamps) fuse without calibration.
//! - [`WeightedScore`]: `score(d) = Σ wᵢ · normᵢ(d)` with each list's scores min-max normalized
//!   to `[0, 1]`. Keeps score gaps that RRF throws away.
//! - [`WeightedMax`]: as [`WeightedScore`], each list divided by its best score instead of
//!   min-max normalized, so the weakest candidate keeps what it earned.
//! - [`WeightedZ`]: as [`WeightedScore`], each list's scores as standard scores (how many
//!   standard deviations above the list's mean), floored at 0.
//! - [`Scaled`]: `score(d) = Σ wᵢ · clamp(sᵢ(d) / scale, 0, 1)`, scores on an absolute scale
//!   (oro-mem's "simple" scoring is BM25 alone at scale 25).
//!
//! All follow the [`Fuser`] contract: a document gets nothing from a list it is missing from,
//! a weight-0 list changes nothing, the result is sorted by descending score with ties by
//! ascending id, and input order does not matter. Ranks are tie-aware: documents with equal
//! scores in a list share the best rank of their group, so a list of ties (say, never-accessed
//! memories) favors none of them.
//!
//! # Example
//!
//! ```
//! use oro_mem_core::{Fuser, Ranking, Weighted};
//! use oro_mem_fusion::{Rrf, WeightedScore};
//!
//! let bm25 = Ranking::from_scores([(1, 12.0), (2, 11.0), (3, 2.0)]);
//! let recency = Ranking::from_scores([(3, 300.0), (2, 200.0), (1, 100.0)]);
//! let lists = [Weighted::new("bm25", 1.0, &bm25)?, Weighted::new("recency", 0.6, &recency)?];
//!
//! // RRF sees only ranks: first for the heavier list wins.
//! let rrf = Rrf::new(60.0)?.fuse(&lists, 10);
//! assert_eq!(rrf.hits()[0].id, 1);
//! // Score fusion sees that 2 is nearly as good lexically and newer.
//! let ws = WeightedScore.fuse(&lists, 10);
//! assert_eq!(ws.hits()[0].id, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! None.

#![deny(missing_docs)]

use std::collections::HashMap;

use oro_mem_core::{Error, Fuser, MemoryId, Ranking, Result, Weighted};

/// Weighted Reciprocal Rank Fusion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rrf {
    k: f64,
}

impl Rrf {
    /// The usual constant.
    pub const DEFAULT_K: f64 = 60.0;

    /// RRF with constant `k`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) when `k` is negative or not
    /// finite.
    pub fn new(k: f64) -> Result<Rrf> {
        if !k.is_finite() || k < 0.0 {
            return Err(Error::config(format!(
                "RRF k must be a finite number >= 0, got {k}"
            )));
        }
        Ok(Rrf { k })
    }

    /// The constant `k`.
    pub fn k(&self) -> f64 {
        self.k
    }
}

impl Default for Rrf {
    fn default() -> Rrf {
        Rrf { k: Rrf::DEFAULT_K }
    }
}

impl Fuser for Rrf {
    fn name(&self) -> &str {
        "rrf"
    }

    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        let mut acc: HashMap<MemoryId, f64> = HashMap::new();
        for input in inputs.iter().filter(|i| i.weight() > 0.0) {
            for (id, rank) in input.ranking().ranks() {
                *acc.entry(id).or_default() += input.weight() / (self.k + rank as f64);
            }
        }
        finish(acc, limit)
    }

    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        inputs
            .iter()
            .map(|i| match i.ranking().rank_of(id) {
                Some(rank) if i.weight() > 0.0 => i.weight() / (self.k + rank as f64),
                _ => 0.0,
            })
            .collect()
    }

    /// `1/(k+1) − 1/(k+11)`: what moving from rank 11 to rank 1 of a list of weight 1 is
    /// worth.
    fn pinned_bonus(&self) -> f64 {
        1.0 / (self.k + 1.0) - 1.0 / (self.k + 11.0)
    }
}

/// Weighted sum of min-max normalized scores.
///
/// Each list's scores are mapped to `[0, 1]` (best = 1, worst = 0; a list whose scores are all
/// equal maps them all to 1), then `score(d) = Σ wᵢ · normᵢ(d)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WeightedScore;

fn normalized(ranking: &Ranking) -> impl Iterator<Item = (MemoryId, f64)> + '_ {
    let hits = ranking.hits();
    let max = hits.first().map_or(0.0, |h| h.score);
    let min = hits.last().map_or(0.0, |h| h.score);
    let span = max - min;
    hits.iter().map(move |h| {
        let n = if span > 0.0 {
            (h.score - min) / span
        } else {
            1.0
        };
        (h.id, n)
    })
}

impl Fuser for WeightedScore {
    fn name(&self) -> &str {
        "weighted_score"
    }

    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        weighted_sum(inputs, limit, normalized)
    }

    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        weighted_parts(inputs, id, normalized)
    }

    /// A quarter of what a weight-1 list spans (its scores are normalized to `[0, 1]`),
    /// comparable to RRF's bonus at k = 60, which is about a third of the spread of a 50-deep
    /// RRF list.
    fn pinned_bonus(&self) -> f64 {
        0.25
    }
}

/// Weighted sum of scores divided by each list's best (Bruch et al.'s "theoretical min-max",
/// with 0 as every list's floor): `normᵢ(d) = max(sᵢ(d), 0) / maxᵢ`.
///
/// Unlike [`WeightedScore`], a list's weakest candidate keeps the share of the best score it
/// earned instead of 0, so a second good BM25 match is not scored as if it had not matched.
/// It suits scores whose 0 means "nothing" (BM25, cosine, access frequency, recency as time
/// since the oldest candidate); a negative score counts as 0, and a list whose best score is
/// not above 0 gives nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WeightedMax;

fn over_max(ranking: &Ranking) -> impl Iterator<Item = (MemoryId, f64)> + '_ {
    let hits = ranking.hits();
    let max = hits.first().map_or(0.0, |h| h.score);
    hits.iter().map(move |h| {
        let n = if max > 0.0 {
            h.score.max(0.0) / max
        } else {
            0.0
        };
        (h.id, n)
    })
}

impl Fuser for WeightedMax {
    fn name(&self) -> &str {
        "weighted_max"
    }

    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        weighted_sum(inputs, limit, over_max)
    }

    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        weighted_parts(inputs, id, over_max)
    }

    /// As [`WeightedScore`]'s: a quarter of a weight-1 list's span.
    fn pinned_bonus(&self) -> f64 {
        0.25
    }
}

/// Weighted sum of standard scores floored at 0: `normᵢ(d) = max((sᵢ(d) − μᵢ) / σᵢ, 0)`, with
/// `μᵢ` and `σᵢ` the mean and standard deviation of list `i`'s scores.
///
/// A distribution-based normalisation: a list's candidates below its own mean get nothing,
/// and a list whose best stands far above the rest (in standard deviations) weighs more in
/// that query than one whose scores are bunched, so each query trusts the list that
/// separates its candidates. A list of one score, or of equal scores, gives nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WeightedZ;

fn standard(ranking: &Ranking) -> impl Iterator<Item = (MemoryId, f64)> + '_ {
    let hits = ranking.hits();
    let n = hits.len() as f64;
    let mean = hits.iter().map(|h| h.score).sum::<f64>() / n.max(1.0);
    let var = hits.iter().map(|h| (h.score - mean).powi(2)).sum::<f64>() / n.max(1.0);
    let sd = var.sqrt();
    hits.iter().map(move |h| {
        let z = if sd > 0.0 {
            ((h.score - mean) / sd).max(0.0)
        } else {
            0.0
        };
        (h.id, z)
    })
}

impl Fuser for WeightedZ {
    fn name(&self) -> &str {
        "weighted_z"
    }

    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        weighted_sum(inputs, limit, standard)
    }

    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        weighted_parts(inputs, id, standard)
    }

    /// A quarter of a typical weight-1 list's span: its best stands about 3 standard
    /// deviations above its mean.
    fn pinned_bonus(&self) -> f64 {
        0.75
    }
}

/// Weighted sum of scores on an absolute scale: `score(d) = Σ wᵢ · clamp(sᵢ(d) / scale, 0, 1)`.
///
/// Unlike [`WeightedScore`], a list's scores are not normalized to its own best, so one weak
/// match stays weak. With a single BM25 list and `scale` 25 this is oro-mem's original
/// "simple" scoring, `min(1, bm25 / 25)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    scale: f64,
}

impl Scaled {
    /// Scores divided by `scale`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) unless `scale` is finite and
    /// above 0.
    pub fn new(scale: f64) -> Result<Scaled> {
        if !scale.is_finite() || scale <= 0.0 {
            return Err(Error::config(format!(
                "the score scale must be a finite number > 0, got {scale}"
            )));
        }
        Ok(Scaled { scale })
    }

    /// Each hit's score on the scale, capped to `[0, 1]`.
    fn scaled<'r>(&self, ranking: &'r Ranking) -> impl Iterator<Item = (MemoryId, f64)> + 'r {
        let scale = self.scale;
        ranking
            .hits()
            .iter()
            .map(move |h| (h.id, (h.score / scale).clamp(0.0, 1.0)))
    }
}

impl Fuser for Scaled {
    fn name(&self) -> &str {
        "scaled"
    }

    fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
        weighted_sum(inputs, limit, |r| self.scaled(r))
    }

    fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
        weighted_parts(inputs, id, |r| self.scaled(r))
    }
}

/// `Σ wᵢ · vᵢ(d)` over the lists of weight above 0, where `values` gives a list's `(d, vᵢ(d))`;
/// the best `limit`.
fn weighted_sum<'r, I>(
    inputs: &[Weighted<'r>],
    limit: usize,
    values: impl Fn(&'r Ranking) -> I,
) -> Ranking
where
    I: Iterator<Item = (MemoryId, f64)>,
{
    let mut acc: HashMap<MemoryId, f64> = HashMap::new();
    for input in inputs.iter().filter(|i| i.weight() > 0.0) {
        for (id, v) in values(input.ranking()) {
            *acc.entry(id).or_default() += input.weight() * v;
        }
    }
    finish(acc, limit)
}

/// What `id` got from each list in [`weighted_sum`]: `wᵢ · vᵢ(id)`, 0 when absent or weight 0.
fn weighted_parts<'r, I>(
    inputs: &[Weighted<'r>],
    id: MemoryId,
    values: impl Fn(&'r Ranking) -> I,
) -> Vec<f64>
where
    I: Iterator<Item = (MemoryId, f64)>,
{
    inputs
        .iter()
        .map(|i| {
            if i.weight() == 0.0 {
                return 0.0;
            }
            values(i.ranking())
                .find(|&(d, _)| d == id)
                .map_or(0.0, |(_, v)| i.weight() * v)
        })
        .collect()
}

fn finish(acc: HashMap<MemoryId, f64>, limit: usize) -> Ranking {
    let mut r = Ranking::from_scores(acc);
    r.truncate(limit);
    r
}

#[cfg(test)]
mod tests {
    use oro_mem_core::testing::fuser_contract;

    use super::*;

    fn ids(r: &Ranking) -> Vec<MemoryId> {
        r.hits().iter().map(|h| h.id).collect()
    }

    #[test]
    fn rrf_matches_the_formula() {
        let a = Ranking::from_scores([(1, 3.0), (2, 2.0)]);
        let b = Ranking::from_scores([(2, 3.0)]);
        let lists = [
            Weighted::new("a", 1.0, &a).unwrap(),
            Weighted::new("b", 0.5, &b).unwrap(),
        ];
        let r = Rrf::default().fuse(&lists, 10);
        let two = 1.0 / 62.0 + 0.5 / 61.0;
        assert_eq!(ids(&r), [2, 1]);
        assert!((r.hits()[0].score - two).abs() < 1e-15);
        assert!((r.hits()[1].score - 1.0 / 61.0).abs() < 1e-15);
        let c = Rrf::default().contributions(&lists, 2);
        assert!((c.iter().sum::<f64>() - two).abs() < 1e-15);
    }

    #[test]
    fn rrf_ignores_zero_weight_list() {
        let a = Ranking::from_scores([(1, 3.0)]);
        let b = Ranking::from_scores([(2, 3.0), (1, 1.0)]);
        let lists = [
            Weighted::new("a", 1.0, &a).unwrap(),
            Weighted::new("b", 0.0, &b).unwrap(),
        ];
        assert_eq!(ids(&Rrf::default().fuse(&lists, 10)), [1]);
        assert_eq!(ids(&WeightedScore.fuse(&lists, 10)), [1]);
    }

    #[test]
    fn tied_scores_get_equal_rrf_credit() {
        let bm25 = Ranking::from_scores([(5, 2.0), (1, 1.0)]);
        let access = Ranking::from_scores([(1, 0.5), (5, 0.5)]);
        let lists = [
            Weighted::new("bm25", 1.0, &bm25).unwrap(),
            Weighted::new("access", 0.4, &access).unwrap(),
        ];
        // The tie in `access` must not lift id 1 over the better lexical match.
        assert_eq!(ids(&Rrf::default().fuse(&lists, 10)), [5, 1]);
    }

    #[test]
    fn weighted_score_normalizes_each_list() {
        let a = Ranking::from_scores([(1, 100.0), (2, 50.0), (3, 0.0)]);
        let b = Ranking::from_scores([(3, 0.2), (2, 0.1)]);
        let lists = [
            Weighted::new("a", 1.0, &a).unwrap(),
            Weighted::new("b", 1.0, &b).unwrap(),
        ];
        let r = WeightedScore.fuse(&lists, 10);
        // 1: 1.0; 2: 0.5 + 0; 3: 0 + 1.0
        assert_eq!(ids(&r), [1, 3, 2]);
        assert_eq!(r.hits()[2].score, 0.5);
    }

    #[test]
    fn weighted_max_divides_by_the_best_and_floors_at_zero() {
        let a = Ranking::from_scores([(1, 10.0), (2, 8.0)]);
        let b = Ranking::from_scores([(2, 0.5), (1, -0.25)]);
        let lists = [
            Weighted::new("a", 1.0, &a).unwrap(),
            Weighted::new("b", 2.0, &b).unwrap(),
        ];
        let r = WeightedMax.fuse(&lists, 10);
        // 1: 1.0 + 2 × 0 (a negative score counts as 0); 2: 0.8 + 2 × 1.0. The weaker match
        // of a keeps 0.8.
        assert_eq!(ids(&r), [2, 1]);
        assert!((r.hits()[0].score - 2.8).abs() < 1e-12);
        assert_eq!(r.hits()[1].score, 1.0);
        let zeros = Ranking::from_scores([(1, 0.0), (2, 0.0)]);
        let nothing = [Weighted::new("c", 1.0, &zeros).unwrap()];
        assert!(WeightedMax
            .fuse(&nothing, 10)
            .hits()
            .iter()
            .all(|h| h.score == 0.0));
    }

    #[test]
    fn weighted_z_scores_standard_deviations_above_the_mean() {
        // a: mean 4, sd √12 (scores 10, 2, 2, 2): 1 gets 6 / √12 = √3, the rest 0. b: mean 2,
        // sd 1 (3, 1): 2 gets 1, 3 gets 0.
        let a = Ranking::from_scores([(1, 10.0), (2, 2.0), (3, 2.0), (4, 2.0)]);
        let b = Ranking::from_scores([(2, 3.0), (3, 1.0)]);
        let lists = [
            Weighted::new("a", 1.0, &a).unwrap(),
            Weighted::new("b", 2.0, &b).unwrap(),
        ];
        let r = WeightedZ.fuse(&lists, 10);
        let scores: Vec<_> = r.hits().iter().map(|h| (h.id, h.score)).collect();
        assert_eq!(ids(&r), [2, 1, 3, 4]);
        assert_eq!(scores[0].1, 2.0);
        assert!((scores[1].1 - 3f64.sqrt()).abs() < 1e-12);
        assert_eq!([scores[2].1, scores[3].1], [0.0, 0.0]);
        assert_eq!(WeightedZ.contributions(&lists, 2), [0.0, 2.0]);
        // A list that ties every candidate gives nothing.
        let flat = Ranking::from_scores([(1, 0.7), (2, 0.7)]);
        let nothing = [Weighted::new("c", 1.0, &flat).unwrap()];
        assert!(WeightedZ
            .fuse(&nothing, 10)
            .hits()
            .iter()
            .all(|h| h.score == 0.0));
    }

    #[test]
    fn pinned_bonus_is_ten_places_of_rrf_and_a_quarter_of_a_score_list() {
        let bonus = Rrf::new(60.0).unwrap().pinned_bonus();
        assert!((bonus - (1.0 / 61.0 - 1.0 / 71.0)).abs() < 1e-15);
        assert_eq!(WeightedScore.pinned_bonus(), 0.25);
    }

    #[test]
    fn scaled_is_bm25_over_25_capped_at_1() {
        let bm25 = Ranking::from_scores([(1, 50.0), (2, 1.0), (3, -2.0)]);
        let lists = [Weighted::new("bm25", 1.0, &bm25).unwrap()];
        let r = Scaled::new(25.0).unwrap().fuse(&lists, 10);
        let scores: Vec<_> = r.hits().iter().map(|h| (h.id, h.score)).collect();
        assert_eq!(scores, [(1, 1.0), (2, 0.04), (3, 0.0)]);
        assert!(Scaled::new(0.0).is_err());
    }

    #[test]
    fn rrf_rejects_bad_k() {
        assert!(Rrf::new(-1.0).is_err());
        assert!(Rrf::new(f64::NAN).is_err());
    }

    #[test]
    fn every_fuser_keeps_the_contract() {
        fuser_contract(&Rrf::default());
        fuser_contract(&Rrf::new(1.0).unwrap());
        fuser_contract(&WeightedScore);
        fuser_contract(&WeightedMax);
        fuser_contract(&WeightedZ);
        fuser_contract(&Scaled::new(4.0).unwrap());
    }
}
