//! The estimated relevance of each candidate: the calibration's features read from the fused
//! lists, and the order by it.

use std::sync::Arc;

use oro_mem_core::calibration::{
    gap, Calibration, Features, BEST_SUFFIX, COVERAGE, COVERAGE_BEST, COVERAGE_GAP, FUSED,
    GAP_SUFFIX, MEMORIES, QUERY_TERMS, SHARE_SUFFIX, TERMS_FOUND, WEIGHTED_COVERAGE,
    WEIGHTED_COVERAGE_BEST,
};
use oro_mem_core::{CandidateTerms, Candidates, Fuser, Query, Signal, Weighted};

use super::Scored;

/// Estimates every candidate of `scored` and orders them by estimated relevance × confidence ×
/// decay (`recall.order = "relevance"`), best first, ties by ascending id.
pub(super) fn order_by_relevance(scored: &mut [Scored], estimator: &Estimator<'_>) {
    for s in scored.iter_mut() {
        estimator.estimate(s);
        s.raw = s.probability.unwrap_or(0.0) * s.confidence * s.decay;
    }
    scored.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(a.id.cmp(&b.id)));
}

/// One signal as the [`Estimator`] reads it.
pub(super) struct SignalFeatures<'a> {
    /// The signal's name, also its `ln(1 + score)` feature's.
    name: &'a str,
    /// The name of its share feature (`<name>_share`).
    share: String,
    signal: &'a Signal,
    /// The best score any candidate has in it.
    best: f64,
    /// Its `<name>_gap` feature: how far the best `ln(1 + score)` stands out
    /// ([`gap`]).
    gap: f64,
}

/// The candidates passed over for an estimate below `min_relevance`: how many, and the best
/// estimate among them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Below {
    pub(super) count: usize,
    pub(super) best: f64,
}

/// Estimates a candidate's probability of relevance from its [`Features`]: per signal, `ln(1 +
/// score)` and the score's share of the signal's best; [`COVERAGE`]; the fused score over the
/// total weight of the lists that read the query and ranked anything (without the priors'
/// contributions, the pinned bonus and the boosts: preferences, not evidence, and absent from
/// the benchmarks the models are fitted on, where nothing has been recalled); and the features
/// of the query ([`is_query_feature`](oro_mem_core::calibration::is_query_feature): its number
/// of terms, each signal's best score, and the best coverage when a model reads it), computed
/// once, as is the [`Pipeline::answerable`](super::Pipeline::answerable) factor they give. A
/// candidate that a signal could not judge is estimated without it, by
/// [`Pipeline::unjudged_calibration`](super::Pipeline::unjudged_calibration) when there is one.
pub(super) struct Estimator<'a> {
    calibration: &'a Calibration,
    unjudged_calibration: &'a Calibration,
    /// What each candidate holds of the query's terms: its [`COVERAGE`].
    terms: Arc<CandidateTerms>,
    /// The features of the query, the same for every candidate.
    query: Features,
    /// The [`Pipeline::answerable`](super::Pipeline::answerable) model's probability for the
    /// query (none without a model).
    pub(super) answerable: Option<f64>,
    /// The same by [`Pipeline::unjudged_answerable`](super::Pipeline::unjudged_answerable), for
    /// the candidates a signal could not judge.
    unjudged_answerable: Option<f64>,
    /// Each signal, its two features' names, and its best score.
    signals: Vec<SignalFeatures<'a>>,
    lists: Lists<'a>,
}

/// The fused lists as the [`Estimator`] reads them.
pub(super) struct Lists<'a> {
    inputs: &'a [Weighted<'a>],
    /// The signal each of `inputs` reads (`None`: a prior).
    signals: Vec<Option<&'a str>>,
    fuser: &'a dyn Fuser,
    /// Whether some prior ranked anything (else no candidate has a prior's contribution).
    any_prior: bool,
    /// The total weight of the lists that read a signal and ranked anything.
    weight: f64,
}

impl<'a> Lists<'a> {
    pub(super) fn new(
        inputs: &'a [Weighted<'a>],
        signals: Vec<Option<&'a str>>,
        fuser: &'a dyn Fuser,
    ) -> Lists<'a> {
        let any_prior = inputs
            .iter()
            .zip(&signals)
            .any(|(i, signal)| signal.is_none() && !i.ranking().is_empty());
        let mut lists = Lists {
            inputs,
            signals,
            fuser,
            any_prior,
            weight: 0.0,
        };
        lists.weight = lists.weight_without(&[]);
        lists
    }

    /// The total weight of the lists that read a signal, other than `unjudged`, and ranked
    /// anything.
    fn weight_without(&self, unjudged: &[&str]) -> f64 {
        self.inputs
            .iter()
            .zip(&self.signals)
            .filter(|(i, signal)| {
                !i.ranking().is_empty() && signal.is_some_and(|s| !unjudged.contains(&s))
            })
            .map(|(i, _)| i.weight())
            .sum()
    }
}

impl<'a> Estimator<'a> {
    /// `models`: the pipeline's relevance model, the one for unjudged candidates, and the
    /// answerable models for judged and unjudged candidates.
    pub(super) fn new(
        [calibration, unjudged_calibration, answerable, unjudged_answerable]: [&'a Calibration; 4],
        query: &Query<'_>,
        candidates: &'a Candidates,
        lists: Lists<'a>,
    ) -> Estimator<'a> {
        let terms = candidates.terms(query.text);
        let signals: Vec<SignalFeatures<'a>> = candidates
            .signal_names()
            .filter_map(|name| {
                let signal = candidates.signal(name)?;
                // The best score and how far it stands out, in one pass over the scores.
                let mut best = 0.0f64;
                let gap = gap(candidates.scores(name).map(|(_, s)| {
                    best = best.max(s);
                    s.max(0.0).ln_1p()
                }));
                Some(SignalFeatures {
                    name,
                    share: format!("{name}{SHARE_SUFFIX}"),
                    signal,
                    best,
                    gap,
                })
            })
            .collect();
        let models = [
            calibration,
            unjudged_calibration,
            answerable,
            unjudged_answerable,
        ];
        let mut features = Features::default();
        features.set(QUERY_TERMS, (1.0 + terms.len() as f64).ln());
        let reads = |feature| models.iter().any(|m| m.reads(feature));
        if reads(COVERAGE_BEST) || reads(TERMS_FOUND) {
            let mut found = vec![false; terms.len()];
            let mut best = 0.0f64;
            for held in candidates.iter().filter_map(|c| terms.of(c.id())) {
                for (f, h) in found.iter_mut().zip(&held.held) {
                    *f |= h;
                }
                best = best.max(held.coverage);
            }
            features.set(COVERAGE_BEST, best);
            let all_found = !terms.is_empty() && found.iter().all(|&f| f);
            features.set(TERMS_FOUND, f64::from(u8::from(all_found)));
        }
        if reads(WEIGHTED_COVERAGE_BEST) {
            let best = candidates
                .iter()
                .filter_map(|c| terms.of(c.id()))
                .map(|held| held.weighted_coverage)
                .fold(0.0, f64::max);
            features.set(WEIGHTED_COVERAGE_BEST, best);
        }
        if reads(COVERAGE_GAP) {
            let coverage = candidates
                .iter()
                .filter_map(|c| terms.of(c.id()))
                .map(|held| held.coverage);
            features.set(COVERAGE_GAP, gap(coverage));
        }
        if let Some(n) = candidates.searched() {
            features.set(MEMORIES, (n as f64).ln_1p());
        }
        for sf in &signals {
            features.set(
                format!("{}{BEST_SUFFIX}", sf.name),
                sf.best.max(0.0).ln_1p(),
            );
            features.set(format!("{}{GAP_SUFFIX}", sf.name), sf.gap);
        }
        Estimator {
            calibration,
            unjudged_calibration,
            terms,
            answerable: answerable.probability(&features),
            unjudged_answerable: unjudged_answerable.probability(&features),
            query: features,
            signals,
            lists,
        }
    }

    /// Sets `s`'s features and probability.
    pub(super) fn estimate(&self, s: &mut Scored) {
        // Every candidate's terms were read: an id without them is no candidate.
        let Some(held) = self.terms.of(s.id) else {
            return;
        };
        // The signals that could not judge it, when there is a model for such a candidate.
        let unjudged: Vec<&str> = if self.unjudged_calibration.is_empty() {
            Vec::new()
        } else {
            self.signals
                .iter()
                .filter(|sf| sf.signal.unjudged(s.id))
                .map(|sf| sf.name)
                .collect()
        };
        let mut f = self.query.clone();
        for sf in self
            .signals
            .iter()
            .filter(|sf| !unjudged.contains(&sf.name))
        {
            let positive = sf.signal.get(s.id).unwrap_or(0.0).max(0.0);
            f.set(sf.name, positive.ln_1p());
            let share = if sf.best > 0.0 {
                positive / sf.best
            } else {
                0.0
            };
            f.set(sf.share.as_str(), share);
        }
        f.set(COVERAGE, held.coverage);
        f.set(WEIGHTED_COVERAGE, held.weighted_coverage);
        let Lists {
            inputs,
            signals,
            fuser,
            any_prior,
            ..
        } = &self.lists;
        let priors: f64 = if *any_prior {
            fuser
                .contributions(inputs, s.id)
                .iter()
                .zip(signals)
                .filter(|(_, signal)| signal.is_none())
                .map(|(c, _)| c)
                .sum()
        } else {
            0.0
        };
        let fused = s.parts.evidence(priors);
        let total_weight = if unjudged.is_empty() {
            self.lists.weight
        } else {
            self.lists.weight_without(&unjudged)
        };
        f.set(
            FUSED,
            if total_weight > 0.0 {
                fused / total_weight
            } else {
                0.0
            },
        );
        let (relevance, answerable) = if !unjudged.is_empty() {
            (
                self.unjudged_calibration.probability(&f),
                self.unjudged_answerable,
            )
        } else {
            (self.calibration.probability(&f), self.answerable)
        };
        s.probability = relevance.map(|p| p * answerable.unwrap_or(1.0));
        s.features = f;
    }
}
