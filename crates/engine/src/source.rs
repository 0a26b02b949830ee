//! Candidate sources: where recall's candidates come from, each with its own per-query signal.

use oro_mem_core::{CandidateSearch, Memory, MemoryId, Query, Result};
use oro_mem_rank_bm25::Bm25Ranker;
use oro_mem_rank_vector::VectorRanker;

/// The query's embedding, made once per recall by the engine's model.
#[derive(Clone, Copy, Debug)]
pub struct QueryEmbedding<'a> {
    /// The model that made it ([`Embedder::model_id`](oro_mem_rank_vector::Embedder::model_id)).
    pub model: &'a str,
    /// The vector, unit length.
    pub vector: &'a [f32],
}

/// What a source sees of one recall.
#[derive(Clone, Copy)]
pub struct SourceContext<'a> {
    /// The store searched.
    pub store: &'a dyn CandidateSearch,
    /// The query.
    pub query: &'a Query<'a>,
    /// The query's embedding, when the source [needs one](CandidateSource::needs_embedding).
    pub embedding: Option<QueryEmbedding<'a>>,
}

impl std::fmt::Debug for SourceContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceContext")
            .field("query", &self.query)
            .field("embedding", &self.embedding)
            .finish_non_exhaustive()
    }
}

/// One memory a source found, with its score.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The memory's id.
    pub id: MemoryId,
    /// The source's score for it (its signal); larger is better.
    pub score: f64,
    /// The memory, when the search read it anyway; otherwise the engine reads it.
    pub memory: Option<Memory>,
}

/// What a source's search returned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Search {
    /// The memories found, best first.
    pub found: Vec<Found>,
    /// Problems worth telling the user that did not stop the search.
    pub warnings: Vec<String>,
}

impl From<Vec<(Memory, f64)>> for Search {
    /// The memories a store's search read, with their scores, best first; no warnings.
    fn from(hits: Vec<(Memory, f64)>) -> Search {
        Search {
            found: hits
                .into_iter()
                .map(|(memory, score)| Found {
                    id: memory.id,
                    score,
                    memory: Some(memory),
                })
                .collect(),
            warnings: Vec::new(),
        }
    }
}

/// Finds candidates for a query and scores them: its scores are a per-query signal, named
/// after the source, that rankers read ([`Ranker::signal`](oro_mem_core::Ranker::signal)).
///
/// # Contract
///
/// - [`search`](CandidateSource::search) returns unique ids, best first, scores finite.
/// - [`score`](CandidateSource::score) scores only ids it was given (candidates other sources
///   found), leaving out those it knows nothing about.
pub trait CandidateSource: Send + Sync {
    /// The source's name, which is also the name of its signal.
    fn name(&self) -> &str;

    /// False when its configuration leaves it nothing to do (the [`Feedback`] source with
    /// no weight): the engine then leaves it out of every mode, so it gives no signal and no
    /// features. The default: true.
    ///
    /// [`Feedback`]: crate::Feedback
    fn runs(&self) -> bool {
        true
    }

    /// True when it needs the query's embedding: it is then left out, and recall answers
    /// without it, when no model can run.
    fn needs_embedding(&self) -> bool {
        false
    }

    /// A candidate that only this source vouches for is kept only with at least this score
    /// (see [`Candidates::gate`](oro_mem_core::Candidates::gate)); `None` keeps all.
    fn floor(&self) -> Option<f64> {
        None
    }

    /// True when a candidate this source leaves without a score, after
    /// [`score`](Self::score), is one it could not judge (the vector source: a memory without
    /// an embedding, or every memory when the query has none) rather than one it judged a
    /// poor match (the full-text source: no word in common). Such a candidate's relevance is
    /// estimated without this source's signal
    /// ([`Pipeline::unjudged_calibration`](crate::Pipeline::unjudged_calibration)).
    /// The default: false.
    fn leaves_unjudged(&self) -> bool {
        false
    }

    /// The best candidates for the query.
    ///
    /// # Errors
    ///
    /// When the search fails. A source that [needs an embedding](Self::needs_embedding) and
    /// fails makes recall answer without the embedding-based sources; any other source's
    /// error fails the recall.
    fn search(&self, cx: &SourceContext<'_>) -> Result<Search>;

    /// This source's scores for candidates other sources found (`ids`). The default scores
    /// none of them.
    ///
    /// # Errors
    ///
    /// As [`search`](Self::search).
    fn score(&self, cx: &SourceContext<'_>, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        let _ = (cx, ids);
        Ok(Vec::new())
    }
}

/// The full-text source: FTS5 BM25 over the query's words, the best `depth`; with
/// `score_others`, it also gives every other candidate that holds one of the words its BM25
/// score, as the embedding source gives every candidate its cosine.
#[derive(Clone, Copy, Debug)]
pub struct Lexical {
    /// Candidates fetched.
    pub depth: usize,
    /// Whether candidates other sources found get their BM25 score (else none, which fuses
    /// as 0).
    pub score_others: bool,
}

impl CandidateSource for Lexical {
    fn name(&self) -> &str {
        Bm25Ranker::SIGNAL
    }

    fn search(&self, cx: &SourceContext<'_>) -> Result<Search> {
        let hits = cx
            .store
            .lexical_candidates(cx.query.text, cx.query.filter, self.depth)?;
        Ok(hits.into())
    }

    fn score(&self, cx: &SourceContext<'_>, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        if !self.score_others {
            return Ok(Vec::new());
        }
        cx.store.lexical_scores(cx.query.text, ids)
    }
}

/// Memories of about 150 characters that `oro-mem embed` embeds per second on two cores
/// (1,000 LoCoMo turns in 11.3 s, the model's loading included); long ones take longer
/// (SciFact's 1,500-character abstracts, about 30 a second).
const EMBEDDED_PER_SECOND: u64 = 90;

/// How long embedding `n` memories takes, roughly, for the warning that says they lack one.
fn embed_time(n: u64) -> String {
    let seconds = n.div_ceil(EMBEDDED_PER_SECOND);
    let about = match seconds {
        0..=1 => "about a second".to_string(),
        2..=119 => format!("about {seconds} s"),
        _ => format!("about {} min", seconds.div_ceil(60)),
    };
    format!("{about} for short memories on two cores")
}

/// The embedding source: the `depth` memories whose embeddings are nearest to the query's,
/// by exact cosine; it also gives every other candidate with an embedding its cosine, so a
/// lexical hit outside the nearest few still has a vector score.
#[derive(Clone, Copy, Debug)]
pub struct Nearest {
    /// Candidates fetched.
    pub depth: usize,
    /// The cosine a memory found only by its embedding needs (`recall.min_similarity`).
    pub min_similarity: f64,
}

impl CandidateSource for Nearest {
    fn name(&self) -> &str {
        VectorRanker::SIGNAL
    }

    fn needs_embedding(&self) -> bool {
        true
    }

    fn floor(&self) -> Option<f64> {
        Some(self.min_similarity)
    }

    fn leaves_unjudged(&self) -> bool {
        true
    }

    fn search(&self, cx: &SourceContext<'_>) -> Result<Search> {
        let Some(q) = cx.embedding else {
            return Ok(Search::default());
        };
        let nearest = cx
            .store
            .vector_candidates(q.model, q.vector, cx.query.filter, self.depth)?;
        let mut warnings = Vec::new();
        let unembedded = cx.store.count_unembedded(q.model)?;
        if unembedded > 0 {
            warnings.push(format!(
                "{unembedded} memories have no embedding from {} and are found by full-text \
                 search only; run `oro-mem embed` ({})",
                q.model,
                embed_time(unembedded)
            ));
        }
        Ok(Search {
            found: nearest
                .into_iter()
                .map(|(id, score)| Found {
                    id,
                    score,
                    memory: None,
                })
                .collect(),
            warnings,
        })
    }

    fn score(&self, cx: &SourceContext<'_>, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        match cx.embedding {
            Some(q) => cx.store.similarities(q.model, q.vector, ids),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_time_is_said_in_seconds_then_minutes() {
        assert_eq!(
            embed_time(3),
            "about a second for short memories on two cores"
        );
        assert_eq!(
            embed_time(900),
            "about 10 s for short memories on two cores"
        );
        assert_eq!(
            embed_time(100_000),
            "about 19 min for short memories on two cores"
        );
    }
}
