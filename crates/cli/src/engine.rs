//! Turning configuration into a recall: which rankers, which fuser, which mode, and the
//! embedding model hybrid mode needs.

use std::sync::Arc;

use anyhow::Result;
use oro_mem_core::{
    rrf_pinned_bonus, AccessFrequency, Candidates, Config, Filter, FusionMethod, Mode, Pipeline,
    Query, Recall, Recency, Timestamp, WEIGHTED_SCORE_PINNED_BONUS,
};
use oro_mem_fusion::{Rrf, WeightedScore};
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_rank_vector::{Embedder, MiniLm, VectorRanker};
use oro_mem_store_sqlite::Store;
use serde::Serialize;

/// Longest query prefix given to the model. MiniLM reads at most 256 word pieces (about a
/// thousand characters of English); tokenizing more only costs time.
const MAX_EMBEDDED_QUERY_BYTES: usize = 4096;

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

/// Loads the local embedding model (all-MiniLM-L6-v2 from the model directory).
pub fn load_embedder() -> oro_mem_core::Result<Arc<dyn Embedder>> {
    Ok(Arc::new(MiniLm::load_default()?))
}

/// In hybrid mode, gives `store` the embedding model so that what it writes is embedded. A
/// model that does not load is one line on stderr: the memories are stored anyway, and
/// `oro-mem embed` adds their embeddings later.
pub fn embed_writes(store: &mut Store, config: &Config) {
    if !config.mode.uses_vectors() || store.embedder().is_some() {
        return;
    }
    match load_embedder() {
        Ok(e) => store.set_embedder(e),
        Err(e) => eprintln!(
            "oro-mem: {e}; storing without embeddings (run `oro-mem embed` once the model is \
             in place)"
        ),
    }
}

/// The pipeline `config` describes for `mode`: BM25 (fts, hybrid) and the vector ranker
/// (hybrid, vector), then recency and access.
pub fn pipeline(config: &Config, mode: Mode) -> Result<Pipeline> {
    let mut r = config.recall.clone();
    if mode.uses_vectors() {
        r.min_score = r.hybrid_min_score;
    }
    let (fuser, bonus): (Box<dyn oro_mem_core::Fuser>, f64) = match r.fusion {
        FusionMethod::Rrf => (Box::new(Rrf::new(r.rrf_k)?), rrf_pinned_bonus(r.rrf_k)),
        FusionMethod::WeightedScore => (Box::new(WeightedScore), WEIGHTED_SCORE_PINNED_BONUS),
    };
    let weights = r.weights.clone();
    let mut p = Pipeline::new(fuser, r, config.decay.clone()).pinned_bonus(bonus);
    if mode != Mode::Vector {
        p = p.ranker(Bm25Ranker, weights.bm25);
    }
    if mode.uses_vectors() {
        p = p.ranker(VectorRanker, weights.vector);
    }
    Ok(p.ranker(Recency, weights.recency)
        .ranker(AccessFrequency, weights.access))
}

/// Recalls for `text` under `filter`, recording access for what is returned unless `touch` is
/// false.
///
/// Hybrid and vector modes load the model unless `store` already has one. When the model
/// cannot load, recall answers FTS-only and says why on stderr (or fails, with
/// `fallback_to_fts = false`); when the vector stage fails, the lexical candidates still
/// answer. With no lexical match the vector candidates answer alone.
pub fn recall(
    store: &mut Store,
    config: &Config,
    text: &str,
    filter: &Filter,
    now: Timestamp,
    touch: bool,
) -> Result<Answer> {
    let requested_mode = config.mode;
    let mut warnings = Vec::new();
    let embedder = match requested_mode {
        Mode::Fts => None,
        Mode::Hybrid | Mode::Vector => {
            match store.embedder().cloned().map_or_else(load_embedder, Ok) {
                Ok(e) => Some(e),
                Err(e) if config.fallback_to_fts => {
                    eprintln!(
                        "oro-mem: {requested_mode} mode unavailable, answering FTS-only: {e} \
                     (or use --mode fts)"
                    );
                    None
                }
                Err(e) => anyhow::bail!(
                "{requested_mode} mode unavailable: {e} (or set fallback_to_fts = true, or use \
                 --mode fts)"
            ),
            }
        }
    };
    let searches_text = requested_mode != Mode::Vector || embedder.is_none();
    let lexical = if searches_text {
        store.lexical_candidates(text, filter, config.recall.depth)?
    } else {
        Candidates::default()
    };
    let (candidates, mode) = match &embedder {
        None => (lexical, Mode::Fts),
        Some(e) => match vector_stage(
            store,
            e.as_ref(),
            config,
            text,
            filter,
            lexical.clone(),
            &mut warnings,
        ) {
            Ok(c) => (c, requested_mode),
            Err(err) => {
                // Printed with the other warnings by the caller.
                warnings.push(format!("vector search failed, answering FTS-only: {err}"));
                let lexical = if searches_text {
                    lexical
                } else {
                    store.lexical_candidates(text, filter, config.recall.depth)?
                };
                (lexical, Mode::Fts)
            }
        },
    };
    let query = Query::new(text, filter).now(now);
    let mut recall = pipeline(config, mode)?.recall(&query, candidates)?;
    recall.warnings.extend(warnings);
    if touch {
        let ids: Vec<_> = recall.results.iter().map(|r| r.memory.id).collect();
        store.record_access(&ids, now)?;
    }
    Ok(Answer {
        requested_mode,
        mode,
        recall,
    })
}

/// Embeds the query, finds the nearest memories and joins them with the lexical candidates;
/// warns when some memories cannot be found by meaning for want of an embedding.
fn vector_stage(
    store: &Store,
    embedder: &dyn Embedder,
    config: &Config,
    text: &str,
    filter: &Filter,
    lexical: Candidates,
    warnings: &mut Vec<String>,
) -> oro_mem_core::Result<Candidates> {
    let mut cut = text.len().min(MAX_EMBEDDED_QUERY_BYTES);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let query = embedder.embed(&[&text[..cut]])?.pop().unwrap_or_default();
    let model = embedder.model_id();
    let nearest = store.vector_candidates(model, &query, filter, config.recall.vector_depth)?;
    let unembedded = store.count_unembedded(model)?;
    if unembedded > 0 {
        warnings.push(format!(
            "{unembedded} memories have no embedding from {model} and are found by full-text \
             search only; run `oro-mem embed`"
        ));
    }
    store.with_vector_candidates(lexical, model, &query, &nearest)
}
