//! Fitting each setting's relevance model on judged queries and scoring recall, as
//! recalled, on queries the model was not fitted on.

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use oro_mem_core::calibration::{
    Calibration, COVERAGE_BEST, COVERAGE_GAP, INTERCEPT, MEMORIES, TERMS_FOUND,
    WEIGHTED_COVERAGE_BEST,
};
use oro_mem_core::{Config, Error, ErrorKind, Result};
use serde::Serialize;

use crate::calibration::{fit, fit_answerable, log_loss, Example, UNRELATED_GROUP};
use crate::grid::{ranking_only, Setting, RANKED};
use crate::metrics::QueryResult;
use crate::session::Session;
use crate::{Dataset, EvalQuery};

/// Candidates per query a model is fitted on: the best this many of the ranking, which is
/// where the relevance bar decides what is returned.
pub const FIT_DEPTH: usize = 20;

/// How a setting's model was fitted and scored.
#[derive(Debug, Serialize)]
pub struct Fitted {
    /// How the scored queries were kept out of the fit.
    pub method: String,
    /// The relevance model fitted on every example (this dataset's and `--fit-also`'s): the
    /// one to ship.
    pub calibration: Calibration,
    /// The answerable model fitted on every query of those examples.
    pub answerable: Calibration,
    /// Its mean log loss on those examples (in sample).
    pub log_loss: f64,
    /// How many examples it was fitted on.
    pub examples: usize,
    /// How many of them are relevant.
    pub relevant: usize,
}

impl Session {
    /// The examples of one setting: the best [`FIT_DEPTH`] candidates of every query, by the
    /// setting's ranking, with their features, their document in `dataset` (the corpus's) and
    /// whether the qrels judge them relevant, and whether the store the query searched holds
    /// any document the qrels judge relevant ([`Example::answerable`]: a judged query
    /// searches its namespace, and one of `scripts/small-stores`' stores asked about another
    /// conversation holds none); queries that are not `judged` (another dataset's, searched
    /// over the whole store) have none relevant, and are grouped by their own namespace
    /// ([`unrelated_group`]).
    pub(crate) fn collect(
        &mut self,
        dataset: &Dataset,
        judged: bool,
        queries: &[EvalQuery],
        setting: &Setting,
    ) -> Result<Vec<Example>> {
        let mut engine = self.engine.reconfigured(featured(&setting.config))?;
        let namespace_of: HashMap<&str, Option<&str>> = dataset
            .docs
            .iter()
            .map(|d| (d.id.as_str(), d.namespace.as_deref()))
            .collect();
        let mut out = Vec::new();
        for q in queries {
            let namespace = q.namespace.as_deref().filter(|_| judged);
            // A query marked no_relevant has no judgments.
            let judgments = dataset.qrels.get(&q.id).filter(|_| judged);
            let knows = judgments.is_some_and(|j| {
                j.iter().any(|(doc, &g)| {
                    g > 0
                        && namespace_of
                            .get(doc.as_str())
                            .is_some_and(|&ns| namespace.is_none() || ns == namespace)
                })
            });
            let answer = self.ask(&mut engine, &format!("query {}", q.id), &q.text, namespace)?;
            for r in &answer.recall.results {
                let doc = self.doc(dataset, r.memory.id);
                let (group, relevant) = if judged {
                    let relevant = judgments.and_then(|j| j.get(doc)).is_some_and(|&g| g > 0);
                    (group(dataset, q), relevant)
                } else {
                    (unrelated_group(q), false)
                };
                let mut example = Example::new(
                    group,
                    q.id.clone(),
                    Some(doc.to_string()),
                    relevant,
                    &r.features,
                );
                example.answerable = Some(knows);
                out.push(example);
            }
        }
        Ok(out)
    }

    /// Fits `setting`'s model on `examples` and `also`, and scores recall with it as
    /// recalled on the held-out queries. Returns the results and the model fitted on
    /// everything.
    pub(crate) fn score_fitted(
        &mut self,
        dataset: &Dataset,
        setting: &Setting,
        on: FitOn<'_>,
        held_out: HeldOut<'_>,
    ) -> Result<(Vec<QueryResult>, Fitted)> {
        let FitOn { examples, also, .. } = on;
        let all = models(on, None);
        let relevant = examples.iter().chain(also).filter(|e| e.relevant).count();
        let fitted = |method: &str| Fitted {
            method: method.to_string(),
            log_loss: log_loss(&all.0, examples.iter().chain(also)),
            calibration: all.0.clone(),
            answerable: all.1.clone(),
            examples: examples.len() + also.len(),
            relevant,
        };
        Ok(match held_out {
            HeldOut::EachNamespace(queries) => {
                let groups: BTreeSet<String> = queries.iter().map(|q| group(dataset, q)).collect();
                let mut results = Vec::with_capacity(queries.len());
                for g in &groups {
                    let model = models(on, Some(g));
                    let held: Vec<EvalQuery> = queries
                        .iter()
                        .filter(|q| group(dataset, q) == *g)
                        .cloned()
                        .collect();
                    let calibrated = calibrated(setting, &model.0, &model.1);
                    results.extend(self.evaluate(dataset, &held, &calibrated)?);
                }
                (results, fitted("fitted leaving each namespace out"))
            }
            HeldOut::Split(other, queries) => (
                self.evaluate(other, queries, &calibrated(setting, &all.0, &all.1))?,
                fitted(&format!(
                    "fitted on another split, scored on {}",
                    other.split
                )),
            ),
            HeldOut::InSample(queries) => (
                self.evaluate(dataset, queries, &calibrated(setting, &all.0, &all.1))?,
                fitted("fitted and scored on the same queries (in sample)"),
            ),
        })
    }
}

/// `config` made to return, as a ranking, the best [`FIT_DEPTH`] candidates with every
/// feature its mode's models may read.
fn featured(config: &Config) -> Config {
    let mut config = config.clone();
    ranking_only(&mut config, RANKED);
    config.recall.max_results = FIT_DEPTH;
    config.recall.order = oro_mem_core::config::Order::Score;
    // Features are computed for a pipeline with a calibration; a constant one changes
    // nothing else.
    let mode = config.mode;
    if config.recall.calibration.get(mode).is_empty() {
        config.recall.calibration.get_mut(mode).set(INTERCEPT, 0.0);
    }
    // The best coverage, how far it stands out and the number of memories searched are
    // computed only for a model that reads them; a coefficient of 0 changes no estimate.
    let answerable = config.recall.answerable.get_mut(mode);
    for feature in [
        COVERAGE_BEST,
        COVERAGE_GAP,
        MEMORIES,
        TERMS_FOUND,
        WEIGHTED_COVERAGE_BEST,
    ] {
        if !answerable.reads(feature) {
            answerable.set(feature, 0.0);
        }
    }
    config
}

/// The held-out group of `q`: its dataset and namespace, where a namespace `NS#k` (a store
/// derived from `NS`, as `scripts/small-stores` writes them) counts as `NS`.
pub(crate) fn group(dataset: &Dataset, q: &EvalQuery) -> String {
    format!("{}/{}", dataset.name(), source(q))
}

/// The group of another dataset's query `q` asked of a store that knows nothing about it:
/// [`UNRELATED_GROUP`], followed by `/` and its namespace's source when it has one (see
/// [`group`]), so that a fold leaving its conversation out leaves it out too.
fn unrelated_group(q: &EvalQuery) -> String {
    match source(q) {
        "" => UNRELATED_GROUP.to_string(),
        ns => format!("{UNRELATED_GROUP}/{ns}"),
    }
}

/// The namespace `q`'s store derives from (`NS` for `NS#k`), empty without one.
fn source(q: &EvalQuery) -> &str {
    let namespace = q.namespace.as_deref().unwrap_or_default();
    namespace.split_once('#').map_or(namespace, |(ns, _)| ns)
}

/// True when an example of group `example` comes from the same source namespace as held-out
/// group `held`, in any dataset: a fold leaves out the stores derived from its conversation
/// too, whichever file their examples were read from (`--fit-also`).
fn same_source(example: &str, held: &str) -> bool {
    // A group is `dataset/namespace`, and a namespace may hold slashes (`owner/repo`).
    fn namespace(group: &str) -> &str {
        group.split_once('/').map_or("", |(_, ns)| ns)
    }
    let ns = namespace(held);
    !ns.is_empty() && namespace(example) == ns
}

/// Reads examples written by `--features`.
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) naming the file (and
/// the line) that cannot be read or is not an example.
pub fn read_examples(path: &Path) -> Result<Vec<Example>> {
    let unreadable = |e: std::io::Error| {
        Error::invalid_input(format!("cannot read {}: {e}", path.display())).with_source(e)
    };
    let file = File::open(path).map_err(unreadable)?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(unreadable)?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).map_err(|e| {
            Error::invalid_input(format!("{}:{}: not an example: {e}", path.display(), i + 1))
        })?);
    }
    Ok(out)
}

/// `examples` without the features named in `left_out`.
pub fn without(mut examples: Vec<Example>, left_out: &[String]) -> Vec<Example> {
    if !left_out.is_empty() {
        for e in &mut examples {
            e.features.retain(|name, _| !left_out.contains(name));
        }
    }
    examples
}

/// Writes `examples`, one JSON object per line.
///
/// # Errors
///
/// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) naming the file that cannot be
/// written.
pub fn write_examples(path: &Path, examples: &[Example]) -> Result<()> {
    let unwritable = |e: std::io::Error| {
        Error::new(
            ErrorKind::Storage,
            format!("cannot write {}: {e}", path.display()),
        )
        .with_source(e)
    };
    let mut w = BufWriter::new(File::create(path).map_err(unwritable)?);
    for e in examples {
        serde_json::to_writer(&mut w, e)
            .map_err(std::io::Error::from)
            .map_err(unwritable)?;
        w.write_all(b"\n").map_err(unwritable)?;
    }
    w.flush().map_err(unwritable)
}

/// `setting`'s configuration with `relevance` and `answerable` as its mode's models.
pub(crate) fn calibrated(
    setting: &Setting,
    relevance: &Calibration,
    answerable: &Calibration,
) -> Setting {
    let mut config: Config = setting.config.clone();
    *config.recall.calibration.get_mut(config.mode) = relevance.clone();
    *config.recall.answerable.get_mut(config.mode) = answerable.clone();
    Setting {
        settings: setting.settings.clone(),
        config,
    }
}

/// What to score a setting's models on.
pub(crate) enum HeldOut<'a> {
    /// Each namespace of the queries, with a model fitted without it.
    EachNamespace(&'a [EvalQuery]),
    /// Other queries (another split), with a model fitted on every example.
    Split(&'a Dataset, &'a [EvalQuery]),
    /// The queries fitted on (in sample).
    InSample(&'a [EvalQuery]),
}

/// What a setting's models are fitted on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FitOn<'a> {
    /// The setting's own examples.
    pub(crate) examples: &'a [Example],
    /// The examples of other datasets ([`Fit::also`](crate::Fit::also)).
    pub(crate) also: &'a [Example],
    /// The features of the query the relevance model reads too
    /// ([`Fit::relevance_with`](crate::Fit::relevance_with)).
    pub(crate) relevance_with: &'a [String],
}

/// The relevance and answerable models fitted on `on`'s examples, without the examples of
/// group `held_out` and those from the same source namespace ([`same_source`]), when given.
pub(crate) fn models(on: FitOn<'_>, held_out: Option<&str>) -> (Calibration, Calibration) {
    let used = || {
        on.examples
            .iter()
            .chain(on.also)
            .filter(move |e| held_out.is_none_or(|g| e.group != g && !same_source(&e.group, g)))
    };
    (fit(used(), on.relevance_with), fit_answerable(used()))
}

/// `fitted`'s models as the configuration file's sections for `mode`.
pub(crate) fn as_toml(mode: oro_mem_core::Mode, fitted: &Fitted) -> String {
    let mut s = String::new();
    for (table, model) in [
        ("calibration", &fitted.calibration),
        ("answerable", &fitted.answerable),
    ] {
        s.push_str(&format!("[recall.{table}.{mode}]\n"));
        for (n, c) in model.iter() {
            s.push_str(&format!("{n} = {}\n", (c * 1e4).round() / 1e4));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_stores_are_held_out_with_their_source() {
        assert!(same_source("related/conv-26", "locomo-dev/conv-26"));
        assert!(same_source("locomo-dev/conv-26", "unrelated/conv-26"));
        assert!(!same_source("related/conv-30", "locomo-dev/conv-26"));
        // Datasets without namespaces (SciFact) are never held out this way.
        assert!(!same_source("scifact/", "other/"));
    }

    #[test]
    fn another_datasets_questions_are_held_out_with_their_conversation() {
        let query = |namespace: Option<&str>| EvalQuery {
            id: "q".into(),
            text: "what did Caroline research".into(),
            namespace: namespace.map(str::to_string),
            category: None,
            no_relevant: false,
        };
        assert_eq!(unrelated_group(&query(None)), UNRELATED_GROUP);
        assert_eq!(
            unrelated_group(&query(Some("conv-26#3"))),
            "unrelated/conv-26"
        );
        // Three answerable queries of one conversation, three unrelated ones of another: a
        // model fitted without the second knows only queries the store could answer.
        let example = |group: &str, i: usize, answerable: bool| Example {
            group: group.into(),
            query: format!("{group}:{i}"),
            doc: None,
            relevant: answerable,
            answerable: Some(answerable),
            features: [(COVERAGE_BEST.to_string(), i as f64 / 3.0)].into(),
        };
        let examples: Vec<Example> = (0..3)
            .map(|i| example("locomo-dev/conv-30", i, true))
            .chain((0..3).map(|i| example("unrelated/conv-26", i, false)))
            .collect();
        let answerable = |held: Option<&str>| {
            let (_, model) = models(
                FitOn {
                    examples: &examples,
                    also: &[],
                    relevance_with: &[],
                },
                held,
            );
            model.get(INTERCEPT)
        };
        assert!(answerable(Some("locomo-dev/conv-26")) > 0.0);
        assert!(answerable(Some("locomo-dev/conv-30")) < 0.0);
        assert!(answerable(None) != answerable(Some("locomo-dev/conv-26")));
    }
}
