//! The store interface: what recall and the commands need of a place that keeps memories,
//! as three focused traits, so that any store (SQLite, PostgreSQL, ...) can serve the engine.
//!
//! - [`MemoryRead`]: one memory by id, listings and counts under a [`Filter`].
//! - [`CandidateSearch`]: the candidates of a query: the best lexical matches, the nearest
//!   embeddings, and exact similarities of given memories.
//! - [`MemoryWrite`]: remembering (with duplicate detection), forgetting, pinning, archiving,
//!   and recording access.

use serde::Serialize;

use crate::config::DedupConfig;
use crate::error::Result;
use crate::memory::{Memory, MemoryId, NewMemory, Status};
use crate::query::Filter;
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

    /// How many memories have no embedding by `model` (so cannot be found by meaning).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn count_unembedded(&self, model: &str) -> Result<u64>;
}

/// Changing memories. Each call is atomic: it happens whole or not at all.
pub trait MemoryWrite {
    /// Validates and stores `batch`, each memory checked for duplicates of its namespace
    /// under `dedup`: inserted, merged into a duplicate, or skipped. All or nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) naming the bad memory;
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails. Nothing is
    /// written then.
    fn remember_batch(
        &mut self,
        batch: Vec<NewMemory>,
        dedup: &DedupConfig,
    ) -> Result<Vec<WriteOutcome>>;

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
