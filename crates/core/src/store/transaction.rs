//! One write transaction of a store, as the policy written above the stores sees it.

use crate::error::Result;
use crate::memory::{Memory, MemoryId};
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
/// once for every store (consolidation: which memories are near-duplicates, which one is
/// kept, which are stale).
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

    /// The active memories of `memory`'s namespace, other than `memory`, whose BM25 score for
    /// `memory`'s content as a query is at least `at_least` × the score of `memory` itself
    /// for it (its similarity, mostly in `[0, 1]`): at most `limit`, by descending
    /// similarity, then ascending id.
    fn similar_lexically(
        &mut self,
        memory: &Memory,
        at_least: f64,
        limit: usize,
    ) -> Result<Vec<(MemoryId, f64)>>;

    /// Folds `drop` into memory `keep` and deletes `drop` (its embedding with it): `keep`
    /// takes the higher confidence, the sum of both access and return counts (saturating at
    /// [`MAX_ACCESS_COUNT`](crate::memory::MAX_ACCESS_COUNT)), the union of their tags, the
    /// pin if either is pinned, and the later last access.
    fn fold_into(&mut self, keep: MemoryId, drop: &Memory) -> Result<()>;

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
