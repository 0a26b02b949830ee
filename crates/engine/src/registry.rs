//! [`Registry`]: the plug-ins a configuration can name.

use std::sync::Arc;

use oro_mem_core::config::RecallConfig;
use oro_mem_core::{Config, Error, Fuser, Mode, Ranker, Result};
use oro_mem_fusion::{Rrf, WeightedMax, WeightedScore, WeightedZ};
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_rank_vector::VectorRanker;

use crate::feedback::{Feedback, FeedbackRanker};
use crate::rankers::{AccessFrequency, Coord, Proximity, Recency, Spatial};
use crate::source::{CandidateSource, Lexical, Nearest};

/// Makes a fuser from the recall settings (for its parameters, such as RRF's `k`).
pub type FuserFactory = Arc<dyn Fn(&RecallConfig) -> Result<Box<dyn Fuser>> + Send + Sync>;

/// Makes a ranker from the configuration.
pub type RankerFactory = Arc<dyn Fn(&Config) -> Result<Box<dyn Ranker>> + Send + Sync>;

/// Makes a candidate source from the configuration.
pub type SourceFactory = Arc<dyn Fn(&Config) -> Result<Box<dyn CandidateSource>> + Send + Sync>;

/// The plug-ins a configuration can name: candidate sources, rankers and fusers, each by
/// name, and which sources each [`Mode`] runs.
///
/// [`Registry::default`] holds the built-in ones; [`Registry::ranker`], [`Registry::source`]
/// and [`Registry::fuser`] add another or replace one of the same name. A ranker takes part in
/// recall when `recall.weights` gives it a weight above 0 and the mode runs the source of the
/// signal it reads, if any; adding one is a type and a registration:
///
/// ```
/// use oro_mem_core::{Candidates, Config, Query, Ranker, Ranking, Result};
/// use oro_mem_engine::{Engine, Registry};
///
/// /// Shorter memories first.
/// struct Brevity;
/// impl Ranker for Brevity {
///     fn name(&self) -> &str { "brevity" }
///     fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
///         Ok(Ranking::from_scores(c.iter().map(|c| (c.id(), -(c.memory.content.len() as f64)))))
///     }
/// }
///
/// let registry = Registry::default().ranker("brevity", |_| Ok(Box::new(Brevity)));
/// let mut config = Config::default();
/// config.recall.weights.set("brevity", 0.5);
/// let engine = Engine::with_registry(config, registry)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Registry {
    sources: Vec<(String, SourceFactory)>,
    rankers: Vec<(String, RankerFactory)>,
    fusers: Vec<(String, FuserFactory)>,
    modes: Vec<(Mode, Vec<String>)>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("sources", &names(&self.sources).collect::<Vec<_>>())
            .field("rankers", &self.ranker_names().collect::<Vec<_>>())
            .field("fusers", &self.fuser_names().collect::<Vec<_>>())
            .field("modes", &self.modes)
            .finish()
    }
}

impl Default for Registry {
    /// The built-in plug-ins:
    ///
    /// - sources `lexical` (FTS5 BM25, `recall.depth`; with `recall.score_all_lexically`, it
    ///   also scores the candidates other sources found), `vector` (nearest embeddings,
    ///   `recall.vector_depth`, gated at `recall.min_similarity`) and `feedback`
    ///   (pseudo-relevance feedback, `recall.feedback_docs` and `recall.feedback_terms`, which
    ///   searches only when `recall.weights.feedback` is above 0); `fts` mode runs the first
    ///   and the third, `vector` the second, `hybrid` all three;
    /// - rankers `bm25` (reads `lexical`), `vector` (reads `vector`), `recency`, `access`,
    ///   `spatial` (the query's point, if any), `coord` (the share of the query's terms a
    ///   memory holds), `proximity` and `feedback` (reads `feedback`);
    /// - fusers `weighted_score`, `weighted_max`, `weighted_z` and `rrf` (with `recall.rrf_k`).
    fn default() -> Registry {
        Registry::empty()
            .source("lexical", |c| {
                Ok(Box::new(Lexical {
                    depth: c.recall.depth,
                    score_others: c.recall.score_all_lexically,
                }))
            })
            .source("vector", |c| {
                Ok(Box::new(Nearest {
                    depth: c.recall.vector_depth,
                    min_similarity: c.recall.min_similarity,
                }))
            })
            .source("feedback", |c| {
                // Runs nothing unless a weight fuses its list.
                let on = c.recall.weights.get("feedback") > 0.0;
                Ok(Box::new(Feedback {
                    depth: c.recall.depth,
                    docs: c.recall.feedback_docs,
                    terms: if on { c.recall.feedback_terms } else { 0 },
                }))
            })
            .ranker("bm25", |_| Ok(Box::new(Bm25Ranker)))
            .ranker("vector", |_| Ok(Box::new(VectorRanker)))
            .ranker("recency", |_| Ok(Box::new(Recency)))
            .ranker("access", |_| Ok(Box::new(AccessFrequency)))
            .ranker("spatial", |_| Ok(Box::new(Spatial)))
            .ranker("coord", |_| Ok(Box::new(Coord)))
            .ranker("proximity", |_| Ok(Box::new(Proximity)))
            .ranker("feedback", |_| Ok(Box::new(FeedbackRanker)))
            .fuser("weighted_score", |_| Ok(Box::new(WeightedScore)))
            .fuser("weighted_max", |_| Ok(Box::new(WeightedMax)))
            .fuser("weighted_z", |_| Ok(Box::new(WeightedZ)))
            .fuser("rrf", |r| Ok(Box::new(Rrf::new(r.rrf_k)?)))
            .mode(Mode::Fts, ["lexical", "feedback"])
            .mode(Mode::Hybrid, ["lexical", "vector", "feedback"])
            .mode(Mode::Vector, ["vector"])
    }
}

impl Registry {
    /// A registry with nothing in it.
    pub fn empty() -> Registry {
        Registry {
            sources: Vec::new(),
            rankers: Vec::new(),
            fusers: Vec::new(),
            modes: Vec::new(),
        }
    }

    /// Registers the candidate source `name` (also the name of its signal), made by `make`
    /// from the configuration; replaces one of the same name. [`Registry::mode`] says which
    /// modes run it.
    pub fn source(
        mut self,
        name: impl Into<String>,
        make: impl Fn(&Config) -> Result<Box<dyn CandidateSource>> + Send + Sync + 'static,
    ) -> Registry {
        put(&mut self.sources, name.into(), Arc::new(make));
        self
    }

    /// Registers the ranker `name` (the key of its weight in `recall.weights`), made by `make`
    /// from the configuration; replaces one of the same name. Rankers fuse in registration
    /// order.
    pub fn ranker(
        mut self,
        name: impl Into<String>,
        make: impl Fn(&Config) -> Result<Box<dyn Ranker>> + Send + Sync + 'static,
    ) -> Registry {
        put(&mut self.rankers, name.into(), Arc::new(make));
        self
    }

    /// Sets the candidate sources `mode` runs, in order (earlier sources' candidates come
    /// first).
    pub fn mode<S: Into<String>>(
        mut self,
        mode: Mode,
        sources: impl IntoIterator<Item = S>,
    ) -> Registry {
        let sources: Vec<String> = sources.into_iter().map(Into::into).collect();
        match self.modes.iter_mut().find(|(m, _)| *m == mode) {
            Some(slot) => slot.1 = sources,
            None => self.modes.push((mode, sources)),
        }
        self
    }

    /// The registered rankers' names, in registration order.
    pub fn ranker_names(&self) -> impl Iterator<Item = &str> {
        names(&self.rankers)
    }

    /// The sources `mode` runs (none if unset).
    pub fn mode_sources(&self, mode: Mode) -> &[String] {
        self.modes
            .iter()
            .find(|(m, _)| *m == mode)
            .map_or(&[], |(_, s)| s.as_slice())
    }

    /// Makes the sources `mode` runs.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) for a source nobody
    /// registered, or what a factory says.
    pub fn make_sources(
        &self,
        config: &Config,
        mode: Mode,
    ) -> Result<Vec<Box<dyn CandidateSource>>> {
        self.mode_sources(mode)
            .iter()
            .map(|name| {
                let make = find(&self.sources, name).ok_or_else(|| {
                    Error::config(format!(
                        "mode {mode} runs the candidate source {name:?}, which is not \
                         registered: expected {}",
                        one_of(names(&self.sources))
                    ))
                })?;
                make(config)
            })
            .collect()
    }

    /// Every ranker with a weight above 0 in `config`, in registration order, with its weight.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) for a weight of a ranker
    /// nobody registered (the message names it and those that are), or what a factory says.
    pub fn make_rankers(&self, config: &Config) -> Result<Vec<(Box<dyn Ranker>, f64)>> {
        let weights = &config.recall.weights;
        if let Some((unknown, _)) = weights
            .iter()
            .find(|(n, _)| find(&self.rankers, n).is_none())
        {
            return Err(Error::config(format!(
                "recall.weights.{unknown}: no ranker is called {unknown:?}; expected {}",
                one_of(self.ranker_names())
            )));
        }
        self.rankers
            .iter()
            .map(|(name, make)| (make, weights.get(name)))
            .filter(|&(_, w)| w != 0.0)
            .map(|(make, w)| Ok((make(config)?, w)))
            .collect()
    }

    /// Registers the fuser `name`, made by `make` from the recall settings; replaces one of
    /// the same name.
    pub fn fuser(
        mut self,
        name: impl Into<String>,
        make: impl Fn(&RecallConfig) -> Result<Box<dyn Fuser>> + Send + Sync + 'static,
    ) -> Registry {
        put(&mut self.fusers, name.into(), Arc::new(make));
        self
    }

    /// The registered fusers' names, in registration order.
    pub fn fuser_names(&self) -> impl Iterator<Item = &str> {
        names(&self.fusers)
    }

    /// The fuser `recall.fusion` names, made from `recall`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) for a name nobody registered
    /// (the message lists those that are), or what the factory says of its parameters.
    pub fn make_fuser(&self, recall: &RecallConfig) -> Result<Box<dyn Fuser>> {
        let name = &recall.fusion;
        let (_, make) = self.fusers.iter().find(|(n, _)| n == name).ok_or_else(|| {
            Error::config(format!(
                "unknown fuser {name:?} in recall.fusion: expected {}",
                one_of(self.fuser_names())
            ))
        })?;
        make(recall)
    }
}

fn put<T>(list: &mut Vec<(String, T)>, name: String, item: T) {
    match list.iter_mut().find(|(n, _)| *n == name) {
        Some(slot) => slot.1 = item,
        None => list.push((name, item)),
    }
}

fn find<'a, T>(list: &'a [(String, T)], name: &str) -> Option<&'a T> {
    list.iter().find(|(n, _)| n == name).map(|(_, t)| t)
}

fn names<T>(list: &[(String, T)]) -> impl Iterator<Item = &str> {
    list.iter().map(|(n, _)| n.as_str())
}

/// `a, b or c`.
pub(crate) fn one_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        None => "nothing (none is registered)".to_string(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fuser_is_named_with_the_registered_ones() {
        let recall = RecallConfig {
            fusion: "borda".to_string(),
            ..RecallConfig::default()
        };
        let Err(err) = Registry::default().make_fuser(&recall) else {
            panic!("an unknown fuser was made");
        };
        assert_eq!(
            err.to_string(),
            "unknown fuser \"borda\" in recall.fusion: expected weighted_score, weighted_max, weighted_z or rrf"
        );
    }

    #[test]
    fn a_registered_fuser_replaces_one_of_the_same_name() {
        let registry = Registry::default().fuser("rrf", |_| Ok(Box::new(Rrf::new(1.0)?)));
        assert_eq!(
            registry.fuser_names().collect::<Vec<_>>(),
            ["weighted_score", "weighted_max", "weighted_z", "rrf"]
        );
        let recall = RecallConfig {
            fusion: "rrf".to_string(),
            rrf_k: 60.0,
            ..RecallConfig::default()
        };
        let fuser = registry.make_fuser(&recall).unwrap();
        assert_eq!(
            fuser.pinned_bonus(),
            1.0 / 2.0 - 1.0 / 12.0,
            "k = 1, not 60"
        );
    }

    #[test]
    fn an_unknown_weight_is_named_with_the_registered_rankers() {
        let mut config = Config::default();
        config.recall.weights.set("brevity", 1.0);
        let Err(err) = Registry::default().make_rankers(&config) else {
            panic!("an unknown ranker was weighted");
        };
        assert_eq!(
            err.to_string(),
            "recall.weights.brevity: no ranker is called \"brevity\"; expected bm25, vector, \
             recency, access, spatial, coord, proximity or feedback"
        );
    }

    #[test]
    fn rankers_of_weight_zero_are_left_out_in_registration_order() {
        let rankers = Registry::default()
            .make_rankers(&Config::default())
            .unwrap();
        let got: Vec<_> = rankers.iter().map(|(r, w)| (r.name(), *w)).collect();
        assert_eq!(
            got,
            [
                ("bm25", 1.0),
                ("vector", 1.0),
                ("access", 0.4),
                ("spatial", 1.0),
                ("coord", 0.5),
                ("proximity", 0.25)
            ]
        );
    }

    #[test]
    fn bad_rrf_k_is_refused_by_the_factory() {
        let recall = RecallConfig {
            fusion: "rrf".to_string(),
            rrf_k: f64::NAN,
            ..RecallConfig::default()
        };
        assert!(Registry::default().make_fuser(&recall).is_err());
    }
}
