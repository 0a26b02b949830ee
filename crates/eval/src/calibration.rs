//! Fitting a relevance model ([`Calibration`]) on judged queries: each recalled candidate's
//! features, labelled relevant or not by the qrels, and an L2-regularised logistic regression
//! over them.
//!
//! The fit is Newton's method (iteratively reweighted least squares) with a Cholesky solve of
//! the few-by-few Hessian, written here rather than taken from a crate: the models have fewer
//! than ten coefficients, and `linfa-logistic` would bring the `argmin` optimiser stack along
//! for one small solve.

use std::collections::{BTreeMap, BTreeSet};

use oro_mem_core::calibration::{
    is_query_feature, sigmoid, Calibration, Features, INTERCEPT, QUERY_TERMS,
};
use serde::{Deserialize, Serialize};

/// One candidate of one judged query, as a training example.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// Which held-out group it belongs to (`dataset/namespace`), so that a model can be
    /// fitted without it.
    pub group: String,
    /// The query's id.
    pub query: String,
    /// The candidate's document id in the dataset (none for an unrelated query's candidate
    /// from another corpus), so that examples can be joined with the corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// True when the qrels judge the candidate relevant.
    pub relevant: bool,
    /// Whether the store the query searched holds something relevant to it, when known: a
    /// judged query whose relevant documents are all outside the namespace it searched (a
    /// store of `scripts/small-stores` asked about another conversation) does not. Without it,
    /// every query but the unrelated ones ([`is_unrelated_group`]) counts as answerable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answerable: Option<bool>,
    /// Its features, by name.
    pub features: BTreeMap<String, f64>,
}

impl Example {
    /// An example from a candidate's [`Features`].
    pub fn new(
        group: String,
        query: String,
        doc: Option<String>,
        relevant: bool,
        features: &Features,
    ) -> Example {
        Example {
            group,
            query,
            doc,
            relevant,
            answerable: None,
            features: features.iter().map(|(n, v)| (n.to_string(), v)).collect(),
        }
    }

    /// Whether its query could be answered by the store it searched: [`Example::answerable`]
    /// when known, else true but for unrelated queries ([`is_unrelated_group`]).
    pub fn is_answerable(&self) -> bool {
        self.answerable
            .unwrap_or_else(|| !is_unrelated_group(&self.group))
    }
}

/// The group of the examples of unrelated queries: asked of a store that knows nothing about
/// them (`oro-mem eval --fit-unrelated`). An unrelated query that has a namespace in its own
/// dataset (a LoCoMo conversation) is grouped `unrelated/<namespace>`, so that a fold that
/// leaves the conversation out leaves its questions out too, wherever they were asked.
pub const UNRELATED_GROUP: &str = "unrelated";

/// True for [`UNRELATED_GROUP`] and its `unrelated/<namespace>` groups.
pub fn is_unrelated_group(group: &str) -> bool {
    group
        .strip_prefix(UNRELATED_GROUP)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The L2 penalty on every coefficient but the intercept. Small next to the thousands of
/// examples a fit sees: it only keeps coefficients finite when some feature separates the
/// examples perfectly.
pub const L2: f64 = 1.0;

/// Fits a relevance model: a logistic model of `relevant` on every feature of a candidate
/// the examples have, and the query's number of terms ([`QUERY_TERMS`]) and the features of
/// the query named in `with`, but not the other features of the query ([`is_query_feature`]:
/// they are [`fit_answerable`]'s), with an [`L2`] penalty. Deterministic. Fewer than two
/// examples, or examples of one class only, give a model of the intercept alone (the share
/// of relevant ones, kept off 0 and 1).
///
/// `with` is for a feature of the query that says how likely any one candidate is to be
/// relevant rather than whether the store knows the query at all:
/// [`MEMORIES`](oro_mem_core::calibration::MEMORIES), since a task's few relevant memories
/// are a larger share of a store of forty than of one of five thousand.
pub fn fit<'a>(examples: impl IntoIterator<Item = &'a Example>, with: &[String]) -> Calibration {
    let examples: Vec<&Example> = examples.into_iter().collect();
    logistic(
        &examples,
        |name| name == QUERY_TERMS || !is_query_feature(name) || with.iter().any(|w| w == name),
        L2,
    )
}

/// Fits an answerable model: whether a query was asked of a store that knows something about
/// it, from the features of the query ([`is_query_feature`]), one example per query (its group
/// and id), labelled by [`Example::is_answerable`]. The [`L2`] penalty is
/// scaled to the queries' number, so that it weighs on each as [`fit`]'s does on each
/// candidate.
pub fn fit_answerable<'a>(examples: impl IntoIterator<Item = &'a Example>) -> Calibration {
    let mut candidates = 0usize;
    let mut queries: BTreeMap<(&str, &str), Example> = BTreeMap::new();
    for e in examples {
        candidates += 1;
        queries
            .entry((e.group.as_str(), e.query.as_str()))
            .or_insert_with(|| Example {
                group: e.group.clone(),
                query: e.query.clone(),
                doc: None,
                relevant: e.is_answerable(),
                answerable: None,
                features: e
                    .features
                    .iter()
                    .filter(|(n, _)| is_query_feature(n))
                    .map(|(n, v)| (n.clone(), *v))
                    .collect(),
            });
    }
    let queries: Vec<&Example> = queries.values().collect();
    let l2 = L2 * queries.len() as f64 / candidates.max(1) as f64;
    logistic(&queries, |_| true, l2)
}

/// The logistic model of `relevant` on the features of `examples` that `uses` admits, with
/// an L2 penalty of `l2` on every coefficient but the intercept (Newton's method).
// Matrix arithmetic reads best with indices.
#[allow(clippy::needless_range_loop)]
fn logistic(examples: &[&Example], uses: impl Fn(&str) -> bool, l2: f64) -> Calibration {
    let names: Vec<&str> = examples
        .iter()
        .flat_map(|e| e.features.keys().map(String::as_str))
        .filter(|n| uses(n))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let positives = examples.iter().filter(|e| e.relevant).count();
    if positives == 0 || positives == examples.len() {
        let share = (positives as f64 + 0.5) / (examples.len() as f64 + 1.0);
        return Calibration::new([(INTERCEPT, (share / (1.0 - share)).ln())]);
    }
    // Column 0 is the intercept.
    let d = names.len() + 1;
    let rows: Vec<Vec<f64>> = examples
        .iter()
        .map(|e| {
            std::iter::once(1.0)
                .chain(
                    names
                        .iter()
                        .map(|n| e.features.get(*n).copied().unwrap_or(0.0)),
                )
                .collect()
        })
        .collect();
    let mut w = vec![0.0; d];
    for _ in 0..100 {
        let mut gradient = vec![0.0; d];
        let mut hessian = vec![vec![0.0; d]; d];
        for (x, e) in rows.iter().zip(examples) {
            let z: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let residual = p - f64::from(u8::from(e.relevant));
            let weight = (p * (1.0 - p)).max(1e-12);
            for i in 0..d {
                gradient[i] += residual * x[i];
                for j in 0..=i {
                    hessian[i][j] += weight * x[i] * x[j];
                }
            }
        }
        for i in 1..d {
            gradient[i] += l2 * w[i];
            hessian[i][i] += l2;
        }
        for i in 0..d {
            for j in 0..i {
                hessian[j][i] = hessian[i][j];
            }
        }
        let Some(step) = solve(hessian, &gradient) else {
            break;
        };
        let mut largest = 0.0f64;
        for (wi, s) in w.iter_mut().zip(&step) {
            *wi -= s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-10 {
            break;
        }
    }
    Calibration::new(
        std::iter::once(INTERCEPT)
            .chain(names)
            .zip(w)
            .map(|(n, c)| (n.to_string(), c)),
    )
}

/// The mean log loss of `calibration` on `examples` (lower is better; a model that always
/// says 0.5 scores ln 2 ≈ 0.693).
pub fn log_loss<'a>(
    calibration: &Calibration,
    examples: impl IntoIterator<Item = &'a Example>,
) -> f64 {
    let mut total = 0.0;
    let mut n = 0usize;
    for e in examples {
        let mut f = Features::default();
        for (name, v) in &e.features {
            f.set(name.clone(), *v);
        }
        let p = calibration
            .probability(&f)
            .unwrap_or(0.5)
            .clamp(1e-12, 1.0 - 1e-12);
        total -= if e.relevant { p.ln() } else { (1.0 - p).ln() };
        n += 1;
    }
    total / n.max(1) as f64
}

/// Solves `a x = b` for a symmetric positive definite `a` by Cholesky decomposition; `None`
/// when `a` is not positive definite.
#[allow(clippy::needless_range_loop)]
fn solve(mut a: Vec<Vec<f64>>, b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    // a = L Lᵀ, L stored in the lower triangle.
    for j in 0..n {
        let mut diagonal = a[j][j];
        for k in 0..j {
            diagonal -= a[j][k] * a[j][k];
        }
        if diagonal <= 0.0 || !diagonal.is_finite() {
            return None;
        }
        let diagonal = diagonal.sqrt();
        a[j][j] = diagonal;
        for i in j + 1..n {
            let mut v = a[i][j];
            for k in 0..j {
                v -= a[i][k] * a[j][k];
            }
            a[i][j] = v / diagonal;
        }
    }
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut v = b[i];
        for k in 0..i {
            v -= a[i][k] * y[k];
        }
        y[i] = v / a[i][i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut v = y[i];
        for k in i + 1..n {
            v -= a[k][i] * x[k];
        }
        x[i] = v / a[i][i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(x: f64, relevant: bool) -> Example {
        Example {
            group: "g".into(),
            query: "q".into(),
            doc: None,
            relevant,
            answerable: None,
            features: BTreeMap::from([("x".to_string(), x)]),
        }
    }

    /// Examples whose share of relevant ones at `x` is exactly `sigmoid(-2 + 3x)`.
    fn logistic_sample() -> Vec<Example> {
        let mut out = Vec::new();
        for step in 0..=20 {
            let x = f64::from(step) / 10.0;
            let p = sigmoid(-2.0 + 3.0 * x);
            let relevant = (p * 1000.0).round() as usize;
            out.extend((0..1000).map(|i| example(x, i < relevant)));
        }
        out
    }

    #[test]
    fn recovers_the_model_that_made_the_data() {
        let c = fit(&logistic_sample(), &[]);
        assert!((c.get(INTERCEPT) + 2.0).abs() < 0.02, "{c:?}");
        assert!((c.get("x") - 3.0).abs() < 0.02, "{c:?}");
        let loss = log_loss(&c, &logistic_sample());
        assert!(loss < log_loss(&Calibration::new([(INTERCEPT, 0.0)]), &logistic_sample()));
    }

    #[test]
    fn separable_or_one_class_data_gives_finite_coefficients() {
        let separable: Vec<Example> = (0..100).map(|i| example(f64::from(i), i >= 50)).collect();
        let c = fit(&separable, &[]);
        assert!(c.iter().all(|(_, v)| v.is_finite()), "{c:?}");
        assert!(c.get("x") > 0.0);
        let none: Vec<Example> = (0..10).map(|i| example(f64::from(i), false)).collect();
        let c = fit(&none, &[]);
        assert_eq!(c.iter().count(), 1);
        assert!(c.get(INTERCEPT) < -2.0);
        assert_eq!(fit(&[], &[]).iter().count(), 1);
    }

    #[test]
    fn the_relevance_model_leaves_the_query_to_the_answerable_model() {
        let mut examples = logistic_sample();
        for (i, e) in examples.iter_mut().enumerate() {
            e.features.insert("vector_best".into(), (i % 7) as f64);
            e.features.insert("coverage_best".into(), (i % 5) as f64);
            e.features.insert(QUERY_TERMS.into(), (i % 3) as f64);
        }
        let c = fit(&examples, &[]);
        let names: Vec<&str> = c.iter().map(|(n, _)| n).collect();
        assert_eq!(names, [INTERCEPT, QUERY_TERMS, "x"]);
        // A feature of the query named in `with` is the relevance model's too.
        let c = fit(&examples, &["vector_best".to_string()]);
        let names: Vec<&str> = c.iter().map(|(n, _)| n).collect();
        assert_eq!(names, [INTERCEPT, QUERY_TERMS, "vector_best", "x"]);
    }

    /// `n` candidates of each of `queries` queries of `group`, the query's best cosine
    /// `best(q)` and one candidate feature that varies.
    fn queries(group: &str, queries: usize, best: impl Fn(usize) -> f64) -> Vec<Example> {
        let mut out = Vec::new();
        for q in 0..queries {
            for c in 0..5 {
                out.push(Example {
                    group: group.into(),
                    query: format!("q{q}"),
                    doc: None,
                    relevant: group != UNRELATED_GROUP && c == 0,
                    answerable: None,
                    features: BTreeMap::from([
                        ("x".to_string(), c as f64),
                        ("vector_best".to_string(), best(q)),
                    ]),
                });
            }
        }
        out
    }

    #[test]
    fn the_answerable_model_tells_queries_about_the_store_from_others() {
        // Related queries have a best cosine from 0.4 up, unrelated ones up to 0.3; the same
        // id in two groups is two queries.
        let mut examples = queries("locomo/conv-1", 50, |q| 0.4 + q as f64 / 100.0);
        examples.extend(queries(UNRELATED_GROUP, 50, |q| 0.3 - q as f64 / 200.0));
        let c = fit_answerable(&examples);
        let names: Vec<&str> = c.iter().map(|(n, _)| n).collect();
        assert_eq!(names, [INTERCEPT, "vector_best"], "query features only");
        let p = |best: f64| {
            let mut f = Features::default();
            f.set("vector_best", best);
            c.probability(&f).unwrap()
        };
        assert!(p(0.8) > 0.9 && p(0.1) < 0.1, "{c:?}");
        assert!(p(0.45) > 0.5 && p(0.25) < 0.5, "{c:?}");
        // One example per query, whatever its number of candidates; the penalty is scaled to
        // the candidates' number, so with one candidate per query it weighs five times as
        // much on the same queries.
        let once: Vec<Example> = examples
            .iter()
            .filter(|e| e.features["x"] == 0.0)
            .cloned()
            .collect();
        let single = fit_answerable(&once);
        assert!(
            single.get("vector_best") < c.get("vector_best"),
            "{single:?}"
        );
    }

    #[test]
    fn a_judged_query_of_a_store_that_lacks_its_answer_counts_as_unrelated() {
        // The stores of one group: half their queries have an answer in the store searched
        // (a best cosine from 0.4 up), half are about another store (up to 0.3), as
        // `scripts/small-stores` asks them. Labelled by where their answers are, the model
        // tells them apart; labelled by group alone, every query would count as answerable.
        let mut examples = queries("related/conv-1", 50, |q| 0.4 + q as f64 / 100.0);
        let mut other = queries("unrelated/conv-1", 50, |q| 0.3 - q as f64 / 200.0);
        for e in &mut other {
            e.answerable = Some(false);
        }
        assert!(!other[0].is_answerable() && examples[0].is_answerable());
        examples.extend(other);
        let c = fit_answerable(&examples);
        let p = |best: f64| {
            let mut f = Features::default();
            f.set("vector_best", best);
            c.probability(&f).unwrap()
        };
        assert!(p(0.8) > 0.9 && p(0.1) < 0.1, "{c:?}");
    }

    #[test]
    fn solves_a_small_system() {
        let x = solve(vec![vec![4.0, 2.0], vec![2.0, 3.0]], &[2.0, 5.0]).unwrap();
        assert!(
            (x[0] + 0.5).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12,
            "{x:?}"
        );
        assert!(solve(vec![vec![0.0]], &[1.0]).is_none());
    }
}
