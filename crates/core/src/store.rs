//! The store interface: what recall and the commands need of a place that keeps memories,
//! as three focused traits, so that any store (SQLite, PostgreSQL, ...) can serve the engine.
//!
//! - [`MemoryRead`]: one memory by id, listings and counts under a [`Filter`].
//! - [`CandidateSearch`]: the candidates of a query: the best lexical matches, the nearest
//!   embeddings, and exact similarities of given memories.
//! - [`MemoryWrite`]: one write transaction of primitives ([`WriteTransaction`]: insert,
//!   find similar by words or by embedding, fold, archive, ...) on which the engine writes
//!   its policy once for every store (duplicate checks, consolidation); forgetting, pinning,
//!   archiving, recording access, and keeping the [`Embedding`]s the caller made.
//! - [`MemoryStore`]: all three, and what the commands do beyond recall (export, merge,
//!   statistics).
//!
//! A store holds embeddings but never makes them: the caller (the engine, which owns the
//! model) hands them over with the memories ([`WriteTransaction::insert`]) or later
//! ([`MemoryWrite::set_embeddings`], for what [`MemoryWrite::claim_unembedded`] hands out).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::memory::{Memory, MemoryId, NewMemory, Status};
use crate::query::Filter;
use crate::ranking::Neighbour;
use crate::time::Timestamp;

mod transaction;

pub use transaction::{Commit, WriteTransaction};

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

/// What a write with duplicate checks did with a new memory (the engine's
/// `remember_embedded`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum WriteOutcome {
    /// Stored as a new memory.
    Inserted {
        /// Its id.
        id: MemoryId,
    },
    /// Stored as a new memory, the newer version of others: they are kept, superseded by it
    /// ([`Status::Superseded`], [`Memory::superseded_by`]).
    Updated {
        /// Its id.
        id: MemoryId,
        /// The memories it superseded, in the order given.
        supersedes: Vec<MemoryId>,
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
            WriteOutcome::Inserted { id } | WriteOutcome::Updated { id, .. } => id,
            WriteOutcome::Merged { into, .. } => into,
            WriteOutcome::Skipped { duplicate_of, .. } => duplicate_of,
        }
    }
}

/// What a store's consolidation did (or would do, on a dry run): near-duplicates merged and
/// stale low-confidence memories archived.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ConsolidateReport {
    /// `(kept, removed, similarity)`: `removed` was folded into `kept`, and kept as merged
    /// into it.
    pub merged: Vec<(MemoryId, MemoryId, f64)>,
    /// `(old, new)`: `old` was superseded by `new`, the same statement with values changed
    /// and stored later (two states of one fact stored as two memories).
    pub superseded: Vec<(MemoryId, MemoryId)>,
    /// Stale low-confidence memories archived.
    pub archived: Vec<MemoryId>,
    /// Memories whose embeddings were dropped because a memory before them in their session
    /// was merged away, superseded or archived (see [`MemoryWrite::forget`]); empty on a dry run.
    pub unembedded: Vec<MemoryId>,
    /// True when nothing was written.
    pub dry_run: bool,
}

/// Counts describing a store.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// All memories.
    pub total: u64,
    /// Active memories.
    pub active: u64,
    /// Archived memories.
    pub archived: u64,
    /// Memories merged into others (kept, restorable).
    pub merged: u64,
    /// Memories superseded by newer versions (kept, restorable).
    pub superseded: u64,
    /// Pinned memories.
    pub pinned: u64,
    /// Memories with an embedding.
    pub embedded: u64,
    /// Memories with an embedding, per model.
    pub embedded_by_model: Vec<(String, u64)>,
    /// Active memories per type.
    pub by_type: Vec<(String, u64)>,
    /// Memories per namespace.
    pub by_namespace: Vec<(String, u64)>,
    /// Schema version.
    pub schema_version: u32,
    /// Database size in bytes, as the store counts it (pages, or tables and indexes).
    pub size_bytes: u64,
    /// Oldest and newest creation time.
    pub created_range: Option<(Timestamp, Timestamp)>,
}

/// A memory as another store holds it, with its embedding: what a merge copies
/// ([`MemoryStore::for_each_embedded`]).
#[derive(Clone, Debug, PartialEq)]
pub struct OtherMemory {
    /// Its id there.
    pub id: MemoryId,
    /// The memory, ready to write here.
    pub memory: NewMemory,
    /// The memory there that superseded it (by its id there), and when, when it is
    /// superseded.
    pub superseded_by: Option<(MemoryId, Timestamp)>,
    /// Its embedding there, if it had one; written as it is
    /// ([`WriteTransaction::insert`]), it spares embedding the text again.
    pub embedding: Option<Embedding>,
}

/// The memory that superseded `m` and when, when `m` is superseded and both are known.
pub fn superseded(m: &Memory) -> Option<(MemoryId, Timestamp)> {
    match (m.status, m.superseded_by, m.superseded_at) {
        (crate::Status::Superseded, Some(by), Some(at)) => Some((by, at)),
        _ => None,
    }
}

/// A memory waiting for its embedding, as [`MemoryWrite::claim_unembedded`] hands it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToEmbed {
    /// The memory.
    pub id: MemoryId,
    /// Its text to embed ([`embedded_text`](crate::memory::embedded_text) of its summary and
    /// content).
    pub text: String,
    /// The texts to embed of the memories before it in its session, if it has a session and
    /// is not the first: the last [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES)
    /// active memories of the same session and namespace before it by creation time and then
    /// id, oldest first, one per line. A conversation's turn is understood with the ones it
    /// answers.
    pub before: Option<String>,
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

/// The dot product of two `f32` vectors (the cosine of unit vectors), as every store computes
/// it for its exact scores: accumulated in 8 lanes, summed in a fixed order, so that two
/// stores give the same candidates the same score to the last bit (`oro-mem-store-sqlite`'s
/// SIMD `quant::dot_f32` compiles it for each target). Inlined, so that a caller compiled for
/// wider SIMD vectorizes it with that.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ac, ar) = a.split_at(a.len() - a.len() % 8);
    let (bc, br) = b.split_at(ac.len().min(b.len()));
    for (x, y) in ac.chunks_exact(8).zip(bc.chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ar.iter().zip(br).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
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

    /// The memories with `ids` that exist, in the order of `ids` (each once). Stores that
    /// answer one call faster than many (a database server) override it; the default asks
    /// [`MemoryRead::get`] for each.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn get_many(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        let mut out = Vec::with_capacity(ids.len());
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        for &id in ids {
            if !seen.insert(id) {
                continue;
            }
            match self.get(id) {
                Ok(m) => out.push(m),
                Err(e) if e.kind() == crate::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

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

    /// How many memories match `filter`, counted up to `most`: `count(filter).min(most)`,
    /// which a store can answer without reading more than `most` of them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn count_up_to(&self, filter: &Filter, most: u64) -> Result<u64> {
        Ok(self.count(filter)?.min(most))
    }
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

    /// The lexical score [`lexical_candidates`](Self::lexical_candidates) gives each of `ids`
    /// that matches `text`'s words, however far down its list: for candidates found
    /// otherwise. Ids that match none of the words, or that the store does not hold, are left
    /// out; the rest come in the order of `ids`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn lexical_scores(&self, text: &str, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>>;

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

    /// The creation times and texts to embed
    /// ([`embedded_text`](crate::memory::embedded_text)) of the last
    /// [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES) active memories of `session`
    /// in `namespace` created at or before `at` (the latest by creation time and then id),
    /// oldest first: the memories a new one of that session written at `at` follows.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn last_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<(Timestamp, String)>>;

    /// The first [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES) active memories of
    /// `session` in `namespace` created after `at` (the earliest by creation time and then
    /// id), oldest first: the memories that a new one of that session written at `at` comes
    /// before, when it is written into the middle of its session, and whose embeddings then
    /// have a new memory before them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn next_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<MemoryId>>;

    /// Each memory of `ids` that exists, by ascending id, with its text to embed and the text
    /// of the memories before it in its session ([`ToEmbed`]), as
    /// [`MemoryWrite::claim_unembedded`] hands them out but without a claim: for embedding
    /// again memories whose embeddings a change of the one before them dropped.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn to_embed(&self, ids: &[MemoryId]) -> Result<Vec<ToEmbed>>;
}

/// Changing memories. Each call is atomic: it happens whole or not at all.
pub trait MemoryWrite {
    /// Stores each of `made`'s vectors as its memory's embedding by `model`, replacing any it
    /// had (by this model or another), when what it was made from (the [`ToEmbed`] that
    /// [`claim_unembedded`](Self::claim_unembedded) or [`CandidateSearch::to_embed`] handed
    /// out) is still the memory's text to embed and the texts before it. A memory whose text
    /// or context changed in the meantime (a memory before it archived, deleted or written
    /// into its session, which dropped its embedding) is left as it is, to be embedded again
    /// with what is before it now, and so is one that no longer exists: no embedding is stored
    /// that holds a memory which is gone. Releases the claims on all of them. Returns the
    /// number stored. All or nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput) for an empty model id, or
    /// vectors that are empty, not finite, or not all of one dimension;
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn set_embeddings(&mut self, model: &str, made: &[(ToEmbed, Vec<f32>)]) -> Result<usize>;

    /// Claims up to `limit` memories with an id above `after` and no embedding by `model`
    /// (none, or one by another model) that no live claim holds, and holds them until `until`
    /// or until their embeddings are stored ([`set_embeddings`](Self::set_embeddings)
    /// releases them); claims that ended at or before `now` no longer count. Returns them by
    /// ascending id, each with its text and the texts of the memories before it in its session
    /// ([`ToEmbed`]).
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
    ) -> Result<Vec<ToEmbed>>;

    /// Deletes a memory. Returns the memories whose embeddings it dropped in the same
    /// transaction, by ascending id: the next
    /// [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES) active memories of its session,
    /// when it was active, since their embeddings were made with it among the memories
    /// before them ([`ToEmbed::before`]). They
    /// wait to be embedded again ([`MemoryWrite::claim_unembedded`],
    /// [`CandidateSearch::to_embed`]), so no embedding holds the text of a memory that is
    /// gone.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn forget(&mut self, id: MemoryId) -> Result<Vec<MemoryId>>;

    /// Pins or unpins a memory.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()>;

    /// Archives or reactivates a memory. Returns the memories whose embeddings it dropped in
    /// the same transaction, by ascending id, as [`MemoryWrite::forget`] does: when the status
    /// changes, the next [`CONTEXT_MEMORIES`](crate::memory::CONTEXT_MEMORIES) active
    /// memories of its session (the memories before them are now others), and a reactivated
    /// memory itself (those before it may have changed while it was archived).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn set_status(&mut self, id: MemoryId, status: Status) -> Result<Vec<MemoryId>>;

    /// Records that recall returned `ids`: `return_count += 1` each, saturating at
    /// [`MAX_ACCESS_COUNT`](crate::memory::MAX_ACCESS_COUNT).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails; nothing is
    /// changed then.
    fn record_returned(&mut self, ids: &[MemoryId]) -> Result<()>;

    /// Records that `ids` were used at `now` (read in full by id): `access_count += 1` each,
    /// saturating, and `last_accessed = now`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails; nothing is
    /// changed then.
    fn record_used(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()>;

    /// Runs `work` in one write transaction of the store ([`WriteTransaction`]: the store's
    /// write lock from its start), and commits what it did when it returns [`Commit::Yes`];
    /// on [`Commit::No`] or an error nothing it did is kept. The engine writes the policy
    /// that spans several steps (consolidation) on it, once for every store.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails (a read-only
    /// store cannot start one), or the first error `work` returns; nothing is changed then.
    fn transact(
        &mut self,
        work: &mut dyn FnMut(&mut dyn WriteTransaction) -> Result<Commit>,
    ) -> Result<()>;
}

/// Everything the commands need of a store: recall's interfaces, and what the commands do
/// beyond recall. Implemented by the SQLite and the PostgreSQL stores; the command line holds
/// a `Box<dyn MemoryStore>`, which implements the interfaces itself, so the engine takes it
/// like any store.
pub trait MemoryStore: CandidateSearch + MemoryWrite {
    /// Where the store is, for people: a path, or a URL without its password.
    fn location(&self) -> String;

    /// True when the store was opened read-only (writes fail).
    fn is_read_only(&self) -> bool {
        false
    }

    /// Said by a process that keeps the store open across many calls (a server): the store
    /// may then keep in memory what makes its searches faster, with the same answers. By
    /// default nothing changes.
    fn stay_warm(&mut self) {}

    /// Said by a process about to close the store because its location now names another
    /// one (a file moved over it): what the store keeps beside its location (SQLite's
    /// write-ahead log) is written into the store itself and emptied, so that it cannot be
    /// read as part of the new one. By default nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when it cannot be emptied (another
    /// connection reads from it).
    fn let_go(&mut self) -> Result<()> {
        Ok(())
    }

    /// Calls `f` with every memory matching `filter`, oldest id first, without loading them
    /// all; returns how many.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails, or the first
    /// error `f` returns.
    fn for_each(&self, filter: &Filter, f: &mut dyn FnMut(Memory) -> Result<()>) -> Result<u64>;

    /// Calls `f` with every memory, of any status, oldest id first, as a [`NewMemory`] that
    /// keeps its times, counts, pin, status and metadata, with its embedding (what a merge
    /// copies); returns how many.
    ///
    /// # Errors
    ///
    /// As [`MemoryStore::for_each`].
    fn for_each_embedded(&self, f: &mut dyn FnMut(OtherMemory) -> Result<()>) -> Result<u64>;

    /// Counts describing the store.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails.
    fn stats(&self) -> Result<Stats>;

    /// Rebuilds what the store derives from its memories (its lexical and vector indexes).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store fails; nothing is
    /// changed then.
    fn rebuild_index(&mut self) -> Result<()>;
}

impl<T: MemoryStore + ?Sized> MemoryRead for Box<T> {
    fn get(&self, id: MemoryId) -> Result<Memory> {
        (**self).get(id)
    }

    fn get_many(&self, ids: &[MemoryId]) -> Result<Vec<Memory>> {
        (**self).get_many(ids)
    }

    fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        (**self).list(filter, order, limit, offset)
    }

    fn count(&self, filter: &Filter) -> Result<u64> {
        (**self).count(filter)
    }

    fn count_up_to(&self, filter: &Filter, most: u64) -> Result<u64> {
        (**self).count_up_to(filter, most)
    }
}

impl<T: MemoryStore + ?Sized> CandidateSearch for Box<T> {
    fn lexical_candidates(
        &self,
        text: &str,
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(Memory, f64)>> {
        (**self).lexical_candidates(text, filter, depth)
    }

    fn lexical_scores(&self, text: &str, ids: &[MemoryId]) -> Result<Vec<(MemoryId, f64)>> {
        (**self).lexical_scores(text, ids)
    }

    fn vector_candidates(
        &self,
        model: &str,
        query: &[f32],
        filter: &Filter,
        depth: usize,
    ) -> Result<Vec<(MemoryId, f64)>> {
        (**self).vector_candidates(model, query, filter, depth)
    }

    fn similarities(
        &self,
        model: &str,
        query: &[f32],
        ids: &[MemoryId],
    ) -> Result<Vec<(MemoryId, f64)>> {
        (**self).similarities(model, query, ids)
    }

    fn session_neighbours(&self, memories: &[&Memory], window: usize) -> Result<Vec<Neighbour>> {
        (**self).session_neighbours(memories, window)
    }

    fn count_unembedded(&self, model: &str) -> Result<u64> {
        (**self).count_unembedded(model)
    }

    fn last_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<(Timestamp, String)>> {
        (**self).last_in_session(namespace, session, at)
    }

    fn next_in_session(
        &self,
        namespace: &str,
        session: &str,
        at: Timestamp,
    ) -> Result<Vec<MemoryId>> {
        (**self).next_in_session(namespace, session, at)
    }

    fn to_embed(&self, ids: &[MemoryId]) -> Result<Vec<ToEmbed>> {
        (**self).to_embed(ids)
    }
}

impl<T: MemoryStore + ?Sized> MemoryWrite for Box<T> {
    fn set_embeddings(&mut self, model: &str, made: &[(ToEmbed, Vec<f32>)]) -> Result<usize> {
        (**self).set_embeddings(model, made)
    }

    fn claim_unembedded(
        &mut self,
        model: &str,
        after: MemoryId,
        limit: usize,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Vec<ToEmbed>> {
        (**self).claim_unembedded(model, after, limit, now, until)
    }

    fn forget(&mut self, id: MemoryId) -> Result<Vec<MemoryId>> {
        (**self).forget(id)
    }

    fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()> {
        (**self).set_pinned(id, pinned)
    }

    fn set_status(&mut self, id: MemoryId, status: Status) -> Result<Vec<MemoryId>> {
        (**self).set_status(id, status)
    }

    fn record_returned(&mut self, ids: &[MemoryId]) -> Result<()> {
        (**self).record_returned(ids)
    }
    fn record_used(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        (**self).record_used(ids, now)
    }

    fn transact(
        &mut self,
        work: &mut dyn FnMut(&mut dyn WriteTransaction) -> Result<Commit>,
    ) -> Result<()> {
        (**self).transact(work)
    }
}
