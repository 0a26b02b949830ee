//! Conformance kit for plug-ins written outside this workspace (feature `testing`): the checks
//! oro-mem's own stores, rankers and fusers pass, for yours to pass too.
//!
//! - [`store_conformance`]: everything the engine and the commands rely on of a store
//!   (reading, filtering, lexical and vector search, every write, duplicates, embeddings).
//! - [`ranker_contract`]: a [`Ranker`](crate::Ranker) keeps the trait's contract on varied
//!   candidate sets (ids from the candidates, unique, sorted, finite, deterministic,
//!   independent of candidate order, and silent about candidates without its signal).
//! - [`fuser_contract`]: property tests of a [`Fuser`](crate::Fuser)'s contract (sorted,
//!   unique, limited, order-independent, a weight-0 list changes nothing, contributions sum to
//!   the fused score).
//! - [`MemoryBuilder`]: a stored [`Memory`](crate::Memory) in one line, for rankers' tests.
//!
//! Each check panics with a message naming the broken rule, so it reads as a failed test.
//!
//! ```
//! use oro_mem_core::testing::ranker_contract;
//! use oro_mem_core::{Candidates, Query, Ranker, Ranking, Result};
//!
//! /// Most accessed first.
//! struct Accessed;
//!
//! impl Ranker for Accessed {
//!     fn name(&self) -> &str {
//!         "accessed"
//!     }
//!     fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
//!         Ok(Ranking::from_scores(
//!             candidates.iter().map(|c| (c.id(), c.memory.access_count as f64)),
//!         ))
//!     }
//! }
//!
//! ranker_contract(&Accessed);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fuser;
mod memory;
mod ranker;
mod store;

pub use fuser::fuser_contract;
pub use memory::MemoryBuilder;
pub use ranker::ranker_contract;
pub use store::store_conformance;
