//! The recall engine of oro-mem: it turns a [`Config`](oro_mem_core::Config) into a recall.
//!
//! An [`Engine`] decides, from the configuration, which candidates to gather (full-text,
//! nearest embeddings, or both), which rankers order them with which weights, and which fuser
//! combines their lists; it owns the embedding model (loading it when hybrid or vector recall
//! first needs it), and answers FTS-only when the model cannot run. It is the one place where
//! recall is composed: the `oro-mem` command, its MCP server, `oro-mem eval` and the benchmarks
//! all call it.
//!
//! # Example
//!
//! ```
//! use oro_mem_core::{config::DedupConfig, Config, Filter, MemoryType, NewMemory, Query};
//! use oro_mem_engine::{remember_batch, Engine};
//! use oro_mem_store_sqlite::Store;
//!
//! let mut store = Store::open_in_memory()?;
//! remember_batch(
//!     &mut store,
//!     vec![NewMemory::new("SQLite allows one writer at a time", MemoryType::Gotcha)],
//!     &DedupConfig::default(),
//! )?;
//! let mut engine = Engine::from_config(Config::default())?;
//! let filter = Filter::default();
//! let query = Query::new("why is the database locked by a second writer?", &filter);
//! let answer = engine.recall(&mut store, &query, false)?;
//! assert_eq!(answer.recall.results.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Main types
//!
//! - [`Engine`]: configuration in, [`Answer`] out.
//! - [`Answer`]: the recall and the mode that answered it.
//! - [`Registry`]: the plug-ins a configuration names — candidate sources, rankers, fusers —
//!   built-in or your own, and which sources each mode runs.
//! - [`CandidateSource`]: finds candidates and gives them a per-query signal ([`Lexical`]:
//!   FTS5 BM25; [`Nearest`]: embeddings; [`Feedback`]: pseudo-relevance feedback).
//! - [`remember_embedded`] and [`remember_batch`]: writing with duplicate checks, once for
//!   every store over its write transaction.
//! - [`Engine::remember`] and [`Engine::embed_missing`]: the write path. The engine embeds
//!   (in hybrid and vector mode) and the store keeps the vectors ([`Remembered`],
//!   [`EmbedProgress`]).
//! - [`consolidate`]: merging near-duplicates and archiving stale memories, written once over
//!   any store's write transaction.
//!
//! # Crate features
//!
//! - `minilm` (on by default): when hybrid or vector recall needs a model and none was given
//!   ([`Engine::with_embedder`]), load the local all-MiniLM-L6-v2 model.
//! - `testing` (off by default): `testing`, the shared recall fixtures (`fixtures/recall`) for
//!   other crates' tests.

#![deny(missing_docs)]

mod consolidate;
mod dedup;
mod engine;
mod feedback;
pub mod pipeline;
mod rankers;
mod registry;
mod source;
#[cfg(test)]
mod test_support;
#[cfg(feature = "testing")]
pub mod testing;
mod write;

pub use consolidate::{consolidate, is_alike, keeps};
pub use dedup::{link_versions, remember_batch, remember_embedded, Linked, VersionLink};
pub use engine::{min_similarity, Answer, EmbedderLoader, Engine, Gathered};
pub use feedback::{expansion, Feedback, FeedbackRanker};
pub use pipeline::{Abstention, Estimate, Pipeline, Recall, Recalled};
pub use rankers::{AccessFrequency, Coord, Proximity, Recency, Spatial};
pub use registry::{FuserFactory, RankerFactory, Registry, SourceFactory};
pub use source::{CandidateSource, Found, Lexical, Nearest, QueryEmbedding, Search, SourceContext};
pub use write::{embed_in_context, EmbedProgress, Reembedded, Remembered, EMBED_CLAIM};
