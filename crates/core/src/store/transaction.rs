//! One write transaction of a store, as the policy written above the stores sees it.

use crate::error::Result;
use crate::memory::{Memory, MemoryId, NewMemory};
use crate::store::Embedding;
use crate::time::Timestamp;

/// Whether [`MemoryWrite::transact`](crate::MemoryWrite::transact) keeps what its work did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Commit {
    /// Commit: every change the work made is kept, at once.
    Yes,
    /// Roll back: nothing the work did is kept (a dry run).
    No,
}

/// The primitives of one write transaction of a store, on which the engine writes its policy
/// once for every store: duplicate checks on write (which memory a new one repeats, and
/// whether it is merged into it or skipped) and consolidation (which memories are
/// near-duplicates, which one is kept, which are stale).
///
/// A transaction holds the store's write lock from its start, so what it reads is not
/// changed by another writer before it ends; what it reads sees what it wrote. Each method is
/// a step a store can take in its own terms (SQL, an index of its own); none decides what
/// should be written.
///
/// # Errors
///
/// Every method fails with [`ErrorKind::Storage`](crate::ErrorKind::Storage) when the store
/// does; the transaction is then rolled back, whatever the work returns.
pub trait WriteTransaction {
    /// Every active memory, by ascending id.
    fn active_memories(&mut self) -> Result<Vec<Memory>>;

    /// Writes `memories`, each with its embedding if it has one, as of `now` (a memory with
    /// no creation time is created then); returns their ids, in order. The memories must be
    /// valid ([`validate_batch`](crate::memory::validate_batch)). A memory written into the
    /// middle of its session drops, when the transaction commits, the embeddings of the
    /// memories after it there, which were made without it among the memories before them.
    fn insert(
        &mut self,
        memories: &[(&NewMemory, Option<&Embedding>)],
        now: Timestamp,
    ) -> Result<Vec<MemoryId>>;

    /// [`insert`](Self::insert) of one memory, provisionally: the lookups that follow see it
    /// (its own text counts in the full-text index's statistics, as a duplicate check needs),
    /// and [`withdraw`](Self::withdraw) takes it back until the next write.
    fn insert_provisionally(
        &mut self,
        memory: &NewMemory,
        embedding: Option<&Embedding>,
        now: Timestamp,
    ) -> Result<MemoryId>;

    /// Takes back the provisional write of memory `id`, the last write, as if it had never
    /// been made.
    fn withdraw(&mut self, id: MemoryId) -> Result<()>;

    /// How many memories the store holds, of every namespace and status, a provisional one
    /// included: the documents of the full-text index's BM25 statistics. Counts up to `most`
    /// and no further (the answer is at most `most`).
    fn memories_up_to(&mut self, most: u64) -> Result<u64>;

    /// Memory `id`, as this transaction sees it.
    ///
    /// [`ErrorKind::NotFound`](crate::ErrorKind::NotFound) when there is none.
    fn memory(&mut self, id: MemoryId) -> Result<Memory>;

    /// The active memories of `namespace`, other than memory `id`, whose BM25 score for
    /// `content` as a query is at least `at_least` × the score of memory `id` (which holds
    /// `content`, or its words) for it: its similarity, mostly in `[0, 1]`. At most `limit`,
    /// by descending similarity.
    fn similar_lexically(
        &mut self,
        id: MemoryId,
        content: &str,
        namespace: &str,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>>;

    /// The active memories of `namespace`, other than memory `id`, with an embedding by
    /// `embedding`'s model (of its dimension) near `embedding`, and their exact cosine with
    /// it, by descending cosine: the nearest few the store's index finds, and those this
    /// transaction wrote.
    fn similar_by_vector(
        &mut self,
        id: MemoryId,
        namespace: &str,
        embedding: &Embedding,
    ) -> Result<Vec<(MemoryId, f64)>>;

    /// Memory `id`'s embedding and the model that made it, whatever its status; `None` when
    /// it has none. A memory this transaction wrote counts.
    fn embedding_of(&mut self, id: MemoryId) -> Result<Option<Embedding>>;

    /// Sets memory `id`'s confidence to `confidence`, as of `now`.
    fn set_confidence(&mut self, id: MemoryId, confidence: f64, now: Timestamp) -> Result<()>;

    /// Folds `drop` into memory `keep` and keeps `drop`, merged into it
    /// ([`Status::Merged`](crate::Status::Merged), [`Memory::merged_into`]): no longer
    /// recalled, and restorable. `keep` takes the higher confidence, the sum of both access and return counts (saturating at
    /// [`MAX_ACCESS_COUNT`](crate::memory::MAX_ACCESS_COUNT)), the union of their tags, the
    /// pin if either is pinned, and the later last access.
    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()>;

    /// Marks memory `old` superseded by memory `by` as of `now`
    /// ([`Status::Superseded`](crate::Status::Superseded), [`Memory::superseded_by`],
    /// [`Memory::superseded_at`]): no longer recalled, and restorable. `by`, the newer state of
    /// the same fact, takes over what `old` had earned: the larger of each of their access and
    /// return counts, the later last access, and the pin if `old` is pinned, so that a fact
    /// recalled often or pinned does not rank lower, nor lose its pin, for having changed.
    fn supersede(&mut self, old: MemoryId, by: MemoryId, now: Timestamp) -> Result<()>;

    /// The active memories, not pinned, of confidence below `below`, neither accessed nor
    /// created since `unused_since`, by ascending id.
    fn stale(&mut self, below: f64, unused_since: Timestamp) -> Result<Vec<MemoryId>>;

    /// Archives the memories `ids` as of `now`.
    fn archive(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()>;

    /// `left` left their sessions (deleted or archived in this transaction, as they were
    /// before): drops the embeddings of the active memories now after each of them in its
    /// session, which were made with it among the memories before them. Returns those
    /// memories, by ascending id; they wait to be embedded again.
    fn unembed_after(&mut self, left: &[&Memory]) -> Result<Vec<MemoryId>>;
}
