//! The nouns and contracts of oro-mem: the memory model, queries and filters, the
//! configuration, the store traits and the plug-in traits ([`Ranker`], [`Fuser`]), one error
//! type, and a conformance kit for plug-ins written elsewhere.
//!
//! Nothing here decides how a recall is made: `oro-mem-engine` composes the recall pipeline
//! (gate → rank → fuse → score → estimate → select) and the write policy from a [`Config`],
//! over a store that implements the traits of [`store`]. Text analysis (words, query terms,
//! BM25) is `oro-mem-text`'s.
//!
//! # Example
//!
//! ```
//! use oro_mem_core::{
//!     Candidate, Candidates, Filter, Memory, MemoryType, NewMemory, Query, Ranker, Ranking,
//!     Result, Timestamp,
//! };
//!
//! /// A ranker of your own: shortest memory first.
//! struct Shortest;
//!
//! impl Ranker for Shortest {
//!     fn name(&self) -> &str {
//!         "shortest"
//!     }
//!     fn rank(&self, _query: &Query<'_>, candidates: &Candidates) -> Result<Ranking> {
//!         Ok(Ranking::from_scores(
//!             candidates.iter().map(|c| (c.id(), -(c.memory.content.len() as f64))),
//!         ))
//!     }
//! }
//!
//! let memories = [(1, "WAL mode needs one writer at a time"), (2, "use WAL")].map(|(id, text)| {
//!     let n = NewMemory::new(text, MemoryType::Lesson);
//!     Memory { id, created_at: Timestamp(0), ..example_memory(n) }
//! });
//! let filter = Filter::default();
//! let query = Query::new("wal", &filter);
//! let candidates = Candidates::new(memories.into_iter().map(Candidate::new));
//! let ranking = Shortest.rank(&query, &candidates)?;
//! assert_eq!(ranking.hits()[0].id, 2);
//! # fn example_memory(n: NewMemory) -> Memory {
//! #     Memory { id: 0, content: n.content, memory_type: n.memory_type, tags: n.tags,
//! #         source: n.source, bead_id: None, worker_id: None, session: None,
//! #         namespace: n.namespace, summary: None, files: Vec::new(), entities: Vec::new(),
//! #         metadata: n.metadata, confidence: n.confidence, pinned: false, status: n.status,
//! #         merged_into: None, superseded_by: None, superseded_at: None,
//! #         created_at: Timestamp(0), updated_at: Timestamp(0),
//! #         return_count: 0, access_count: 0, last_accessed: None }
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Main types
//!
//! - [`Memory`], [`NewMemory`], [`MemoryType`], [`Source`], [`Status`]: the model.
//! - [`Query`] and [`Filter`]: what to recall.
//! - [`Candidates`] in, [`Ranking`] out of every [`Ranker`]; [`Fuser`] combines rankings.
//! - [`Config`]: every knob, with the defaults; [`calibration`]: the relevance models it
//!   holds.
//! - [`store`]: the store interface ([`MemoryRead`], [`CandidateSearch`], [`MemoryWrite`]).
//!
//! # Crate features
//!
//! - `testing` (off by default): `testing`, the conformance kit for plug-ins written
//!   elsewhere: the store conformance suite, the ranker contract check, the fuser contract
//!   property tests and a `Memory` builder.

#![deny(missing_docs)]

pub mod calibration;
pub mod config;
mod error;
pub mod memory;
pub mod query;
mod rank;
mod ranking;
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
pub use ranking::{Candidate, CandidateTerms, Candidates, Hit, Neighbour, Ranking, Signal};
pub use store::{
    CandidateSearch, Embedding, ListOrder, MemoryRead, MemoryWrite, ToEmbed, WriteOutcome,
};
pub use time::Timestamp;
