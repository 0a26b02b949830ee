//! Lexical ranking for oro-mem, usable with or without SQLite.
//!
//! - [`Bm25Index`] is an in-memory Okapi BM25 index whose scores agree with FTS5's `bm25()` on
//!   the same tokens (tested), for projects that do not want SQLite; its `k1` and `b` can be
//!   changed ([`Bm25Index::with_parameters`]).
//! - [`Bm25Ranker`] ranks [`Candidates`](oro_mem_core::Candidates) by their `lexical` signal,
//!   the FTS5 score a lexical candidate source gave them.
//!
//! # Example
//!
//! ```
//! use oro_mem_rank_bm25::Bm25Index;
//!
//! let mut index = Bm25Index::new();
//! index.insert(1, "SQLite WAL mode allows a single writer at a time");
//! index.insert(2, "Use connection pooling for Postgres");
//! let hits = index.search("how many writers does WAL allow?", 10);
//! assert_eq!(hits.hits()[0].id, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! None.

#![deny(missing_docs)]

mod index;
mod ranker;

pub use index::{Analyzer, Bm25Index};
pub use ranker::Bm25Ranker;
