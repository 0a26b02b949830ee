//! Rankers that need nothing but the memories themselves: recency, access frequency, and
//! the distance from a point the query names (spatial), and the query-term rankers `coord`
//! and `proximity`.

use oro_mem_core::{CandidateTerms, Candidates, MemoryId, Query, Ranker, Ranking, Result};
use oro_mem_text::Held;

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

/// Nearest first to the query's point ([`Query::near`]): the Euclidean distance between it
/// and the numeric array at the point's metadata path. Scored by how much nearer a memory is
/// than the maximum distance, when the query sets one, else than the farthest candidate, so
/// that the farthest scores 0 and a fuser that divides by the best (`weighted_max`) gets
/// min-max, whatever the unit of the coordinates. A memory without coordinates there (or
/// with ones that are not as many finite numbers) is left out of the list: no signal, never
/// an error. Without a point the list is empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spatial;

impl Ranker for Spatial {
    fn name(&self) -> &str {
        "spatial"
    }

    fn applies_to(&self, query: &Query<'_>) -> bool {
        query.near.is_some()
    }

    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let Some(near) = query.near else {
            return Ok(Ranking::default());
        };
        let distances: Vec<_> = candidates
            .iter()
            .filter_map(|c| Some((c.id(), near.distance(&c.memory.metadata)?)))
            .collect();
        let reference = near
            .max_distance
            .unwrap_or_else(|| distances.iter().map(|&(_, d)| d).fold(0.0, f64::max));
        Ok(Ranking::from_scores(
            distances
                .into_iter()
                .map(|(id, d)| (id, (reference - d).max(0.0))),
        ))
    }
}

/// The share of the query's terms a memory holds, from 0 to 1, each term weighted by how
/// few candidates hold it: the coordination factor of Lucene's classic scoring, with an
/// inverse document frequency taken over the candidates. BM25 adds up the query's terms one by
/// one, so a memory that repeats one rare term can outscore one that holds all of them; this
/// list rewards holding them all, and the rarer ones most. A term held by `n` of `N`
/// candidates weighs `ln(1 + N / n)`; terms no candidate holds are left out (no candidate
/// could gain them). Terms are matched stemmed, as the index matches them, over everything it
/// searches ([`Candidates::terms`]). It is a lexical list: it ranks the candidates that the
/// lexical source matched (signal `lexical`), so it runs where that source does, not in
/// vector-only mode. Without query terms the list is empty, and so it is when it ties every
/// candidate (all hold the same terms, or there is one): like a prior's, such a list tells
/// nothing apart, and would only lift every fused score alike.
#[derive(Clone, Copy, Debug, Default)]
pub struct Coord;

/// The signal of the lexical candidate source, which [`Coord`] reads.
const LEXICAL: &str = "lexical";

impl Ranker for Coord {
    fn name(&self) -> &str {
        "coord"
    }

    fn signal(&self) -> Option<&str> {
        Some(LEXICAL)
    }

    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let terms = candidates.terms(query.text);
        if terms.is_empty() {
            return Ok(Ranking::default());
        }
        let held = lexical_candidates(candidates, &terms, |held| held.held.clone());
        Ok(rare_share(held, terms.len(), candidates.len(), true))
    }
}

/// Proximity: the share of the query's neighbouring pairs of terms that a memory holds close
/// together, each pair weighted as [`Coord`] weighs a term, by how few of the lexical
/// candidates hold it so (`ln(1 + N / n)`).
///
/// A pair is two word terms next to each other in the query, stopwords aside ("LGBTQ support
/// group" has two: "LGBTQ support" and "support group"); a memory holds it when both occur
/// within [`Proximity::WINDOW`] words of each other, in either order, stemmed as the index
/// matches them. BM25 and [`Coord`] count terms wherever they are; a memory that holds two of
/// the query's words side by side is more likely about what the query names together. Like
/// [`Coord`] it is a lexical list (signal `lexical`), it needs no statistics of the store, a
/// memory that holds no pair is left out of it, and a list that ties every candidate is
/// empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct Proximity;

impl Proximity {
    /// The largest distance, in words (stopwords count), at which two terms are close: 2 lets
    /// one word stand between them ("support for group" holds "support group").
    pub const WINDOW: usize = 2;
}

impl Ranker for Proximity {
    fn name(&self) -> &str {
        "proximity"
    }

    fn signal(&self) -> Option<&str> {
        Some(LEXICAL)
    }

    fn rank(&self, query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        let terms = candidates.terms(query.text);
        let pairs = terms.word_terms().saturating_sub(1);
        if pairs == 0 {
            return Ok(Ranking::default());
        }
        let held = lexical_candidates(candidates, &terms, |held| {
            close_pairs(&held.positions, pairs, Proximity::WINDOW)
        });
        Ok(rare_share(held, pairs, candidates.len(), false))
    }
}

/// Which of the `pairs` pairs of neighbouring query terms (`i`, `i + 1`) `at` (positions of
/// query terms, in increasing position, as [`Held::positions`] gives them) holds within
/// `window` words of each other.
fn close_pairs(at: &[(usize, usize)], pairs: usize, window: usize) -> Vec<bool> {
    let mut held = vec![false; pairs];
    for (k, &(p, t)) in at.iter().enumerate() {
        for &(_, u) in at[k + 1..].iter().take_while(|(q, _)| q - p <= window) {
            if t.abs_diff(u) == 1 {
                held[t.min(u)] = true;
            }
        }
    }
    held
}

/// For each candidate that the lexical source matched, what `items` says of what it holds
/// of the query's `terms`.
fn lexical_candidates(
    candidates: &Candidates,
    terms: &CandidateTerms,
    items: impl Fn(&Held) -> Vec<bool>,
) -> Vec<(MemoryId, Vec<bool>)> {
    let Some(lexical) = candidates.signal(LEXICAL) else {
        return Vec::new();
    };
    candidates
        .iter()
        .filter(|c| lexical.get(c.id()).is_some())
        .filter_map(|c| Some((c.id(), items(terms.of(c.id())?))))
        .collect()
}

/// Scores each memory of `held` by the weighted share of the `items` (query terms, pairs of
/// them) it holds, an item held by `n` of the `N` memories weighing `ln(1 + N / n)` and items
/// nobody holds left out. Memories that hold none score 0, or are left out unless
/// `keep_none`. The ranking is empty when no item is held, or when it would tie all
/// `candidates` (see [`Ranking::is_flat_over`]).
fn rare_share(
    held: Vec<(MemoryId, Vec<bool>)>,
    items: usize,
    candidates: usize,
    keep_none: bool,
) -> Ranking {
    let n = held.len() as f64;
    let weights: Vec<f64> = (0..items)
        .map(|t| {
            let holders = held.iter().filter(|(_, h)| h[t]).count();
            if holders == 0 {
                0.0
            } else {
                (1.0 + n / holders as f64).ln()
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    if total == 0.0 {
        return Ranking::default();
    }
    let ranking = Ranking::from_scores(held.into_iter().filter_map(|(id, h)| {
        let score: f64 = h
            .iter()
            .zip(&weights)
            .filter(|(h, _)| **h)
            .map(|(_, w)| w)
            .sum();
        (keep_none || score > 0.0).then_some((id, score / total))
    }));
    if ranking.is_flat_over(candidates) {
        return Ranking::default();
    }
    ranking
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::memory;
    use oro_mem_core::{Candidate, Filter, Near, Signal, Timestamp};

    #[test]
    fn coord_ranks_what_holds_more_of_the_query_first() {
        let mut tagged = memory(3, "run it first");
        tagged.tags = vec!["pyright".into()];
        let cands = Candidates::new(
            [
                memory(
                    1,
                    "ruff --fix before pyright, or pyright reports stale errors",
                ),
                memory(2, "the lint step runs on every push"),
                tagged,
                memory(4, "unrelated words only"),
                memory(5, "ruff pyright ordering, found by meaning alone"),
            ]
            .map(Candidate::new),
        );
        let f = Filter::default();
        let query = Query::new("ruff pyright ordering", &f);
        // Without the lexical source (vector-only mode) it ranks nothing.
        assert!(Coord.rank(&query, &cands).unwrap().is_empty());
        // It ranks what the lexical source matched (here every candidate but a fifth).
        let mut cands = cands;
        cands.set_signal("lexical", Signal::new([1, 2, 3, 4].map(|id| (id, 1.0))));
        let r = Coord.rank(&query, &cands).unwrap();
        let scores: Vec<(MemoryId, f64)> = r.hits().iter().map(|h| (h.id, h.score)).collect();
        // No candidate holds "ordering": it weighs nothing. "ruff" (one holder of four)
        // weighs ln 5, "pyright" (two) ln 3. Memory 1 holds both; 3 holds "pyright", by its
        // tag; the others neither.
        let pyright = 3f64.ln() / (5f64.ln() + 3f64.ln());
        assert_eq!(scores[0], (1, 1.0));
        assert_eq!(scores[1].0, 3);
        assert!((scores[1].1 - pyright).abs() < 1e-12, "{scores:?}");
        assert_eq!(scores[2..], [(2, 0.0), (4, 0.0)]);
        // Candidates that all hold the same terms tie: the list says nothing.
        let mut alike = Candidates::new(
            [memory(1, "ruff first"), memory(2, "then ruff again")].map(Candidate::new),
        );
        alike.set_signal("lexical", Signal::new([(1, 2.0), (2, 1.0)]));
        assert!(Coord.rank(&query, &alike).unwrap().is_empty());
        // A query of stopwords gives nothing to hold.
        let none = Coord.rank(&Query::new("the of", &f), &cands).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn proximity_ranks_memories_holding_the_query_s_neighbouring_terms_close_together() {
        let cands = |texts: &[&str]| {
            let mut c = Candidates::new(
                texts
                    .iter()
                    .zip(1..)
                    .map(|(t, id)| Candidate::new(memory(id, t))),
            );
            c.set_signal(
                "lexical",
                Signal::new((1..=texts.len() as i64).map(|id| (id, 1.0))),
            );
            c
        };
        let f = Filter::default();
        // Pairs: "lgbtq support" and "support group" (stopwords are not terms).
        let query = Query::new("When did she go to the LGBTQ support group?", &f);
        let c = cands(&[
            "she went to a LGBTQ support group yesterday",
            "support for the group, and a word on LGBTQ rights",
            "the group met at noon; support came later; LGBTQ was the theme",
            "nothing of it here",
        ]);
        let r = Proximity.rank(&query, &c).unwrap();
        let scores: Vec<(MemoryId, f64)> = r.hits().iter().map(|h| (h.id, h.score)).collect();
        // Memory 1 holds both pairs side by side; 2 holds "support group" with two words
        // between: too far apart ("support for group" would be close). Memory 3 holds the
        // terms apart. Only memory 1 holds a pair, so each pair weighs ln 5.
        assert_eq!(scores, [(1, 1.0)]);
        let c = cands(&[
            "she went to a LGBTQ support group yesterday",
            "support for group, and LGBTQ",
            "group support",
            "nothing of it here",
        ]);
        let r = Proximity.rank(&query, &c).unwrap();
        let scores: Vec<(MemoryId, f64)> = r.hits().iter().map(|h| (h.id, h.score)).collect();
        // "support group" is held by 1, 2 and 3 (one word between, or reversed): ln(1 + 4/3);
        // "lgbtq support" by 1 alone: ln 5. Memories 2 and 3 tie; 4 holds no pair.
        let group = (1.0 + 4.0 / 3.0f64).ln();
        let lgbtq = 5f64.ln();
        assert_eq!(scores[0], (1, 1.0));
        assert_eq!([scores[1].0, scores[2].0], [2, 3]);
        assert!((scores[1].1 - group / (group + lgbtq)).abs() < 1e-12);
        assert_eq!(scores[1].1, scores[2].1);
        assert_eq!(scores.len(), 3);
        // A query of one term has no pair; every candidate holding the pair ties.
        assert!(Proximity
            .rank(&Query::new("support", &f), &c)
            .unwrap()
            .is_empty());
        let alike = cands(&["support group", "the support group"]);
        assert!(Proximity.rank(&query, &alike).unwrap().is_empty());
        // Without the lexical source (vector-only mode) it ranks nothing.
        let plain = Candidates::new([Candidate::new(memory(1, "support group"))]);
        assert!(Proximity.rank(&query, &plain).unwrap().is_empty());
    }

    #[test]
    fn close_pairs_are_neighbouring_query_terms_within_the_window() {
        // Terms 0, 1, 2 at positions 0, 2, 7: pair (0, 1) is 2 apart, (1, 2) 5 apart.
        let at = [(0, 0), (2, 1), (7, 2)];
        assert_eq!(close_pairs(&at, 2, 2), [true, false]);
        assert_eq!(close_pairs(&at, 2, 1), [false, false]);
        assert_eq!(close_pairs(&at, 2, 5), [true, true]);
        // Terms 0 and 2 are not neighbours in the query, however close.
        assert_eq!(close_pairs(&[(0, 0), (1, 2)], 2, 2), [false, false]);
        // Order does not matter, nor repeated terms.
        assert_eq!(close_pairs(&[(0, 1), (1, 1), (2, 0)], 1, 2), [true]);
    }

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

    fn at(id: MemoryId, metadata: serde_json::Value) -> Candidate {
        let mut m = memory(id, "grasp the cube");
        m.metadata = metadata.as_object().expect("an object").clone();
        Candidate::new(m)
    }

    #[test]
    fn spatial_puts_the_nearest_first_and_ignores_what_has_no_coordinates() {
        use serde_json::json;
        let cands = Candidates::new([
            at(1, json!({"pos": [3.0, 4.0]})),      // 5 away
            at(2, json!({"pos": [1.0, 0.0]})),      // 1 away
            at(3, json!({"pos": "here"})),          // malformed
            at(4, json!({"pos": [1.0, 2.0, 3.0]})), // other dimensions
            at(5, json!({"other": [0.0, 0.0]})),    // none
            at(6, json!({"pos": [0.0, f64::MAX]})), // finite, but the distance is not
            at(7, json!({"pos": [6.0, 8.0]})),      // 10 away
        ]);
        let f = Filter::default();
        let near = Near::new("pos", vec![0.0, 0.0], None).unwrap();
        let q = Query::new("cube", &f).near(&near);
        assert!(Spatial.applies_to(&q));
        let r = Spatial.rank(&q, &cands).unwrap();
        let ids: Vec<MemoryId> = r.hits().iter().map(|h| h.id).collect();
        // The farthest scores 0 and is kept; 3, 4, 5 and 6 give no signal.
        assert_eq!(ids, [2, 1, 7]);
        assert_eq!(r.hits()[0].score, 9.0);
        assert_eq!(r.hits()[2].score, 0.0);
        // A maximum distance is the reference instead.
        let near = Near::new("pos", vec![0.0, 0.0], Some(6.0)).unwrap();
        let r = Spatial
            .rank(&Query::new("cube", &f).near(&near), &cands)
            .unwrap();
        assert_eq!(r.hits()[0].score, 5.0);
        assert_eq!(r.hits()[1].score, 1.0);
        assert_eq!(r.hits()[2].score, 0.0, "beyond the maximum: 0, never below");
        // Without a point it does not apply, and ranks nothing.
        let plain = Query::new("cube", &f);
        assert!(!Spatial.applies_to(&plain));
        assert!(Spatial.rank(&plain, &cands).unwrap().is_empty());
    }

    #[test]
    fn built_in_rankers_keep_the_ranker_contract() {
        oro_mem_core::testing::ranker_contract(&Spatial);
        oro_mem_core::testing::ranker_contract(&Recency);
        oro_mem_core::testing::ranker_contract(&AccessFrequency);
    }
}
