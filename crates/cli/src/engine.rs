//! Turning configuration into a recall: which rankers, which fuser, which mode.

use anyhow::Result;
use oro_mem_core::{
    AccessFrequency, Config, Filter, FusionMethod, Mode, Pipeline, Query, Recall, Recency,
};
use oro_mem_fusion::{Rrf, WeightedScore};
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_store_sqlite::Store;
use serde::Serialize;

/// A recall and the mode that actually answered it.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The mode asked for.
    pub requested_mode: Mode,
    /// The mode used.
    pub mode: Mode,
    /// The results.
    #[serde(flatten)]
    pub recall: Recall,
}

/// The pipeline `config` describes, for lexical candidates.
pub fn pipeline(config: &Config) -> Result<Pipeline> {
    let r = &config.recall;
    let fuser: Box<dyn oro_mem_core::Fuser> = match r.fusion {
        FusionMethod::Rrf => Box::new(Rrf::new(r.rrf_k)?),
        FusionMethod::WeightedScore => Box::new(WeightedScore),
    };
    Ok(Pipeline::new(fuser, r.clone(), config.decay.clone())
        .ranker(Bm25Ranker, r.weights.bm25)
        .ranker(Recency, r.weights.recency)
        .ranker(AccessFrequency, r.weights.access))
}

/// Recalls for `text` under `filter`, recording access for what is returned unless `touch` is
/// false. Hybrid mode is not available in this build: with `fallback_to_fts` it answers
/// FTS-only and says so on stderr, otherwise it is an error.
pub fn recall(
    store: &mut Store,
    config: &Config,
    text: &str,
    filter: &Filter,
    now: oro_mem_core::Timestamp,
    touch: bool,
) -> Result<Answer> {
    let requested_mode = config.mode;
    if requested_mode == Mode::Hybrid {
        if !config.fallback_to_fts {
            anyhow::bail!(
                "hybrid mode needs the embedding model, which this build of oro-mem does not \
                 include yet; use --mode fts, or set fallback_to_fts = true in config.toml"
            );
        }
        eprintln!(
            "oro-mem: hybrid mode needs the embedding model, which this build does not include \
             yet; answering FTS-only (use --mode fts to silence this)"
        );
    }
    let candidates = store.lexical_candidates(text, filter, config.recall.depth)?;
    let query = Query::new(text, filter).now(now);
    let recall = pipeline(config)?.recall(&query, candidates)?;
    if touch {
        let ids: Vec<_> = recall.results.iter().map(|r| r.memory.id).collect();
        store.record_access(&ids, now)?;
    }
    Ok(Answer {
        requested_mode,
        mode: Mode::Fts,
        recall,
    })
}
