//! [`Engine`]: configuration in, recall out.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use oro_mem_core::calibration::{MEMORIES, MEMORIES_COUNTED};
use oro_mem_core::config::{ANSWERABLE_PREFIX, CALIBRATION_PREFIX};
use oro_mem_core::{
    Candidate, CandidateSearch, Candidates, Config, Error, Filter, Fuser, Memory, MemoryId,
    MemoryWrite, Mode, Query, Ranker, Result, Scoring, Signal,
};
use oro_mem_fusion::Scaled;
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_rank_vector::{Embedder, VectorRanker};
use oro_mem_text::is_mostly_cjk;
use serde::Serialize;

use crate::pipeline::{Abstention, Pipeline, Recall};
use crate::registry::Registry;
use crate::source::{CandidateSource, QueryEmbedding, SourceContext};

/// A ranker and its weight.
type Weighted = (Box<dyn Ranker>, f64);

/// `scoring = "simple"`: BM25 divided by this, capped at 1 (the original formula).
const SIMPLE_BM25_SCALE: f64 = 25.0;

/// Longest query prefix given to the model. MiniLM reads at most 256 word pieces (about a
/// thousand characters of English); tokenizing more only costs time.
const MAX_EMBEDDED_QUERY_BYTES: usize = 4096;

/// Makes the embedding model when the engine first needs one.
pub type EmbedderLoader = Arc<dyn Fn() -> Result<Arc<dyn Embedder>> + Send + Sync>;

/// A recall and the mode that actually answered it.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The mode asked for.
    pub requested_mode: Mode,
    /// The mode used: FTS when the model could not run.
    pub mode: Mode,
    /// What answered: the mode, or in hybrid mode `bm25_only` or `vec_only` when one list
    /// ranked nothing (the reason is in the warnings).
    pub answered_by: &'static str,
    /// The results.
    #[serde(flatten)]
    pub recall: Recall,
}

/// What answered a recall in `mode` ([`Answer::answered_by`]), and why only one list did in
/// hybrid mode, when results came from one alone.
fn answered_by(mode: Mode, recall: &Recall, min_similarity: f64) -> (&'static str, Option<String>) {
    let ranked = |name: &str| recall.ranked_by.iter().any(|n| n == name);
    match mode {
        Mode::Fts => ("fts", None),
        Mode::Vector => ("vector", None),
        Mode::Hybrid if recall.results.is_empty() || ranked("bm25") == ranked("vector") => {
            ("hybrid", None)
        }
        Mode::Hybrid if ranked("vector") => (
            "vec_only",
            Some(
                "no memory matches a word of the query: the vector list answered alone \
                 (vec_only)"
                    .to_string(),
            ),
        ),
        Mode::Hybrid => (
            "bm25_only",
            Some(format!(
                "no embedded memory is similar enough to the query (cosine >= \
                 {min_similarity}): the BM25 list answered alone (bm25_only)"
            )),
        ),
    }
}

/// What the candidate stage found: [`Engine::candidates`].
#[derive(Debug)]
pub struct Gathered {
    /// The candidates, with a signal per source.
    pub candidates: Candidates,
    /// The mode that answered: the one asked for, or FTS when the model could not run.
    pub mode: Mode,
    /// The signals given (the sources' names).
    pub signals: Vec<String>,
    /// Problems that did not stop recall.
    pub warnings: Vec<String>,
}

/// What the engine runs in one mode, made once from the configuration.
struct Plan {
    mode: Mode,
    sources: Vec<Box<dyn CandidateSource>>,
    pipeline: Pipeline,
}

/// Recall composed from a [`Config`], with the embedding model it needs.
pub struct Engine {
    config: Config,
    registry: Registry,
    /// One per [`Mode`].
    plans: Vec<Plan>,
    /// The model once loaded, shared with every engine [reconfigured](Engine::reconfigured)
    /// from this one, so that it loads once per process whichever of them needs it first.
    embedder: Arc<Mutex<Option<Arc<dyn Embedder>>>>,
    loader: EmbedderLoader,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .field("registry", &self.registry)
            .field("embedder", &self.loaded().map(|e| e.model_id().to_string()))
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// The engine `config` describes, with the built-in plug-ins ([`Registry::default`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) naming the first invalid
    /// setting.
    pub fn from_config(config: Config) -> Result<Engine> {
        Engine::with_registry(config, Registry::default())
    }

    /// The engine `config` describes, whose names (fusers, ...) are looked up in `registry`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) naming the first invalid
    /// setting, or a name `registry` does not hold.
    pub fn with_registry(config: Config, registry: Registry) -> Result<Engine> {
        config.validate()?;
        // Every mode's plug-ins are made here, once: a bad name fails now rather than at the
        // first recall, and recall makes none.
        let plans = Mode::ALL
            .into_iter()
            .map(|mode| {
                let config = of_mode(&config, mode);
                let mut sources = registry.make_sources(&config, mode)?;
                sources.retain(|s| s.runs());
                let signals: Vec<&str> = sources.iter().map(|s| s.name()).collect();
                let pipeline = pipeline_for(&config, &registry, mode, &signals)?;
                Ok(Plan {
                    mode,
                    sources,
                    pipeline,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Engine {
            config,
            registry,
            plans,
            embedder: Arc::default(),
            loader: Arc::new(default_embedder),
        })
    }

    /// The same engine under another configuration, keeping the model (loaded or given) and
    /// the loader: for per-call settings such as a recall's `--mode` or `--limit`.
    ///
    /// # Errors
    ///
    /// As [`Engine::from_config`].
    pub fn reconfigured(&self, config: Config) -> Result<Engine> {
        Ok(Engine {
            embedder: self.embedder.clone(),
            loader: self.loader.clone(),
            ..Engine::with_registry(config, self.registry.clone())?
        })
    }

    /// Uses `embedder` for queries and writes instead of loading the default model.
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Engine {
        self.embedder = Arc::new(Mutex::new(Some(embedder)));
        self
    }

    /// Makes the model with `loader` when one is first needed (instead of the default model).
    pub fn with_loader(mut self, loader: EmbedderLoader) -> Engine {
        self.loader = loader;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The plug-ins the configuration's names are looked up in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The embedding model, loaded on first use and kept.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`](oro_mem_core::ErrorKind::Embedding) when it cannot load; the
    /// next call tries again.
    pub fn embedder(&mut self) -> Result<Arc<dyn Embedder>> {
        let mut cell = self
            .embedder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = &*cell {
            return Ok(e.clone());
        }
        let e = (self.loader)()?;
        *cell = Some(e.clone());
        Ok(e)
    }

    /// The model, if one was loaded or given.
    fn loaded(&self) -> Option<Arc<dyn Embedder>> {
        self.embedder
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The pipeline the configuration describes for `mode`: the registered rankers with a
    /// weight above 0 whose signal the mode's sources give (bm25 in fts and hybrid, vector in
    /// hybrid and vector, then recency and access), and the configured fuser; or, with
    /// `scoring = "simple"`, BM25 alone on an absolute scale (`min(1, bm25 / 25)`).
    pub fn pipeline(&self, mode: Mode) -> &Pipeline {
        &self.plan(mode).pipeline
    }

    fn plan(&self, mode: Mode) -> &Plan {
        self.plans
            .iter()
            .find(|p| p.mode == mode)
            .expect("with_registry makes a plan for every mode")
    }

    /// Recalls for `query` from `store`, recording access for what is returned when `touch`
    /// (a failure to record it is a warning, not the recall's failure).
    ///
    /// The mode's candidate sources each find candidates and score them (their signals);
    /// the candidates no signal vouches for are dropped, the rankers order the rest, the fuser
    /// combines their lists, and confidence, decay, the minimum score, near-duplicates and the
    /// budget decide what is returned ([`Pipeline::recall`]).
    ///
    /// Sources that need the query's embedding use the engine's model, loaded on first use
    /// ([`Engine::embedder`]). When the model cannot load,
    /// recall answers FTS-only and says why in [`Recall::warnings`] (or fails, with
    /// `fallback_to_fts = false`); when such a source fails, the full-text sources still
    /// answer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the store fails;
    /// [`ErrorKind::Embedding`](oro_mem_core::ErrorKind::Embedding) when the model is needed,
    /// cannot run, and falling back is off.
    pub fn recall<S: CandidateSearch + MemoryWrite>(
        &mut self,
        store: &mut S,
        query: &Query<'_>,
        touch: bool,
    ) -> Result<Answer> {
        let (candidates, mode, mut warnings) = self.gather(store, query)?;
        let mut recall = self.pipeline(mode).recall(query, candidates)?;
        if recall.abstained == Some(Abstention::NoCandidates) {
            recall.abstained = Some(self.why_no_candidates(store, query)?);
        }
        let answered_by = answered_by(mode, &recall, min_similarity(&self.config, mode));
        if let Some(why) = answered_by.1 {
            warnings.push(why);
        }
        // Problems of the engine first, then those of the pipeline.
        warnings.append(&mut recall.warnings);
        recall.warnings = warnings;
        if touch {
            // Counting the access is a write: when it fails (a full disk, a lock held too
            // long), the answer still stands, and says so.
            let ids: Vec<_> = recall.results.iter().map(|r| r.memory.id).collect();
            if let Err(e) = store.record_returned(&ids) {
                recall
                    .warnings
                    .push(format!("access counts are not updated: {e}"));
            }
        }
        Ok(Answer {
            requested_mode: self.config.mode,
            mode,
            answered_by: answered_by.0,
            recall,
        })
    }

    /// The candidate stage of [`Engine::recall`]: the mode's sources' candidates with their
    /// signals, the mode that gave them (FTS when the model could not run), and warnings.
    ///
    /// # Errors
    ///
    /// As [`Engine::recall`].
    pub fn candidates(
        &mut self,
        store: &dyn CandidateSearch,
        query: &Query<'_>,
    ) -> Result<Gathered> {
        let (candidates, mode, warnings) = self.gather(store, query)?;
        Ok(Gathered {
            candidates,
            mode,
            signals: self
                .plan(mode)
                .sources
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            warnings,
        })
    }

    /// Why a recall of `query` found no candidates: it has no word to search for
    /// ([`Abstention::NoTerms`]), none match it, or some do but are below its minimum
    /// confidence ([`Abstention::BelowConfidence`]: a memory stored with a low confidence is
    /// never recalled by default, and the funnel says so). Asks the sources again without the
    /// minimum, which costs a second search on this path only.
    ///
    /// # Errors
    ///
    /// As [`Engine::recall`].
    fn why_no_candidates(
        &mut self,
        store: &dyn CandidateSearch,
        query: &Query<'_>,
    ) -> Result<Abstention> {
        if query.near.is_none() && oro_mem_text::query_terms(query.text).is_empty() {
            return Ok(Abstention::NoTerms);
        }
        let min_confidence = query
            .filter
            .min_confidence
            .unwrap_or(self.config.recall.min_confidence);
        if min_confidence <= 0.0 {
            return Ok(Abstention::NoCandidates);
        }
        let any = Filter {
            min_confidence: Some(0.0),
            ..query.filter.clone()
        };
        let (candidates, _, _) = self.gather(
            store,
            &Query {
                filter: &any,
                ..query.clone()
            },
        )?;
        Ok(match candidates.len() {
            0 => Abstention::NoCandidates,
            memories => Abstention::BelowConfidence {
                memories,
                min_confidence,
            },
        })
    }

    /// [`Engine::candidates`] without the signal names.
    fn gather(
        &mut self,
        store: &dyn CandidateSearch,
        query: &Query<'_>,
    ) -> Result<(Candidates, Mode, Vec<String>)> {
        // The configured minimum confidence, unless the query sets its own.
        let trusted;
        let query = &match query.filter.min_confidence {
            None if self.config.recall.min_confidence > 0.0 => {
                trusted = Filter {
                    min_confidence: Some(self.config.recall.min_confidence),
                    ..query.filter.clone()
                };
                Query {
                    filter: &trusted,
                    ..query.clone()
                }
            }
            _ => query.clone(),
        };
        // Whether or not a source gets as far as the store's query.
        query.filter.check()?;
        let mut mode = self.config.mode;
        let mut warnings = Vec::new();
        let embedding = self.query_embedding(query.text, &mut mode, &mut warnings)?;
        let cx = SourceContext {
            store,
            query,
            embedding: embedding.as_ref().map(|(model, vector)| QueryEmbedding {
                model: model.model_id(),
                vector,
            }),
        };
        let mut candidates = match run_sources(&cx, &self.plan(mode).sources, &mut warnings) {
            Ok(c) => c,
            Err((true, e)) if mode != Mode::Fts => {
                warnings.push(vector_failed(&e));
                mode = Mode::Fts;
                run_sources(&cx, &self.plan(mode).sources, &mut warnings).map_err(|(_, e)| e)?
            }
            Err((_, e)) => return Err(e),
        };
        // A memory in a script the model does not cover has a meaningless cosine: it is
        // ranked by its words alone (`--explain` shows no vector score). Said once per query
        // when the query is such text, not for every such memory of a mixed store.
        candidates.unscore(VectorRanker::SIGNAL, |c| is_mostly_cjk(&c.memory.content));
        self.add_session_neighbours(store, mode, &mut candidates)?;
        let pipeline = self.pipeline(mode);
        // The number of memories searched: a feature of the relevance models, and what the
        // cosine `recall.keep_similar` asks of the nearest memory follows.
        let keeps_similar =
            mode != Mode::Fts && pipeline.config().keep_similar && pipeline.estimates();
        if pipeline.reads(MEMORIES) || keeps_similar {
            // Whatever their confidence: few memories fall under the floor, and the memories
            // table has no index on it, so a count with it reads every row.
            let searched = Filter {
                min_confidence: None,
                ..query.filter.clone()
            };
            candidates.set_searched(store.count_up_to(&searched, MEMORIES_COUNTED)?);
        }
        Ok((candidates, mode, warnings))
    }

    /// The embedding of the query `text` by the engine's model, when `mode`'s sources need one:
    /// none for a query in a script the model does not cover, and none, with `mode` set to
    /// FTS and a warning, when the model cannot load or fails (or an error, without
    /// `fallback_to_fts`).
    fn query_embedding(
        &mut self,
        text: &str,
        mode: &mut Mode,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Embedded>> {
        let requested_mode = *mode;
        if !self.plan(*mode).sources.iter().any(|s| s.needs_embedding()) {
            return Ok(None);
        }
        match self.embedder() {
            // The model's cosine means nothing for such a query: no vector list, and no
            // embedding made for it.
            Ok(model) if is_mostly_cjk(text) => {
                warnings.push(format!(
                    "the query is in a script the embedding model ({}) does not cover: the \
                     vector list gives no signal",
                    model.model_id()
                ));
                Ok(None)
            }
            Ok(model) => match embed_query(model.as_ref(), text) {
                Ok(v) => Ok(Some((model, v))),
                Err(e) => {
                    warnings.push(vector_failed(&e));
                    *mode = Mode::Fts;
                    Ok(None)
                }
            },
            Err(e) if self.config.fallback_to_fts => {
                warnings.push(format!(
                    "{requested_mode} mode unavailable, answering FTS-only: {e} (or use \
                     --mode fts)"
                ));
                *mode = Mode::Fts;
                Ok(None)
            }
            Err(e) => Err(Error::new(
                e.kind(),
                format!(
                    "{requested_mode} mode unavailable: {e} (or set fallback_to_fts = \
                     true, or use --mode fts)"
                ),
            )),
        }
    }

    /// Asks the store for the session neighbours of the candidates that have a session, when
    /// the mode's pipeline lets neighbours lend context (`recall.session_context`).
    fn add_session_neighbours(
        &self,
        store: &dyn CandidateSearch,
        mode: Mode,
        candidates: &mut Candidates,
    ) -> Result<()> {
        let recall = self.pipeline(mode).config();
        if recall.session_context == 0.0 {
            return Ok(());
        }
        let in_sessions: Vec<&Memory> = candidates
            .iter()
            .map(|c| &c.memory)
            .filter(|m| m.session.is_some())
            .collect();
        if in_sessions.len() > 1 {
            let neighbours = store.session_neighbours(&in_sessions, recall.session_window)?;
            candidates.set_neighbours(neighbours);
        }
        Ok(())
    }
}

/// The cosine a memory that matches none of the query's words needs in `mode`:
/// `recall.hybrid_min_similarity` in hybrid mode, `recall.min_similarity` otherwise.
pub fn min_similarity(config: &Config, mode: Mode) -> f64 {
    match mode {
        Mode::Hybrid => config.recall.hybrid_min_similarity,
        _ => config.recall.min_similarity,
    }
}

/// `config` as `mode` reads it: the mode's minimum score (`recall.hybrid_min_score` where
/// vectors are fused: their lists give larger scores) as `recall.min_score`, and its gate
/// ([`min_similarity`]) as `recall.min_similarity`.
fn of_mode(config: &Config, mode: Mode) -> Config {
    let mut config = config.clone();
    if mode.uses_vectors() {
        config.recall.min_score = config.recall.hybrid_min_score;
    }
    config.recall.min_similarity = min_similarity(&config, mode);
    config
}

/// The pipeline of `mode`: the registered rankers with a weight above 0 whose signal is among
/// `signals`, and the configured fuser; or, with `scoring = "simple"`, BM25 alone on an
/// absolute scale.
fn pipeline_for(
    config: &Config,
    registry: &Registry,
    mode: Mode,
    signals: &[&str],
) -> Result<Pipeline> {
    let mut r = config.recall.clone();
    let (fuser, rankers): (Box<dyn Fuser>, Vec<Weighted>) = match r.scoring {
        Scoring::Fused => (registry.make_fuser(&r)?, registry.make_rankers(config)?),
        Scoring::Simple => {
            r.min_score = r.simple_min_score;
            (
                Box::new(Scaled::new(SIMPLE_BM25_SCALE)?),
                vec![(Box::new(Bm25Ranker), 1.0)],
            )
        }
    };
    let calibration = config.recall.calibration.get(mode);
    calibration.check(&format!("{CALIBRATION_PREFIX}{mode}"), signals)?;
    let answerable = config.recall.answerable.get(mode);
    answerable.check(&format!("{ANSWERABLE_PREFIX}{mode}"), signals)?;
    let mut p = Pipeline::new(fuser, r, config.decay.clone());
    if config.recall.scoring == Scoring::Fused {
        p = p
            .calibration(calibration.clone())
            .answerable(answerable.clone());
        // What the vector list cannot judge (text in a script the model does not cover) is
        // estimated as FTS mode would, by its words alone.
        if mode == Mode::Hybrid {
            p = p
                .unjudged_calibration(config.recall.calibration.get(Mode::Fts).clone())
                .unjudged_answerable(config.recall.answerable.get(Mode::Fts).clone());
        }
    }
    for (ranker, weight) in rankers {
        if ranker.signal().is_none_or(|s| signals.contains(&s)) {
            p = p.ranker(ranker, weight);
        }
    }
    Ok(p)
}

/// `text`'s embedding, from its first [`MAX_EMBEDDED_QUERY_BYTES`].
fn embed_query(model: &dyn Embedder, text: &str) -> Result<Vec<f32>> {
    let mut cut = text.len().min(MAX_EMBEDDED_QUERY_BYTES);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Ok(model.embed(&[&text[..cut]])?.pop().unwrap_or_default())
}

/// Runs every source: their candidates (in source order, each id once) with each source's
/// signal, its own scores completed by scores of the candidates other sources found. On a
/// failure, says whether the failing source needed the embedding.
fn run_sources(
    cx: &SourceContext<'_>,
    sources: &[Box<dyn CandidateSource>],
    warnings: &mut Vec<String>,
) -> std::result::Result<Candidates, (bool, Error)> {
    let mut items = Vec::new();
    let mut seen = HashSet::new();
    let mut signals = Vec::with_capacity(sources.len());
    for source in sources {
        let fail = |e| (source.needs_embedding(), e);
        let search = source.search(cx).map_err(fail)?;
        warnings.extend(search.warnings);
        let mut scores = Vec::with_capacity(search.found.len());
        // The memories the source found by id only, read in one call.
        let missing: Vec<MemoryId> = search
            .found
            .iter()
            .filter(|f| f.memory.is_none() && !seen.contains(&f.id))
            .map(|f| f.id)
            .collect();
        let mut read: HashMap<MemoryId, Memory> = if missing.is_empty() {
            HashMap::new()
        } else {
            cx.store
                .get_many(&missing)
                .map_err(fail)?
                .into_iter()
                .map(|m| (m.id, m))
                .collect()
        };
        for found in search.found {
            scores.push((found.id, found.score));
            if !seen.insert(found.id) {
                continue;
            }
            // Deleted by another process since the search: nothing to recall.
            let Some(memory) = found.memory.or_else(|| read.remove(&found.id)) else {
                continue;
            };
            items.push(Candidate::new(memory));
        }
        signals.push(Signal::new(scores));
    }
    let mut candidates = Candidates::new(items);
    let ids: Vec<MemoryId> = candidates.iter().map(Candidate::id).collect();
    for (source, mut signal) in sources.iter().zip(signals) {
        let others: Vec<MemoryId> = ids
            .iter()
            .copied()
            .filter(|&id| signal.get(id).is_none())
            .collect();
        if !others.is_empty() {
            let extra = source
                .score(cx, &others)
                .map_err(|e| (source.needs_embedding(), e))?;
            signal.extend(extra);
        }
        if source.leaves_unjudged() {
            let unjudged: Vec<MemoryId> = others
                .into_iter()
                .filter(|&id| signal.get(id).is_none())
                .collect();
            signal.set_unjudged(unjudged);
        }
        if let Some(floor) = source.floor() {
            signal = signal.floor(floor);
        }
        candidates.set_signal(source.name(), signal);
    }
    Ok(candidates)
}

#[cfg(feature = "minilm")]
fn default_embedder() -> Result<Arc<dyn Embedder>> {
    Ok(Arc::new(oro_mem_rank_vector::MiniLm::load_default()?))
}

#[cfg(not(feature = "minilm"))]
fn default_embedder() -> Result<Arc<dyn Embedder>> {
    Err(Error::new(
        oro_mem_core::ErrorKind::Embedding,
        "no embedding model: oro-mem-engine was built without its `minilm` feature; give one \
         with Engine::with_embedder",
    ))
}

/// A query's embedding, with the model that made it.
type Embedded = (Arc<dyn Embedder>, Vec<f32>);

/// The warning of a vector search that failed, answered FTS-only.
fn vector_failed(e: &Error) -> String {
    format!("vector search failed, answering FTS-only: {e}")
}
