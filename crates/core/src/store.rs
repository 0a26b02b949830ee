//! The store interface: what recall and the commands need of a place that keeps memories,
//! as three focused traits, so that any store (SQLite, PostgreSQL, ...) can serve the engine.
//!
//! - [`MemoryRead`]: one memory by id, listings and counts under a [`Filter`].
//! - [`CandidateSearch`]: the candidates of a query: the best lexical matches, the nearest
//!   embeddings, and exact similarities of given memories.
//! - [`MemoryWrite`]: remembering (with duplicate detection), forgetting, pinning, archiving,
//!   recording access, and keeping the [`Embedding`]s the caller made.
//!
//! A store holds embeddings but never makes them: the caller (the engine, which owns the
//! model) hands them over with the memories ([`MemoryWrite::remember_embedded`]) or later
//! ([`MemoryWrite::set_embeddings`], for what [`MemoryWrite::claim_unembedded`] hands out).

use serde::Serialize;

use crate::config::DedupConfig;
use crate::error::{Error, Result};
use crate::memory::{Memory, MemoryId, NewMemory, Status};
use crate::query::Filter;
use crate::ranking::Neighbour;
use crate::time::Timestamp;

/// Order of [`MemoryRead::list`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListOrder {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
    /// Most accessed first.
    MostAccessed,
    /// Highest confidence first.
    Confidence,
}

/// What a write did with a new memory ([`MemoryWrite::remember_batch`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum WriteOutcome {
    /// Stored as a new memory.
    Inserted {
        /// Its id.
        id: MemoryId,
    },
    /// A duplicate of an existing memory, whose confidence was raised to the new one's.
    Merged {
        /// The existing memory.
        into: MemoryId,
        /// Its confidence now.
        confidence: f64,
        /// How similar the two are (normalized BM25, or cosine).
        similarity: f64,
    },
    /// A duplicate of an existing memory with at least the same confidence: nothing changed.
    Skipped {
        /// The existing memory.
        duplicate_of: MemoryId,
        /// How similar the two are.
        similarity: f64,
    },
}

impl WriteOutcome {
    /// The id of the memory that now holds the content.
    pub fn id(&self) -> MemoryId {
        match *self {
            WriteOutcome::Inserted { id } => id,
            WriteOutcome::Merged { into, .. } => into,
            WriteOutcome::Skipped { duplicate_of, .. } => duplicate_of,
        }
    }
}

/// What a store's consolidation did (or would do, on a dry run): near-duplicates merged and
/// stale low-confidence memories archived.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConsolidateReport {
    /// `(kept, removed, similarity)`: `removed` was folded into `kept` and deleted.
    pub merged: Vec<(MemoryId, MemoryId, f64)>,
    /// Stale low-confidence memories archived.
    pub archived: Vec<MemoryId>,
    /// True when nothing was written.
    pub dry_run: bool,
}

/// An embedding as a store keeps it: the model that made it and the vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding {
    /// The model's id (an embedder's `model_id`); stored beside the vector, so a model change
    /// is detected and the text embedded again.
    pub model: String,
    /// The vector, unit length as embedders return it (so a cosine is a dot product).
    pub vector: Vec<f32>,
}

impl Embedding {
    /// Checks what a store relies on: a model id, and a non-empty vector of finite numbers.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) saying what was wrong.
    pub fn validate(&self) -> Result<()> {
        check_vector(&self.model, &self.vector)
    }
}

/// [`Embedding::validate`] for a vector and its model given apart.
///
/// # Errors
///
/// As [`Embedding::validate`].
pub fn check_vector(model: &str, vector: &[f32]) -> Result<()> {
    if model.trim().is_empty() {
        return Err(Error::invalid_input("embedding model id is empty"));
    }
    if vector.is_empty() {
        return Err(Error::invalid_input(format!(
            "embedding of model {model} has no values"
        )));
    }
    if let Some(i) = vector.iter().position(|x| !x.is_finite()) {
        return Err(Error::invalid_input(format!(
            "embedding of model {model} has a value that is not a finite number ({} at {i})",
            vector[i]
        )));
    }
    Ok(())
}

/// Reading memories.
pub trait MemoryRead {
    /// The memory with `id`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none;
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn get(&self, id: MemoryId) -> Result<Memory>;

    /// Memories matching `filter`, in `order`, `limit` of them after skipping `offset`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>>;

    /// How many memories match `filter`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn count(&self, filter: &Filter) -> Result<u64>;
}

/// Finding the candidates of a query.
///
/// # Contract
///
/// Every memory returned matches the filter; ids are unique; lists are best first; scores are
/// finite, larger better.
pub trait CandidateSearch: MemoryRead {
    /// The best `depth` memories matching `text`'s words under `filter`, with a lexical score
    /// (BM25 or the like). Text with nothing searchable in it has none; it is never an error.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn lexical_candidates(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(Memory, f64)>>;

    /// The `depth` memories under `filter` whose embeddings by `model` are nearest to `query`
    /// (unit length), with their exact cosine.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn vector_candidates(
        &self,
        model: &str,
        query: &[f32],
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(MemoryId, f64)>>;

    /// The exact cosine between `query` and the embedding by `model` of each of `ids` that has
    /// one, in the order of `ids`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn similarities(
        &self,
        model: &str,
        query: &[f32],
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, f64)>>;

    /// The pairs of `memories` that are neighbours in their session
    /// ([`Memory::session`]): of one session and namespace, at most `window` places apart
    /// among the session's active memories ordered by creation time and then id. Each pair is
    /// given both ways, with its distance (1 = next to each other). Memories without a
    /// session have no neighbours.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn session_neighbours(&self, memories: &[&Memory], window: usize) -> Result<Vec<Neighbour>>;

    /// How many memories have no embedding by `model` (so cannot be found by meaning).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn count_unembedded(&self, model: &str) -> Result<u64>;
}

/// Changing memories. Each call is atomic: it happens whole or not at all.
pub trait MemoryWrite {
    /// Validates and stores `batch`, each memory with its embedding if it has one, and each
    /// checked for duplicates of its namespace under `dedup`: inserted, merged into a
    /// duplicate, or skipped. All or nothing.
    ///
    /// A memory is a duplicate when its content matches an existing memory's lexically above
    /// `dedup.bm25`, or when its embedding's cosine with one of the same model (already
    /// stored, or earlier in the batch) is above `dedup.cosine`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the bad memory or
    /// embedding; [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    /// Nothing is written then.
    fn remember_embedded(
        &mut self,
        batch: Vec<(NewMemory, Option<Embedding>)>,
        dedup: &DedupConfig,
    ) -> Result<Vec<WriteOutcome>>;

    /// [`MemoryWrite::remember_embedded`] for memories without embeddings.
    ///
    /// # Errors
    ///
    /// As [`MemoryWrite::remember_embedded`].
    fn remember_batch(
        &mut self,
        batch: Vec<NewMemory>,
        dedup: &DedupConfig,
    ) -> Result<Vec<WriteOutcome>> {
        self.remember_embedded(batch.into_iter().map(|m| (m, None)).collect(), dedup)
    }

    /// Stores `rows`' vectors as the memories' embeddings by `model`, replacing any they had
    /// (by this model or another). Memories that no longer exist are skipped; the number
    /// stored is returned. All or nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for an empty model id, or
    /// vectors that are empty, not finite, or not all of one dimension;
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn set_embeddings(&mut self, model: &str, rows: &[(MemoryId, Vec<f32>)]) -> Result<usize>;

    /// Claims up to `limit` memories with an id above `after` and no embedding by `model`
    /// (none, or one by another model) that no live claim holds, and holds them until `until`
    /// or until their embeddings are stored ([`set_embeddings`](Self::set_embeddings)
    /// releases them); claims that ended at or before `now` no longer count. Returns them by
    /// ascending id: `(id, content)`, the text to embed.
    ///
    /// This is how concurrent embedding runs share the work: each claims what the others do
    /// not hold. A claim left by a run that died ends at `until`, and another run takes the
    /// memories then. Two runs embedding one memory anyway (a claim that ended too soon) cost
    /// time, not correctness: the second embedding replaces the first.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails; nothing is
    /// claimed then.
    fn claim_unembedded(
        &mut self,
        model: &str,
        after: MemoryId,
        limit: usize,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<(MemoryId, String)>>;

    /// Deletes a memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn forget(&mut self, id: MemoryId) -> Result<()>;

    /// Pins or unpins a memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()>;

    /// Archives or reactivates a memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn set_status(&mut self, id: MemoryId, status: Status) -> Result<()>;

    /// Records that recall returned `ids` at `now`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails; nothing is
    /// changed then.
    fn record_access(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()>;
}
