//! [`fuser_contract`]: the [`Fuser`] contract as property tests.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::rank::{Fuser, Weighted};
use crate::ranking::Ranking;

/// Cases per property.
const CASES: u32 = 256;

fn arb_ranking() -> impl Strategy<Value = Ranking> {
    prop::collection::vec((0i64..40, 0u8..10), 0..25)
        .prop_map(|v| Ranking::from_scores(v.into_iter().map(|(id, s)| (id, f64::from(s)))))
}

fn arb_lists() -> impl Strategy<Value = Vec<(Ranking, f64)>> {
    prop::collection::vec((arb_ranking(), prop_oneof![Just(0.0), 0.0f64..3.0]), 0..5)
}

fn weighted(lists: &[(Ranking, f64)]) -> Vec<Weighted<'_>> {
    const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];
    lists
        .iter()
        .enumerate()
        .map(|(i, (r, w))| Weighted::new(NAMES[i % NAMES.len()], *w, r).expect("weight >= 0"))
        .collect()
}

fn ids(r: &Ranking) -> Vec<i64> {
    r.hits().iter().map(|h| h.id).collect()
}

/// Runs `property` on generated cases; a failure panics with the rule and the shrunk case.
fn check<S: Strategy>(
    fuser: &dyn Fuser,
    rule: &str,
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let config = Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(e) = TestRunner::new(config).run(&strategy, property) {
        panic!("fuser {:?}: {rule}: {e}", fuser.name());
    }
}

/// Checks that `fuser` keeps the [`Fuser`] contract on generated rankings (up to five lists of
/// up to 25 hits over 40 ids, with tied scores and weights of 0), with property tests of
/// [`CASES`] cases each:
///
/// - the result is sorted by descending score, ties by ascending id; ids are unique; at most
///   `limit` hits; every hit comes from a list of weight above 0;
/// - the order of the inputs does not matter;
/// - a list of weight 0 changes nothing;
/// - [`Fuser::contributions`] sum to each fused score;
/// - its [`Fuser::pinned_bonus`] is finite and not negative.
///
/// # Panics
///
/// On the first broken rule, naming it, with the smallest failing input proptest finds.
pub fn fuser_contract(fuser: &dyn Fuser) {
    let bonus = fuser.pinned_bonus();
    assert!(
        bonus.is_finite() && bonus >= 0.0,
        "fuser {:?}: the pinned bonus is finite and >= 0, got {bonus}",
        fuser.name()
    );
    check(
        fuser,
        "sorted, unique, limited, from lists of weight > 0",
        (arb_lists(), 0usize..30),
        |(lists, limit)| {
            let r = fuser.fuse(&weighted(&lists), limit);
            prop_assert!(r.len() <= limit, "{} hits for limit {limit}", r.len());
            for w in r.hits().windows(2) {
                prop_assert!(
                    w[0].score > w[1].score || (w[0].score == w[1].score && w[0].id < w[1].id),
                    "{:?} before {:?}",
                    w[0],
                    w[1]
                );
            }
            let mut seen = HashSet::new();
            for h in r.hits() {
                prop_assert!(seen.insert(h.id), "id {} twice", h.id);
                prop_assert!(h.score.is_finite(), "id {} scores {}", h.id, h.score);
                prop_assert!(
                    lists
                        .iter()
                        .any(|(l, w)| *w > 0.0 && l.rank_of(h.id).is_some()),
                    "id {} is in no list of weight > 0",
                    h.id
                );
            }
            Ok(())
        },
    );
    check(
        fuser,
        "the order of the inputs does not matter",
        arb_lists(),
        |lists| {
            let mut reversed = lists.clone();
            reversed.reverse();
            let a = fuser.fuse(&weighted(&lists), 100);
            let b = fuser.fuse(&weighted(&reversed), 100);
            prop_assert_eq!(ids(&a), ids(&b));
            for (x, y) in a.hits().iter().zip(b.hits()) {
                prop_assert!((x.score - y.score).abs() < 1e-12);
            }
            Ok(())
        },
    );
    check(
        fuser,
        "a list of weight 0 changes nothing",
        (arb_lists(), arb_ranking()),
        |(lists, extra)| {
            let mut with = lists.clone();
            with.push((extra, 0.0));
            prop_assert_eq!(
                fuser.fuse(&weighted(&lists), 100),
                fuser.fuse(&weighted(&with), 100)
            );
            Ok(())
        },
    );
    check(
        fuser,
        "contributions sum to the fused score",
        arb_lists(),
        |lists| {
            let w = weighted(&lists);
            for h in fuser.fuse(&w, 100).hits() {
                let parts = fuser.contributions(&w, h.id);
                prop_assert_eq!(parts.len(), w.len(), "one contribution per input");
                let sum: f64 = parts.iter().sum();
                prop_assert!((sum - h.score).abs() < 1e-9, "{sum} vs {}", h.score);
            }
            Ok(())
        },
    );
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Sums raw scores, but lets a weight-0 list add its documents with score 0.
    struct Leaky;

    impl Fuser for Leaky {
        fn name(&self) -> &str {
            "leaky"
        }
        fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
            let mut acc: HashMap<i64, f64> = HashMap::new();
            for w in inputs {
                for h in w.ranking().hits() {
                    *acc.entry(h.id).or_default() += w.weight() * h.score;
                }
            }
            let mut r = Ranking::from_scores(acc);
            r.truncate(limit);
            r
        }
        fn contributions(&self, inputs: &[Weighted<'_>], id: i64) -> Vec<f64> {
            inputs
                .iter()
                .map(|w| {
                    w.ranking()
                        .hits()
                        .iter()
                        .find(|h| h.id == id)
                        .map_or(0.0, |h| w.weight() * h.score)
                })
                .collect()
        }
        fn pinned_bonus(&self) -> f64 {
            0.0
        }
    }

    #[test]
    fn a_fuser_that_lets_weight_zero_lists_in_fails_the_check() {
        let err = std::panic::catch_unwind(|| fuser_contract(&Leaky)).expect_err("it leaks");
        let message = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains("leaky"), "{message}");
        assert!(
            message.contains("weight > 0") || message.contains("weight 0"),
            "{message}"
        );
    }
}
