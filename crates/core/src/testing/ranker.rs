//! [`ranker_contract`]: the [`Ranker`] contract, checked on varied candidate sets.

use std::collections::HashSet;

use crate::memory::MemoryType;
use crate::query::{Filter, Query};
use crate::rank::Ranker;
use crate::ranking::{Candidate, Candidates, Ranking, Signal};
use crate::testing::MemoryBuilder;
use crate::time::Timestamp;

/// The moment the checks' queries are measured from: a year and a day after t = 0.
const NOW: i64 = 366 * 86_400;

/// SplitMix64: a fixed, dependency-free sequence, so every run checks the same sets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Candidate sets for the checks, each with a name: none, one, many varied ones, exact ties,
/// and (for a ranker reading a signal) sets where only some candidates have that signal.
fn cases(signal: Option<&str>) -> Vec<(&'static str, Candidates)> {
    let mut rng = Rng(42);
    let words = [
        "sqlite", "writer", "lock", "cache", "deploy", "timeout", "the",
    ];
    let mut varied = Vec::new();
    for id in 1..=40 {
        let text: Vec<&str> = (0..3 + rng.below(8))
            .map(|_| words[rng.below(words.len() as u64) as usize])
            .collect();
        let mut b = MemoryBuilder::new(id, text.join(" "))
            .memory_type(MemoryType::ALL[rng.below(MemoryType::ALL.len() as u64) as usize])
            .confidence(rng.below(11) as f64 / 10.0)
            .pinned(rng.below(5) == 0)
            .created_at(Timestamp(rng.below(NOW as u64) as i64));
        if rng.below(2) == 0 {
            let last = Timestamp(rng.below(NOW as u64) as i64);
            b = b.accessed(rng.below(20), last);
        }
        varied.push(Candidate::new(b.build()));
    }
    let ties: Vec<Candidate> = (1..=12)
        .map(|id| Candidate::new(MemoryBuilder::new(id, "sqlite writer lock").build()))
        .collect();
    let one = vec![Candidate::new(
        MemoryBuilder::new(5, "sqlite writer lock").build(),
    )];
    let mut out = vec![
        ("no candidates", Candidates::new(Vec::new())),
        ("one candidate", Candidates::new(one.clone())),
        ("40 varied candidates", Candidates::new(varied.clone())),
        ("12 identical candidates", Candidates::new(ties.clone())),
    ];
    if let Some(name) = signal {
        let mut with = |label, items: &[Candidate], scores: Signal| {
            let mut c = Candidates::new(items.to_vec());
            c.set_signal(name, scores);
            out.push((label, c));
        };
        with(
            "varied, every candidate with the signal",
            &varied,
            Signal::new(
                varied
                    .iter()
                    .map(|c| (c.id(), rng.below(1000) as f64 / 10.0)),
            ),
        );
        with(
            "varied, half of the candidates with the signal",
            &varied,
            Signal::new(
                varied
                    .iter()
                    .filter(|c| c.id() % 2 == 0)
                    .map(|c| (c.id(), rng.below(1000) as f64 / 10.0 - 50.0)),
            ),
        );
        with(
            "identical, tied signal",
            &ties,
            Signal::new(ties.iter().map(|c| (c.id(), 1.0))),
        );
        with(
            "one candidate with the signal",
            &one,
            Signal::new(one.iter().map(|c| (c.id(), 0.5))),
        );
    }
    out
}

/// Checks that `ranker` keeps the [`Ranker`] contract on varied candidate sets (no
/// candidates, one, forty varied ones, exact ties; and, when it reads a signal, sets where all,
/// half or none of the candidates have it):
///
/// - ranking succeeds, and every returned id is a candidate's, once;
/// - hits are sorted by descending score, ties by ascending id, and every score is finite;
/// - the same query and candidates give the same ranking, in whatever order the candidates
///   come;
/// - a ranker that reads a signal ([`Ranker::signal`]) leaves out the candidates without it.
///
/// # Panics
///
/// On the first broken rule, naming it and the candidate set.
pub fn ranker_contract(ranker: &dyn Ranker) {
    let name = ranker.name().to_string();
    assert!(!name.is_empty(), "a ranker has a name");
    let signal = ranker.signal().map(str::to_string);
    let filter = Filter::default();
    for text in ["sqlite writer lock", ""] {
        let query = Query::new(text, &filter).now(Timestamp(NOW));
        for (case, candidates) in cases(signal.as_deref()) {
            let at = format!("ranker {name:?}, {case}, query {text:?}");
            let ranking = ranker
                .rank(&query, &candidates)
                .unwrap_or_else(|e| panic!("{at}: ranking failed: {e}"));
            check_ranking(&ranking, &candidates, signal.as_deref(), &at);
            let again = ranker
                .rank(&query, &candidates)
                .unwrap_or_else(|e| panic!("{at}: ranking failed: {e}"));
            assert_eq!(
                ranking, again,
                "{at}: the same input gives the same ranking"
            );
            let mut reversed = Candidates::new(candidates.iter().rev().cloned());
            if let Some(s) = signal.as_deref().and_then(|n| candidates.signal(n)) {
                reversed.set_signal(signal.as_deref().unwrap_or_default(), s.clone());
            }
            let shuffled = ranker
                .rank(&query, &reversed)
                .unwrap_or_else(|e| panic!("{at}: ranking failed: {e}"));
            assert_eq!(
                ranking, shuffled,
                "{at}: the order of the candidates does not matter"
            );
        }
    }
}

fn check_ranking(ranking: &Ranking, candidates: &Candidates, signal: Option<&str>, at: &str) {
    let ids: HashSet<_> = candidates.iter().map(Candidate::id).collect();
    let mut seen = HashSet::new();
    for h in ranking.hits() {
        assert!(ids.contains(&h.id), "{at}: id {} is not a candidate", h.id);
        assert!(seen.insert(h.id), "{at}: id {} is ranked twice", h.id);
        assert!(h.score.is_finite(), "{at}: id {} scores {}", h.id, h.score);
        if let Some(name) = signal {
            assert!(
                candidates.signal(name).and_then(|s| s.get(h.id)).is_some(),
                "{at}: id {} has no {name:?} signal but is ranked",
                h.id
            );
        }
    }
    for w in ranking.hits().windows(2) {
        assert!(
            w[0].score > w[1].score || (w[0].score == w[1].score && w[0].id < w[1].id),
            "{at}: not sorted by descending score, ties by ascending id: {:?} before {:?}",
            w[0],
            w[1]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Result;

    /// Shortest content first: a ranker that keeps the contract.
    struct Shortest;

    impl Ranker for Shortest {
        fn name(&self) -> &str {
            "shortest"
        }
        fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
            Ok(Ranking::from_scores(
                c.iter().map(|c| (c.id(), -(c.memory.content.len() as f64))),
            ))
        }
    }

    #[test]
    fn a_ranker_that_keeps_the_contract_passes_the_check() {
        ranker_contract(&Shortest);
    }

    /// Ranks by the `lexical` signal but gives every candidate a score.
    struct Inventive;

    impl Ranker for Inventive {
        fn name(&self) -> &str {
            "inventive"
        }
        fn signal(&self) -> Option<&str> {
            Some("lexical")
        }
        fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
            let s = c.signal("lexical");
            Ok(Ranking::from_scores(c.iter().map(|c| {
                (c.id(), s.and_then(|s| s.get(c.id())).unwrap_or(0.0))
            })))
        }
    }

    /// Scores by position in the candidate list.
    struct OrderDependent;

    impl Ranker for OrderDependent {
        fn name(&self) -> &str {
            "order"
        }
        fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
            Ok(Ranking::from_scores(
                c.iter().enumerate().map(|(i, c)| (c.id(), -(i as f64))),
            ))
        }
    }

    #[test]
    fn broken_rankers_fail_the_check() {
        for (ranker, rule) in [
            (&Inventive as &dyn Ranker, "has no \"lexical\" signal"),
            (&OrderDependent, "order of the candidates"),
        ] {
            let err =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ranker_contract(ranker)))
                    .expect_err("a broken ranker fails");
            let message = err.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(message.contains(rule), "{message}");
        }
    }
}
