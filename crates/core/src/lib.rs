//! The core of oro-mem: the memory model, the [`Ranker`] and [`Fuser`] traits, scoring policy
//! (confidence × time decay), the token budget, configuration, and the recall [`Pipeline`]
//! that ties them together.
//!
//! Everything here is storage-agnostic: a store produces [`Candidates`] for a [`Query`], the
//! pipeline orders and trims them.
//!
//! # Example
//!
//! ```
//! use oro_mem_core::{
//!     Candidate, Candidates, Config, Filter, Fuser, Memory, MemoryId, Pipeline, Query,
//!     Ranking, Recency, Weighted, Timestamp, MemoryType, NewMemory,
//! };
//!
//! // A fuser that keeps the first list's order (the fusion crate has the real ones).
//! struct First;
//! impl Fuser for First {
//!     fn name(&self) -> &str { "first" }
//!     fn fuse(&self, inputs: &[Weighted<'_>], limit: usize) -> Ranking {
//!         let mut r = inputs.first().map(|i| i.ranking().clone()).unwrap_or_default();
//!         r.truncate(limit);
//!         r
//!     }
//!     fn contributions(&self, inputs: &[Weighted<'_>], id: MemoryId) -> Vec<f64> {
//!         inputs.iter().map(|i| i.ranking().hits().iter()
//!             .find(|h| h.id == id).map_or(0.0, |h| h.score)).collect()
//!     }
//! }
//!
//! let config = Config::default();
//! let pipeline = Pipeline::new(Box::new(First), config.recall.clone(), config.decay.clone())
//!     .ranker(Recency, 1.0);
//! let memories = (1..=3).map(|id| Memory {
//!     id,
//!     created_at: Timestamp(id * 1000),
//!     ..example_memory()
//! });
//! let filter = Filter::default();
//! let query = Query::new("anything", &filter).now(Timestamp(10_000));
//! let recall = pipeline.recall(&query, Candidates::new(memories.map(Candidate::new)))?;
//! assert_eq!(recall.results[0].memory.id, 3); // newest first
//! # fn example_memory() -> Memory {
//! #     let n = NewMemory::new("WAL mode needs one writer", MemoryType::Lesson);
//! #     Memory { id: 0, content: n.content, memory_type: n.memory_type, tags: n.tags,
//! #         source: n.source, bead_id: None, worker_id: None, session: None,
//! #         namespace: n.namespace, summary: None, files: Vec::new(), entities: Vec::new(),
//! #         metadata: n.metadata, confidence: n.confidence, pinned: true, status: n.status,
//! #         created_at: Timestamp(0), updated_at: Timestamp(0), return_count: 0, access_count: 0,
//! #         last_accessed: None }
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Main types
//!
//! - [`Memory`], [`NewMemory`], [`MemoryType`], [`Source`], [`Status`]: the model.
//! - [`Query`] and [`Filter`]: what to recall.
//! - [`Candidates`] in, [`Ranking`] out of every [`Ranker`]; [`Fuser`] combines rankings.
//! - [`Recency`] and [`AccessFrequency`]: rankers over the memories' own bookkeeping.
//! - [`Pipeline`]: fusion, confidence × decay, threshold, near-duplicates, token budget.
//! - [`Config`]: every knob, with the defaults.
//! - [`store`]: the store interface ([`MemoryRead`], [`CandidateSearch`], [`MemoryWrite`]).
//!
//! # Crate features
//!
//! - `testing` (off by default): `testing`, the conformance kit for plug-ins written
//!   elsewhere: the store conformance suite, the ranker contract check, the fuser contract
//!   property tests and a `Memory` builder.

#![deny(missing_docs)]

pub mod calibrate;
pub mod config;
mod error;
pub mod extract;
pub mod memory;
pub mod query;
mod rank;
mod ranking;
pub mod recall;
mod signals;
pub mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod time;

#[cfg(test)]
mod test_support;

pub use config::{Config, Mode, Scoring};
pub use error::{Error, ErrorKind, Result};
pub use memory::{Memory, MemoryId, MemoryType, NewMemory, Source, Status};
pub use query::{Filter, MetaCondition, MetaOp, Near, Query, MAX_FILTER_VALUES};
pub use rank::{Fuser, Ranker, Weighted};
pub use ranking::{Candidate, Candidates, Hit, Neighbour, Ranking, Signal};
pub use recall::{Pipeline, Recall, Recalled};
pub use signals::{AccessFrequency, Coord, Proximity, Recency, Spatial};
pub use store::{
    CandidateSearch, Embedding, ListOrder, MemoryRead, MemoryWrite, ToEmbed, WriteOutcome,
};
pub use time::Timestamp;
