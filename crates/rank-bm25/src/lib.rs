//! Lexical ranking for oro-mem, usable with or without SQLite.
//!
//! - [`fts5_query`] turns any text into a safe FTS5 `MATCH` expression: FTS5 operators and
//!   syntax characters dropped, every term quoted, stopwords and one-letter words dropped, CJK
//!   runs as character-bigram phrases, OR-joined. Nothing left means `None` (no hits), never an
//!   error, and no input produces an FTS5 syntax error (a property test checks this against
//!   SQLite).
//! - [`Bm25Index`] is an in-memory Okapi BM25 index whose scores agree with FTS5's `bm25()` on
//!   the same tokens (tested), for projects that do not want SQLite; its `k1` and `b` can be
//!   changed ([`Bm25Index::with_parameters`]).
//! - [`Bm25Ranker`] ranks [`Candidates`](oro_mem_core::Candidates) by their `lexical` signal,
//!   the FTS5 score a lexical candidate source gave them.
//!
//! # Example
//!
//! ```
//! use oro_mem_rank_bm25::{fts5_query, Bm25Index};
//!
//! assert_eq!(
//!     fts5_query("why is the \"DB\" locked?!").as_deref(),
//!     Some(r#""db" OR "locked""#)
//! );
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
mod query;
mod ranker;
mod stopwords;

pub use index::{Analyzer, Bm25Index};
pub use query::{fts5_query, query_terms, Term, MAX_QUERY_TERMS};
pub use ranker::Bm25Ranker;
pub use stopwords::is_stopword;
