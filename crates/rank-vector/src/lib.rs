//! Vector ranking for oro-mem.
//!
//! - [`Embedder`]: turns text into fixed-size vectors (dimension, model id, batch embed).
//! - [`cosine`]: cosine similarity of two vectors.
//! - [`VectorRanker`]: ranks [`Candidates`] by the `vector` signal (the cosines a vector
//!   candidate source gave them); candidates without an embedding are left out.
//!
//! # Example
//!
//! ```
//! use oro_mem_rank_vector::{cosine, normalize};
//!
//! let mut v = vec![3.0, 4.0];
//! normalize(&mut v);
//! assert!((v[0] - 0.6).abs() < 1e-6);
//! assert!((cosine(&v, &[0.6, 0.8]) - 1.0).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! - `fastembed` (off by default): [`MiniLm`], the local all-MiniLM-L6-v2 embedder run by
//!   fastembed on an ONNX Runtime library loaded at run time; nothing is downloaded.

#![deny(missing_docs)]

#[cfg(feature = "fastembed")]
mod local;

#[cfg(feature = "fastembed")]
pub use local::{
    MiniLm, ModelFiles, MINILM_DIMENSION, MINILM_MAX_TOKENS, MINILM_MODEL_ID, MODEL_DIR_ENV,
    ORT_DYLIB_ENV,
};

use oro_mem_core::{Candidates, Query, Ranker, Ranking, Result};

/// Turns text into vectors of a fixed dimension.
///
/// # Contract
///
/// `embed` returns one vector per input, in order, each of [`Embedder::dimension`] values and
/// unit length (so cosine similarity is a dot product).
pub trait Embedder: Send + Sync {
    /// A stable identifier of the model; stored beside each embedding so a model change is
    /// detected and re-embedded.
    fn model_id(&self) -> &str;

    /// Length of every vector.
    fn dimension(&self) -> usize;

    /// Embeds a batch of texts.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`](oro_mem_core::ErrorKind::Embedding) when the model fails.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// Cosine similarity; 0 when either vector is all zeros or the lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Scales `v` to unit length in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

/// Ranks candidates by the [`vector`](VectorRanker::SIGNAL) signal: the cosine between the
/// query's and each memory's embedding, as a vector candidate source gave it. Candidates
/// without an embedding are left out.
#[derive(Clone, Copy, Debug, Default)]
pub struct VectorRanker;

impl VectorRanker {
    /// The signal it reads: the vector source's cosines.
    pub const SIGNAL: &'static str = "vector";
}

impl Ranker for VectorRanker {
    fn name(&self) -> &str {
        "vector"
    }

    fn signal(&self) -> Option<&str> {
        Some(VectorRanker::SIGNAL)
    }

    fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(
            candidates.scores(VectorRanker::SIGNAL),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_ranker_keeps_the_ranker_contract() {
        oro_mem_core::testing::ranker_contract(&VectorRanker);
    }

    #[test]
    fn cosine_of_orthogonal_and_mismatched_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
