//! Calibrated relevance: the estimated probability that a candidate is relevant to the query,
//! so that recall can return only what is likely relevant, and nothing when nothing is.
//!
//! Fused scores order candidates within one query but mean little across queries: the best
//! candidate of every list scores 1 however poor it is. The calibration reads evidence that
//! keeps its meaning from one query to the next ([`Features`]: how strong each source's score
//! is on its own scale, how much of the query a memory covers, ...) and turns it into a
//! probability with a logistic model, `p = 1 / (1 + e^-(intercept + Σ coefficient × feature))`,
//! whose coefficients are part of the configuration ([`Calibration`]), one set per mode.
//! `oro-mem eval --fit-calibration` fits them on judged queries and scores them on others.
//!
//! This module holds the model and the names of its features, as configured; the engine
//! computes the features of each candidate and applies the model.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The name of a [`Calibration`]'s constant term.
pub const INTERCEPT: &str = "intercept";

/// How much of one text the other holds, in `[0, 1]`: the larger of the share of the
/// query's terms found in the memory and the share of the memory's terms found in the query
/// (stemmed, as the full-text index matches them; the memory's text is all the index searches:
/// content, tags, summary, files and entities). The second keeps a short memory that is
/// wholly about part of a long task ("ruff --fix must run before pyright" for "Set up ruff
/// and pyright linting for the Python service") from looking like a chance match.
pub const COVERAGE: &str = "coverage";

/// The share of the query's terms found in the memory (stemmed, as [`COVERAGE`] matches
/// them), each term weighed by how specific it is: how few of many software projects'
/// documents use it ([`oro_mem_text::specificity`]). A task that shares "use" and "test"
/// with a memory shares little of what it is about, one that shares "migration" much; in a
/// store of a few memories, whose own word statistics cannot tell the two apart, this can.
pub const WEIGHTED_COVERAGE: &str = "weighted_coverage";

/// The largest [`WEIGHTED_COVERAGE`] of any candidate of the query: a feature of the query,
/// as [`COVERAGE_BEST`] is.
pub const WEIGHTED_COVERAGE_BEST: &str = "weighted_coverage_best";

/// The fused score divided by the total weight of the lists that ranked anything, so that it
/// stays in `[0, 1]` for fusers that scale each list to at most 1 (0 for a candidate the
/// fusion left out).
pub const FUSED: &str = "fused";

/// `ln(1 + n)` of the number of terms in the query.
pub const QUERY_TERMS: &str = "query_terms";

/// The suffix of a signal's relative feature: `<signal>_share`, the candidate's score in the
/// signal divided by the best score any candidate has in it (0 without a score).
pub const SHARE_SUFFIX: &str = "_share";

/// The suffix of a signal's query feature: `<signal>_best`, `ln(1 + score)` of the best
/// score any candidate has in the signal (see [`COVERAGE_BEST`]).
pub const BEST_SUFFIX: &str = "_best";

/// The suffix of a signal's second query feature: `<signal>_gap`, how far the best candidate
/// stands out in the signal: its `ln(1 + score)` less the mean of the next five best
/// candidates' (all the others' when fewer; the best itself when it is alone). A query about
/// something the store knows tends to have one or a few memories well ahead of the rest; a
/// query it knows nothing about, a flat row of chance matches (see [`COVERAGE_GAP`]).
pub const GAP_SUFFIX: &str = "_gap";

/// As `<signal>_gap`, for [`COVERAGE`]: the best coverage less the mean of the next five.
pub const COVERAGE_GAP: &str = "coverage_gap";

/// The largest [`COVERAGE`] of any candidate of the query. Like `<signal>_best`, it is a
/// feature of the query, the same for each of its candidates: how well the store's best
/// match answers it at all. The [answerable](crate::config::RecallConfig::answerable) model
/// reads these, to tell a query the store knows something about from one it does not.
pub const COVERAGE_BEST: &str = "coverage_best";

/// 1 when each of the query's terms is held by at least one of its candidates (as
/// [`COVERAGE`] matches them), else 0 (and 0 for a query without terms). A feature of the
/// query: a question with a word that none of the store's best matches holds (a person's
/// name, asked of a store of paper abstracts) is likelier about something the store does not
/// know than one whose every word the matches hold between them, however well one of them
/// covers the rest. The [answerable](crate::config::RecallConfig::answerable) model of FTS
/// mode reads it.
pub const TERMS_FOUND: &str = "terms_found";

/// `ln(1 + n)` of the number of memories the query searched: the active memories its filter
/// admits (whatever their confidence), counted up to [`MEMORIES_COUNTED`]. A feature of the
/// query. The more memories a query searches, the likelier the best of them holds some of its
/// words by chance: a store of five thousand abstracts holds "main", "focus" and "politics"
/// for almost any question, a store of ten memories rarely does. So the best match of a query says more about whether
/// the store knows anything about it in a small store than in a large one, and an
/// [answerable](crate::config::RecallConfig::answerable) model reads this beside
/// [`COVERAGE_BEST`].
pub const MEMORIES: &str = "memories";

/// How far [`MEMORIES`] counts: a store or namespace larger than this counts as this large.
/// Counting costs a read of that many index entries at most (well under a millisecond), and
/// the models are fitted on stores of up to about five thousand memories, so a larger count
/// would only extrapolate.
pub const MEMORIES_COUNTED: u64 = 10_000;

/// The features that do not depend on which candidate sources run; each source's signal adds
/// four more, `<signal>` (`ln(1 + score)`, scores below 0 counted as 0), `<signal>_share`,
/// `<signal>_best` and `<signal>_gap`.
pub const FIXED_FEATURES: [&str; 9] = [
    COVERAGE,
    COVERAGE_BEST,
    COVERAGE_GAP,
    FUSED,
    MEMORIES,
    QUERY_TERMS,
    TERMS_FOUND,
    WEIGHTED_COVERAGE,
    WEIGHTED_COVERAGE_BEST,
];

/// True when feature `name` is a feature of the query rather than of one candidate:
/// [`QUERY_TERMS`], [`COVERAGE_BEST`], [`COVERAGE_GAP`], [`WEIGHTED_COVERAGE_BEST`],
/// [`TERMS_FOUND`], [`MEMORIES`] and every `<signal>_best` and `<signal>_gap`.
pub fn is_query_feature(name: &str) -> bool {
    // Coverage's are named as a signal's are (`coverage_best`, `coverage_gap`).
    [QUERY_TERMS, TERMS_FOUND, MEMORIES].contains(&name)
        || name.ends_with(BEST_SUFFIX)
        || name.ends_with(GAP_SUFFIX)
}

/// How far the largest of `values` stands out: it less the mean of the next five largest
/// (of all the others when fewer; the largest itself when it is alone; 0 for none). See
/// [`GAP_SUFFIX`].
///
/// ```
/// use oro_mem_core::calibration::gap;
///
/// assert_eq!(gap([0.5, 0.25, 0.75]), 0.75 - 0.375);
/// assert_eq!(gap([0.5]), 0.5);
/// assert_eq!(gap([]), 0.0);
/// ```
pub fn gap(values: impl IntoIterator<Item = f64>) -> f64 {
    // The six largest, largest first.
    let mut top = [f64::NEG_INFINITY; 6];
    for v in values {
        if let Some(i) = top.iter().position(|&t| v > t) {
            top.copy_within(i..5, i + 1);
            top[i] = v;
        }
    }
    let next = top[1..].iter().filter(|t| t.is_finite());
    let (count, sum) = next.fold((0usize, 0.0), |(n, s), t| (n + 1, s + t));
    match top[0] {
        best if !best.is_finite() => 0.0,
        best if count == 0 => best,
        best => best - sum / count as f64,
    }
}

/// One candidate's features, by name (see [`FIXED_FEATURES`] and [`SHARE_SUFFIX`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Features(BTreeMap<String, f64>);

impl Features {
    /// The value of feature `name`, if computed.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }

    /// True when no feature was computed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets feature `name`.
    pub fn set(&mut self, name: impl Into<String>, value: f64) {
        self.0.insert(name.into(), value);
    }

    /// Every feature, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, v)| (n.as_str(), *v))
    }
}

/// The coefficients of a logistic model of relevance, by feature name, plus [`INTERCEPT`].
/// A feature the model names but the candidate lacks counts as 0. An empty calibration
/// estimates nothing: recall then returns no probabilities and never abstains for relevance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Calibration(BTreeMap<String, f64>);

impl Calibration {
    /// A calibration from `(name, coefficient)` pairs.
    pub fn new<S: Into<String>>(coefficients: impl IntoIterator<Item = (S, f64)>) -> Calibration {
        Calibration(
            coefficients
                .into_iter()
                .map(|(n, c)| (n.into(), c))
                .collect(),
        )
    }

    /// True when it has no coefficients at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets the coefficient of `name` ([`INTERCEPT`] or a feature).
    pub fn set(&mut self, name: impl Into<String>, coefficient: f64) {
        self.0.insert(name.into(), coefficient);
    }

    /// The coefficient of `name`: 0 when not set.
    pub fn get(&self, name: &str) -> f64 {
        self.0.get(name).copied().unwrap_or(0.0)
    }

    /// True when the model has a coefficient for `name` (even 0): what a recall must compute.
    pub fn reads(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Every coefficient, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, f64)> {
        self.0.iter().map(|(n, c)| (n.as_str(), *c))
    }

    /// The estimated probability of relevance of a candidate with `features`, in `[0, 1]`;
    /// `None` for an empty calibration.
    pub fn probability(&self, features: &Features) -> Option<f64> {
        if self.is_empty() {
            return None;
        }
        let z: f64 = self
            .iter()
            .map(|(name, c)| {
                if name == INTERCEPT {
                    c
                } else {
                    c * features.get(name).unwrap_or(0.0)
                }
            })
            .sum();
        Some(sigmoid(z))
    }

    /// Checks every coefficient: finite, and named [`INTERCEPT`], a fixed feature, or a
    /// feature of one of `signals` (`<signal>`, `<signal>_share`, `_best` or `_gap`). `what`
    /// names the calibration in the error (`recall.calibration.fts`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) naming the coefficient and what it
    /// takes.
    pub fn check(&self, what: &str, signals: &[&str]) -> Result<()> {
        for (name, c) in self.iter() {
            if !c.is_finite() {
                return Err(Error::config(format!(
                    "{what}.{name} must be a finite number, got {c}"
                )));
            }
            let known = name == INTERCEPT
                || FIXED_FEATURES.contains(&name)
                || signals.iter().any(|s| {
                    name == *s
                        || [SHARE_SUFFIX, BEST_SUFFIX, GAP_SUFFIX]
                            .iter()
                            .any(|suffix| name.strip_suffix(suffix).is_some_and(|n| n == *s))
                });
            if !known {
                let mut names = vec![INTERCEPT.to_string()];
                names.extend(FIXED_FEATURES.iter().map(|f| f.to_string()));
                for s in signals {
                    names.push(s.to_string());
                    names.push(format!("{s}{SHARE_SUFFIX}"));
                    names.push(format!("{s}{BEST_SUFFIX}"));
                    names.push(format!("{s}{GAP_SUFFIX}"));
                }
                return Err(Error::config(format!(
                    "{what}.{name}: unknown feature; expected one of {}",
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }
}

/// The logistic function, `1 / (1 + e^-z)`, in `[0, 1]` for every `z` (NaN counts as 0.5's
/// opposite: 0).
pub fn sigmoid(z: f64) -> f64 {
    if z.is_nan() {
        return 0.0;
    }
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn calibration() -> Calibration {
        Calibration::new([
            (INTERCEPT, -3.0),
            ("lexical", 1.2),
            (COVERAGE, 2.5),
            (FUSED, 1.0),
        ])
    }

    fn features(lexical: f64, coverage: f64, fused: f64) -> Features {
        let mut f = Features::default();
        f.set("lexical", lexical);
        f.set(COVERAGE, coverage);
        f.set(FUSED, fused);
        f
    }

    proptest! {
        #[test]
        fn probabilities_are_in_the_unit_interval_and_monotone(
            lexical in 0.0f64..50.0,
            coverage in 0.0f64..=1.0,
            fused in 0.0f64..=1.0,
            more in 0.0f64..10.0,
        ) {
            let c = calibration();
            let p = c.probability(&features(lexical, coverage, fused)).unwrap();
            prop_assert!((0.0..=1.0).contains(&p));
            // Every coefficient is positive: more evidence never lowers the estimate.
            for f in [
                features(lexical + more, coverage, fused),
                features(lexical, (coverage + more).min(1.0), fused),
                features(lexical, coverage, fused + more),
            ] {
                prop_assert!(c.probability(&f).unwrap() >= p);
            }
        }
    }

    proptest! {
        #[test]
        fn gap_is_the_largest_less_the_mean_of_the_next_five(
            mut values in proptest::collection::vec(0.0f64..10.0, 0..30),
        ) {
            let g = gap(values.iter().copied());
            values.sort_by(|a, b| b.total_cmp(a));
            let expected = match values.as_slice() {
                [] => 0.0,
                [best] => *best,
                [best, rest @ ..] => {
                    let next = &rest[..rest.len().min(5)];
                    best - next.iter().sum::<f64>() / next.len() as f64
                }
            };
            prop_assert!((g - expected).abs() < 1e-9, "{g} != {expected}");
            prop_assert!(g >= 0.0);
        }
    }

    #[test]
    fn extreme_evidence_stays_a_probability() {
        let c = calibration();
        assert_eq!(c.probability(&features(1e300, 1.0, 1.0)), Some(1.0));
        let p = c.probability(&features(0.0, 0.0, 0.0)).unwrap();
        assert!(p > 0.0 && p < 0.1, "{p}");
        assert_eq!(
            Calibration::default().probability(&features(1.0, 1.0, 1.0)),
            None
        );
        assert_eq!(sigmoid(f64::NAN), 0.0);
        assert_eq!(sigmoid(-1e308), 0.0);
    }

    #[test]
    fn check_names_the_bad_coefficient() {
        let signals = ["lexical", "vector"];
        let mut c = calibration();
        c.set("vector_share", 0.5);
        c.check("recall.calibration.hybrid", &signals).unwrap();
        c.set("lexcial", 1.0);
        let err = c.check("recall.calibration.hybrid", &signals).unwrap_err();
        assert!(
            err.to_string()
                .contains("recall.calibration.hybrid.lexcial")
                && err.to_string().contains("vector_share"),
            "{err}"
        );
        let bad = Calibration::new([(INTERCEPT, f64::NAN)]);
        assert!(bad.check("x", &signals).is_err());
    }
}
