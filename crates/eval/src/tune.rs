//! Choosing a setting out of sample: the run that scores best on some queries, judged on
//! others. [`leave_one_out`] holds out one group of queries at a time (a LoCoMo conversation),
//! [`best_run`] picks on one split (SciFact train) for scoring on another (test).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::metrics::{QueryResult, QueryScores};

/// What a setting is chosen for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Metric {
    /// nDCG@10.
    #[default]
    Ndcg10,
    /// Recall@5.
    Recall5,
    /// Recall@10.
    Recall10,
    /// Recall@100.
    Recall100,
    /// MRR@10.
    Mrr10,
    /// Pooled precision of what was returned (as recalled).
    Precision,
    /// The share of answers holding a relevant result (as recalled).
    Useful,
}

impl Metric {
    /// Every metric.
    pub const ALL: [Metric; 7] = [
        Metric::Ndcg10,
        Metric::Recall5,
        Metric::Recall10,
        Metric::Recall100,
        Metric::Mrr10,
        Metric::Precision,
        Metric::Useful,
    ];

    /// The metric's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Ndcg10 => "ndcg@10",
            Metric::Recall5 => "recall@5",
            Metric::Recall10 => "recall@10",
            Metric::Recall100 => "recall@100",
            Metric::Mrr10 => "mrr@10",
            Metric::Precision => "precision",
            Metric::Useful => "useful",
        }
    }

    /// The metric of `results`, as [`Summary`](crate::Summary) averages (pools) it.
    pub fn of<'a>(self, results: impl IntoIterator<Item = &'a QueryResult>) -> f64 {
        let m = QueryScores::mean(results.into_iter().map(|r| &r.scores));
        match self {
            Metric::Ndcg10 => m.ndcg_10,
            Metric::Recall5 => m.recall_5,
            Metric::Recall10 => m.recall_10,
            Metric::Recall100 => m.recall_100,
            Metric::Mrr10 => m.mrr_10,
            Metric::Precision => m.precision(),
            Metric::Useful => m.success,
        }
    }
}

impl std::str::FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Metric, String> {
        Metric::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                let names: Vec<&str> = Metric::ALL.iter().map(|m| m.as_str()).collect();
                format!("unknown metric {s:?}: expected one of {}", names.join(", "))
            })
    }
}

impl Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The index of the run of `runs` (each: one result per query, the same queries in the same
/// order) with the best `metric` over the queries `keep` admits (by position); the first of
/// equal ones. `None` when there is no run.
pub fn best_run(
    runs: &[&[QueryResult]],
    metric: Metric,
    keep: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, results) in runs.iter().enumerate() {
        let kept = results
            .iter()
            .enumerate()
            .filter(|(q, _)| keep(*q))
            .map(|(_, r)| r);
        let score = metric.of(kept);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i)
}

/// One fold of [`leave_one_out`]: the group held out and the run chosen on the others.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fold {
    /// The group whose queries were scored.
    pub held_out: String,
    /// The index of the run chosen on every other group's queries.
    pub chosen: usize,
}

/// Leave-one-group-out: for each group of `group_of` (one per query, in the runs' query
/// order), the run with the best `metric` on the other groups' queries, and that run's results
/// on the group's own queries. Every query is scored once, by a run chosen without it.
///
/// Returns the folds (by group name) and the held-out results, in query order.
///
/// # Panics
///
/// When a run has not one result per query.
pub fn leave_one_out(
    runs: &[&[QueryResult]],
    group_of: &[String],
    metric: Metric,
) -> (Vec<Fold>, Vec<QueryResult>) {
    for r in runs {
        assert_eq!(r.len(), group_of.len(), "one result per query in every run");
    }
    let groups: BTreeSet<&String> = group_of.iter().collect();
    let mut folds = Vec::with_capacity(groups.len());
    let mut held_out: Vec<Option<QueryResult>> = vec![None; group_of.len()];
    for g in groups {
        let Some(chosen) = best_run(runs, metric, |q| &group_of[q] != g) else {
            break;
        };
        for (q, slot) in held_out.iter_mut().enumerate() {
            if &group_of[q] == g {
                *slot = Some(runs[chosen][q].clone());
            }
        }
        folds.push(Fold {
            held_out: g.clone(),
            chosen,
        });
    }
    (folds, held_out.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str, ndcg: f64) -> QueryResult {
        QueryResult {
            id: id.into(),
            scores: QueryScores {
                ndcg_10: ndcg,
                ..QueryScores::default()
            },
            latency_ms: 1.0,
            category: None,
            namespace: None,
        }
    }

    #[test]
    fn metric_names_round_trip() {
        for m in Metric::ALL {
            assert_eq!(m.as_str().parse::<Metric>().unwrap(), m);
        }
        assert!("ndcg@11".parse::<Metric>().unwrap_err().contains("ndcg@10"));
    }

    #[test]
    fn each_group_is_scored_by_the_run_best_on_the_others() {
        // Queries: a1 a2 (group a), b1 (group b), c1 (group c).
        let groups: Vec<String> = ["a", "a", "b", "c"].map(String::from).to_vec();
        // Run 0 is best on a, run 1 on b and c: in sample, run 1 wins (mean 0.6 vs 0.5).
        let run0 = [
            result("a1", 1.0),
            result("a2", 1.0),
            result("b1", 0.0),
            result("c1", 0.0),
        ];
        let run1 = [
            result("a1", 0.2),
            result("a2", 0.2),
            result("b1", 1.0),
            result("c1", 1.0),
        ];
        let runs = [&run0[..], &run1[..]];
        assert_eq!(best_run(&runs, Metric::Ndcg10, |_| true), Some(1));
        let (folds, held) = leave_one_out(&runs, &groups, Metric::Ndcg10);
        let chosen: Vec<(&str, usize)> = folds
            .iter()
            .map(|f| (f.held_out.as_str(), f.chosen))
            .collect();
        // Without a: run 1 (b, c). Without b: a1 a2 c1 -> run0 2/3, run1 1.4/3: run 0.
        assert_eq!(chosen, [("a", 1), ("b", 0), ("c", 0)]);
        let scores: Vec<f64> = held.iter().map(|r| r.scores.ndcg_10).collect();
        assert_eq!(
            scores,
            [0.2, 0.2, 0.0, 0.0],
            "worse than either run in sample"
        );
        assert_eq!(
            held.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["a1", "a2", "b1", "c1"]
        );
    }

    #[test]
    fn ties_go_to_the_first_run() {
        let run = [result("q", 0.5)];
        assert_eq!(
            best_run(&[&run[..], &run[..]], Metric::Ndcg10, |_| true),
            Some(0)
        );
        assert_eq!(best_run(&[], Metric::Ndcg10, |_| true), None);
    }
}
