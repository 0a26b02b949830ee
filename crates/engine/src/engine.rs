//! [`Engine`]: configuration in, recall out.

use std::sync::Arc;

use oro_mem_core::{
    AccessFrequency, Candidates, Config, Error, Filter, Mode, Pipeline, Query, Recall, Recency,
    Result,
};
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_rank_vector::{Embedder, VectorRanker};
use oro_mem_store_sqlite::Store;
use serde::Serialize;

use crate::registry::Registry;

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
    /// The results.
    #[serde(flatten)]
    pub recall: Recall,
}

/// Recall composed from a [`Config`], with the embedding model it needs.
pub struct Engine {
    config: Config,
    registry: Registry,
    embedder: Option<Arc<dyn Embedder>>,
    loader: EmbedderLoader,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .field("registry", &self.registry)
            .field("embedder", &self.embedder.as_ref().map(|e| e.model_id()))
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
        // Checked here rather than at the first recall.
        registry.make_fuser(&config.recall)?;
        Ok(Engine {
            config,
            registry,
            embedder: None,
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
        self.embedder = Some(embedder);
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
    /// [`ErrorKind::Embedding`] when it cannot load; the next call tries again.
    pub fn embedder(&mut self) -> Result<Arc<dyn Embedder>> {
        if let Some(e) = &self.embedder {
            return Ok(e.clone());
        }
        let e = (self.loader)()?;
        self.embedder = Some(e.clone());
        Ok(e)
    }

    /// In hybrid and vector mode, gives `store` the embedding model so that what it writes is
    /// embedded.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`] when the model cannot load: the store then writes without
    /// embeddings, which `embed_missing` adds later.
    pub fn embed_writes(&mut self, store: &mut Store) -> Result<()> {
        if !self.config.mode.uses_vectors() || store.embedder().is_some() {
            return Ok(());
        }
        store.set_embedder(self.embedder()?);
        Ok(())
    }

    /// The pipeline the configuration describes for `mode`: BM25 (fts, hybrid) and the
    /// vector ranker (hybrid, vector), then recency and access.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`](oro_mem_core::ErrorKind::Config) when the fuser cannot be made.
    pub fn pipeline(&self, mode: Mode) -> Result<Pipeline> {
        let mut r = self.config.recall.clone();
        if mode.uses_vectors() {
            r.min_score = r.hybrid_min_score;
        }
        let fuser = self.registry.make_fuser(&r)?;
        let weights = r.weights.clone();
        let mut p = Pipeline::new(fuser, r, self.config.decay.clone());
        if mode != Mode::Vector {
            p = p.ranker(Bm25Ranker, weights.bm25);
        }
        if mode.uses_vectors() {
            p = p.ranker(VectorRanker, weights.vector);
        }
        Ok(p.ranker(Recency, weights.recency)
            .ranker(AccessFrequency, weights.access))
    }

    /// Recalls for `query` from `store`, recording access for what is returned when `touch`.
    ///
    /// Hybrid and vector modes use the engine's model if it has one, else the store's, else
    /// they load one ([`Engine::embedder`]). When the model cannot load, recall answers FTS-only and says
    /// why in [`Recall::warnings`] (or fails, with `fallback_to_fts = false`); when the vector
    /// stage fails, the lexical candidates still answer. With no lexical match the vector
    /// candidates answer alone.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the store fails; [`ErrorKind::Embedding`] when the model is
    /// needed, cannot run, and falling back is off.
    pub fn recall(&mut self, store: &mut Store, query: &Query<'_>, touch: bool) -> Result<Answer> {
        let requested_mode = self.config.mode;
        let (text, filter) = (query.text, query.filter);
        let depth = self.config.recall.depth;
        let mut warnings = Vec::new();
        let embedder = match requested_mode {
            Mode::Fts => None,
            Mode::Hybrid | Mode::Vector => {
                // The engine's own model first (given or loaded), then the one the store
                // writes with, and only then a new one.
                let model = match (&self.embedder, store.embedder()) {
                    (Some(e), _) | (None, Some(e)) => Ok(e.clone()),
                    (None, None) => self.embedder(),
                };
                match model {
                    Ok(e) => Some(e),
                    Err(e) if self.config.fallback_to_fts => {
                        warnings.push(format!(
                            "{requested_mode} mode unavailable, answering FTS-only: {e} (or use \
                             --mode fts)"
                        ));
                        None
                    }
                    Err(e) => {
                        return Err(Error::new(
                            e.kind(),
                            format!(
                                "{requested_mode} mode unavailable: {e} (or set fallback_to_fts \
                                 = true, or use --mode fts)"
                            ),
                        ))
                    }
                }
            }
        };
        let searches_text = requested_mode != Mode::Vector || embedder.is_none();
        let lexical = if searches_text {
            store.lexical_candidates(text, filter, depth)?
        } else {
            Candidates::default()
        };
        let (candidates, mode) = match &embedder {
            None => (lexical, Mode::Fts),
            Some(e) => match self.vector_stage(
                store,
                e.as_ref(),
                text,
                filter,
                lexical.clone(),
                &mut warnings,
            ) {
                Ok(c) => (c, requested_mode),
                Err(err) => {
                    warnings.push(format!("vector search failed, answering FTS-only: {err}"));
                    let lexical = if searches_text {
                        lexical
                    } else {
                        store.lexical_candidates(text, filter, depth)?
                    };
                    (lexical, Mode::Fts)
                }
            },
        };
        let mut recall = self.pipeline(mode)?.recall(query, candidates)?;
        // Problems of the engine first, then those of the pipeline.
        warnings.append(&mut recall.warnings);
        recall.warnings = warnings;
        if touch {
            let ids: Vec<_> = recall.results.iter().map(|r| r.memory.id).collect();
            store.record_access(&ids, query.now)?;
        }
        Ok(Answer {
            requested_mode,
            mode,
            recall,
        })
    }

    /// Embeds the query, finds the nearest memories and joins them with the lexical
    /// candidates; warns when some memories cannot be found by meaning for want of an
    /// embedding.
    fn vector_stage(
        &self,
        store: &Store,
        embedder: &dyn Embedder,
        text: &str,
        filter: &Filter,
        lexical: Candidates,
        warnings: &mut Vec<String>,
    ) -> Result<Candidates> {
        let mut cut = text.len().min(MAX_EMBEDDED_QUERY_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let query = embedder.embed(&[&text[..cut]])?.pop().unwrap_or_default();
        let model = embedder.model_id();
        let nearest =
            store.vector_candidates(model, &query, filter, self.config.recall.vector_depth)?;
        let unembedded = store.count_unembedded(model)?;
        if unembedded > 0 {
            warnings.push(format!(
                "{unembedded} memories have no embedding from {model} and are found by \
                 full-text search only; run `oro-mem embed`"
            ));
        }
        store.with_vector_candidates(lexical, model, &query, &nearest)
    }
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
