//! Ranking metrics, as pytrec_eval (and the BEIR and MTEB leaderboards) compute them.
//!
//! Every function takes the ranked document ids, best first and distinct, and the judged
//! documents of the query with their relevance grade; a grade of 0 is "judged not relevant".
//!
//! - nDCG@k: `DCG = Σ_{i=1..k} grade_i / log2(i + 1)` over the ranking, divided by the same
//!   sum over the grades sorted best first (the ideal ranking). With binary grades, as in
//!   SciFact and LoCoMo, every relevant document gains 1.
//! - Recall@k: relevant documents in the top k / relevant documents.
//! - MRR@k: `1 / rank` of the first relevant document in the top k, 0 if there is none.
//! - Recall-any@k and recall-all@k: 1 when any (all) of the relevant documents are in the top
//!   k, else 0, as LongMemEval and LoCoMo retrieval results report them.
//!
//! A query with no relevant document scores 0 everywhere; callers leave such queries out of
//! the means, as pytrec_eval does.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

/// The judged documents of one query: id → relevance grade.
pub type Judged = HashMap<String, u32>;

fn grade(relevant: &Judged, id: &str) -> u32 {
    relevant.get(id).copied().unwrap_or(0)
}

/// nDCG@k (see the [module docs](self)).
pub fn ndcg_at<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, id)| f64::from(grade(relevant, id.as_ref())) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<u32> = relevant.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| f64::from(g) / (i as f64 + 2.0).log2())
        .sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

/// Recall@k (see the [module docs](self)).
pub fn recall_at<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> f64 {
    let total = relevant.values().filter(|&&g| g > 0).count();
    if total == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|id| grade(relevant, id.as_ref()) > 0)
        .count();
    found as f64 / total as f64
}

/// Recall-any@k for one query: 1 when any of its relevant documents is in the top k, else 0.
pub fn recall_any_at<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> f64 {
    let (found, total) = found_in_top(ranked, relevant, k);
    if total > 0 && found > 0 {
        1.0
    } else {
        0.0
    }
}

/// Recall-all@k for one query: 1 when all of its relevant documents are in the top k, else 0.
pub fn recall_all_at<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> f64 {
    let (found, total) = found_in_top(ranked, relevant, k);
    if total > 0 && found == total {
        1.0
    } else {
        0.0
    }
}

/// The relevant documents in the top k of `ranked`, and all of them.
fn found_in_top<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> (usize, usize) {
    let total = relevant.values().filter(|&&g| g > 0).count();
    let found = ranked
        .iter()
        .take(k)
        .filter(|id| grade(relevant, id.as_ref()) > 0)
        .count();
    (found, total)
}

/// MRR@k for one query: the reciprocal rank of the first relevant document in the top k.
pub fn reciprocal_rank_at<S: AsRef<str>>(ranked: &[S], relevant: &Judged, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|id| grade(relevant, id.as_ref()) > 0)
        .map_or(0.0, |i| 1.0 / (i as f64 + 1.0))
}

/// The metrics `oro-mem eval` reports for one query (or their mean over many).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct QueryScores {
    /// nDCG@10.
    pub ndcg_10: f64,
    /// Recall@5.
    pub recall_5: f64,
    /// Recall@10.
    pub recall_10: f64,
    /// Recall@100.
    pub recall_100: f64,
    /// MRR@10.
    pub mrr_10: f64,
    /// Recall-any@5: 1 when a relevant document is in the top 5.
    pub recall_any_5: f64,
    /// Recall-all@5: 1 when every relevant document is in the top 5.
    pub recall_all_5: f64,
    /// Recall-any@10.
    pub recall_any_10: f64,
    /// Recall-all@10.
    pub recall_all_10: f64,
    /// Results returned (what `recall` and `inject` would show; 100 when ranking only).
    pub returned: f64,
    /// Relevant results among them.
    pub relevant_returned: f64,
    /// 1 when nothing was returned, else 0 (its mean: the share of empty answers).
    pub empty: f64,
    /// 1 when a relevant document was returned, else 0 (its mean: the share of useful
    /// answers).
    pub success: f64,
}

impl QueryScores {
    /// The scores of one ranking.
    pub fn of<S: AsRef<str>>(ranked: &[S], relevant: &Judged) -> QueryScores {
        let hits = ranked
            .iter()
            .filter(|id| grade(relevant, id.as_ref()) > 0)
            .count();
        QueryScores {
            ndcg_10: ndcg_at(ranked, relevant, 10),
            recall_5: recall_at(ranked, relevant, 5),
            recall_10: recall_at(ranked, relevant, 10),
            recall_100: recall_at(ranked, relevant, 100),
            mrr_10: reciprocal_rank_at(ranked, relevant, 10),
            recall_any_5: recall_any_at(ranked, relevant, 5),
            recall_all_5: recall_all_at(ranked, relevant, 5),
            recall_any_10: recall_any_at(ranked, relevant, 10),
            recall_all_10: recall_all_at(ranked, relevant, 10),
            returned: ranked.len() as f64,
            relevant_returned: hits as f64,
            empty: if ranked.is_empty() { 1.0 } else { 0.0 },
            success: if hits > 0 { 1.0 } else { 0.0 },
        }
    }

    /// Precision of what was returned, pooled over the queries these scores average:
    /// relevant results / results (0 when nothing was returned).
    pub fn precision(&self) -> f64 {
        if self.returned > 0.0 {
            self.relevant_returned / self.returned
        } else {
            0.0
        }
    }

    pub(crate) fn mean<'a>(all: impl IntoIterator<Item = &'a QueryScores>) -> QueryScores {
        let mut sum = QueryScores::default();
        let mut n = 0usize;
        for s in all {
            sum.ndcg_10 += s.ndcg_10;
            sum.recall_5 += s.recall_5;
            sum.recall_10 += s.recall_10;
            sum.recall_100 += s.recall_100;
            sum.mrr_10 += s.mrr_10;
            sum.recall_any_5 += s.recall_any_5;
            sum.recall_all_5 += s.recall_all_5;
            sum.recall_any_10 += s.recall_any_10;
            sum.recall_all_10 += s.recall_all_10;
            sum.returned += s.returned;
            sum.relevant_returned += s.relevant_returned;
            sum.empty += s.empty;
            sum.success += s.success;
            n += 1;
        }
        if n == 0 {
            return sum;
        }
        let n = n as f64;
        QueryScores {
            ndcg_10: sum.ndcg_10 / n,
            recall_5: sum.recall_5 / n,
            recall_10: sum.recall_10 / n,
            recall_100: sum.recall_100 / n,
            mrr_10: sum.mrr_10 / n,
            recall_any_5: sum.recall_any_5 / n,
            recall_all_5: sum.recall_all_5 / n,
            recall_any_10: sum.recall_any_10 / n,
            recall_all_10: sum.recall_all_10 / n,
            returned: sum.returned / n,
            relevant_returned: sum.relevant_returned / n,
            empty: sum.empty / n,
            success: sum.success / n,
        }
    }
}

/// One evaluated query: its scores, how long it took, and its category if the dataset has one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryResult {
    /// The query's id.
    pub id: String,
    /// Its scores.
    pub scores: QueryScores,
    /// Wall time of the retrieval, in milliseconds.
    pub latency_ms: f64,
    /// `metadata.category` of the query, if any.
    pub category: Option<String>,
    /// The namespace the query searched (a LoCoMo conversation), if any.
    pub namespace: Option<String>,
}

/// Mean scores and latency percentiles over a set of queries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Queries averaged.
    pub queries: usize,
    /// Mean of each metric.
    #[serde(flatten)]
    pub mean: QueryScores,
    /// Median latency, ms.
    pub latency_p50_ms: f64,
    /// 95th percentile latency, ms.
    pub latency_p95_ms: f64,
    /// The same per `metadata.category`, when queries have one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_category: BTreeMap<String, Summary>,
    /// The same per namespace, when queries have one: what leaving one out chooses from.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_namespace: BTreeMap<String, Summary>,
}

impl Summary {
    /// Summarizes `results`, with a breakdown by category and by namespace when any result
    /// has one.
    pub fn of(results: &[QueryResult]) -> Summary {
        let by = |key: fn(&QueryResult) -> Option<&String>| {
            let mut groups: BTreeMap<&str, Vec<&QueryResult>> = BTreeMap::new();
            for r in results {
                if let Some(k) = key(r) {
                    groups.entry(k).or_default().push(r);
                }
            }
            groups
                .into_iter()
                .map(|(k, rs)| (k.to_string(), Summary::flat(rs.into_iter())))
                .collect()
        };
        Summary {
            by_category: by(|r| r.category.as_ref()),
            by_namespace: by(|r| r.namespace.as_ref()),
            ..Summary::flat(results.iter())
        }
    }

    fn flat<'a>(results: impl Iterator<Item = &'a QueryResult> + Clone) -> Summary {
        let mut latencies: Vec<f64> = results.clone().map(|r| r.latency_ms).collect();
        latencies.sort_by(f64::total_cmp);
        Summary {
            queries: latencies.len(),
            mean: QueryScores::mean(results.map(|r| &r.scores)),
            latency_p50_ms: percentile(&latencies, 50.0),
            latency_p95_ms: percentile(&latencies, 95.0),
            by_category: BTreeMap::new(),
            by_namespace: BTreeMap::new(),
        }
    }
}

/// The `p`-th percentile (0–100] of `sorted` (ascending) by the nearest-rank method: the
/// smallest value with at least `p`% of the values at or below it. 0 for no values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(pairs: &[(&str, u32)]) -> Judged {
        pairs.iter().map(|&(d, g)| (d.to_string(), g)).collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn ndcg_by_hand() {
        // Relevant: a, b. Ranking: x a y b.
        // DCG = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606
        // IDCG = 1/log2(2) + 1/log2(3) = 1 + 0.630930 = 1.630930
        let rel = judged(&[("a", 1), ("b", 1)]);
        let ranked = ["x", "a", "y", "b"];
        let expect = (1.0 / 3f64.log2() + 1.0 / 5f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!(close(ndcg_at(&ranked, &rel, 10), expect));
        assert!((ndcg_at(&ranked, &rel, 10) - 0.650920).abs() < 1e-6);
        // Cut at 2: only a counts; the ideal still has two relevant documents.
        assert!(close(
            ndcg_at(&ranked, &rel, 2),
            (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2())
        ));
        // Perfect ranking.
        assert!(close(ndcg_at(&["b", "a", "x"], &rel, 10), 1.0));
    }

    #[test]
    fn ndcg_uses_grades_and_ignores_judged_irrelevant() {
        // Grades 2 and 1 (and a judged 0). Ranking: c(1) z(0) a(2).
        // DCG = 1/1 + 0 + 2/log2(4) = 2; IDCG = 2/1 + 1/log2(3) = 2.630930.
        let rel = judged(&[("a", 2), ("c", 1), ("z", 0)]);
        let got = ndcg_at(&["c", "z", "a"], &rel, 10);
        assert!(close(got, 2.0 / (2.0 + 1.0 / 3f64.log2())));
    }

    #[test]
    fn recall_and_mrr_by_hand() {
        let rel = judged(&[("a", 1), ("b", 1), ("c", 1), ("n", 0)]);
        let ranked = ["n", "x", "b", "y", "a", "c"];
        assert!(close(recall_at(&ranked, &rel, 1), 0.0));
        assert!(close(recall_at(&ranked, &rel, 3), 1.0 / 3.0));
        assert!(close(recall_at(&ranked, &rel, 5), 2.0 / 3.0));
        assert!(close(recall_at(&ranked, &rel, 100), 1.0));
        assert!(close(reciprocal_rank_at(&ranked, &rel, 10), 1.0 / 3.0));
        assert_eq!(reciprocal_rank_at(&ranked, &rel, 2), 0.0);
    }

    #[test]
    fn recall_any_and_all_count_a_query_once() {
        let rel = judged(&[("a", 1), ("b", 2), ("n", 0)]);
        let ranked = ["n", "b", "x", "a"];
        // "b" is second: any from k = 2; "a" is fourth: all from k = 4.
        let any: Vec<f64> = (1..=4).map(|k| recall_any_at(&ranked, &rel, k)).collect();
        let all: Vec<f64> = (1..=4).map(|k| recall_all_at(&ranked, &rel, k)).collect();
        assert_eq!(any, [0.0, 1.0, 1.0, 1.0]);
        assert_eq!(all, [0.0, 0.0, 0.0, 1.0]);
        // A query with nothing relevant counts for neither.
        let none = judged(&[("n", 0)]);
        assert_eq!(recall_all_at(&ranked, &none, 10), 0.0);
        assert_eq!(recall_any_at(&ranked, &none, 10), 0.0);
    }

    #[test]
    fn no_relevant_documents_scores_zero_not_nan() {
        let rel = judged(&[("a", 0)]);
        let s = QueryScores::of(&["a"], &rel);
        assert_eq!(
            s,
            QueryScores {
                returned: 1.0,
                ..QueryScores::default()
            }
        );
        let empty: [&str; 0] = [];
        assert_eq!(ndcg_at(&empty, &judged(&[("a", 1)]), 10), 0.0);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 10.0);
        assert_eq!(percentile(&v, 95.0), 19.0);
        assert_eq!(percentile(&v, 100.0), 20.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn what_was_returned_is_counted_and_pooled() {
        let rel = judged(&[("a", 1), ("b", 2), ("z", 0)]);
        let two_of_three = QueryScores::of(&["a", "x", "b"], &rel);
        assert_eq!(
            (two_of_three.returned, two_of_three.relevant_returned),
            (3.0, 2.0)
        );
        assert_eq!((two_of_three.empty, two_of_three.success), (0.0, 1.0));
        // Graded 0 is not relevant.
        let none = QueryScores::of(&["z"], &rel);
        assert_eq!((none.relevant_returned, none.success), (0.0, 0.0));
        let empty = QueryScores::of::<&str>(&[], &rel);
        assert_eq!((empty.empty, empty.precision()), (1.0, 0.0));
        // Pooled: (2 + 0 + 0) relevant of (3 + 1 + 0) returned, not the mean of 2/3, 0, 0.
        let mean = QueryScores::mean([&two_of_three, &none, &empty]);
        assert!(close(mean.precision(), 0.5), "{}", mean.precision());
        assert!(close(mean.empty, 1.0 / 3.0));
        assert!(close(mean.success, 1.0 / 3.0));
        assert!(close(mean.returned, 4.0 / 3.0));
    }

    #[test]
    fn summary_means_and_breaks_down_by_category_and_namespace() {
        let r = |id: &str, ndcg: f64, ms: f64, cat: Option<&str>| QueryResult {
            id: id.to_string(),
            scores: QueryScores {
                ndcg_10: ndcg,
                ..QueryScores::default()
            },
            latency_ms: ms,
            category: cat.map(str::to_string),
            namespace: Some(if id == "3" { "conv-2" } else { "conv-1" }.to_string()),
        };
        let s = Summary::of(&[
            r("1", 1.0, 1.0, Some("a")),
            r("2", 0.0, 3.0, Some("b")),
            r("3", 0.5, 2.0, Some("a")),
        ]);
        assert_eq!(s.queries, 3);
        assert!(close(s.mean.ndcg_10, 0.5));
        assert_eq!(s.latency_p50_ms, 2.0);
        assert_eq!(s.by_category["a"].queries, 2);
        assert!(close(s.by_category["a"].mean.ndcg_10, 0.75));
        assert!(close(s.by_category["b"].mean.ndcg_10, 0.0));
        assert_eq!(s.by_namespace["conv-1"].queries, 2);
        assert!(close(s.by_namespace["conv-1"].mean.ndcg_10, 0.5));
        assert!(close(s.by_namespace["conv-2"].mean.ndcg_10, 0.5));
        assert!(Summary::of(&[r("1", 1.0, 1.0, None)])
            .by_category
            .is_empty());
    }
}
