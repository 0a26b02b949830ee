//! Text analysis for oro-mem, the one place where text becomes terms and terms become BM25
//! scores: every store and ranker of the project uses it, so they all cut text and score it
//! alike, and alike with the full-text index.
//!
//! - Words and query terms: segmentation as SQLite FTS5's `unicode61` tokenizer does it for
//!   alphabetic scripts (letters and digits form words, everything else separates them),
//!   Chinese, Japanese and Korean text split into single characters ([`segments`], [`words`],
//!   [`spaced_cjk`]), and the terms a lexical query searches for, whatever the index's query
//!   syntax ([`query_terms`]: stopwords, one-letter words and FTS5's operators left out).
//! - [`Analyzer`]: the index's own tokenizer (`porter unicode61`) run in memory, for what
//!   must score outside FTS5 exactly as FTS5 does (the PostgreSQL store, the SQLite store's
//!   warm copy of its index). Feature `analyzer`.
//! - [`QueryTerms`]: a query's terms as the index matches them (stemmed), and what a text
//!   holds of them ([`Held`]: which terms, where, and its coverage of the query, plain and
//!   with each term weighed by how few projects' documents use it: [`specificity`]).
//! - [`bm25`]: FTS5's BM25, its parameters and the bound MaxScore pruning needs.
//! - [`LEXICAL_FIELDS`]: the fields an index searches and their weights.
//! - [`values`]: the values a statement names (numbers, versions, paths, commands,
//!   identifiers), compared exactly ([`same_values`]): a changed fact against a reworded one.
//! - Small helpers: negation ([`is_negated`], [`same_polarity`]), a word-set Jaccard
//!   ([`jaccard`]), an English [`Stemmer`].
//!
//! # Example
//!
//! ```
//! use oro_mem_text::{query_terms, Term};
//!
//! let terms = query_terms("Why is the database locked by a writer?");
//! assert_eq!(
//!     terms,
//!     [Term::Word("database".into()), Term::Word("locked".into()), Term::Word("writer".into())],
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Crate features
//!
//! - `analyzer` (on by default): [`Analyzer`], [`Fields`] and [`Document`]. It runs FTS5 in an
//!   in-memory SQLite database (rusqlite, SQLite bundled).

#![deny(missing_docs)]

#[cfg(feature = "analyzer")]
mod analyze;
pub mod bm25;
mod error;
mod specific;
mod stem;
mod stopwords;
mod terms;
mod values;
mod words;

#[cfg(feature = "analyzer")]
pub use analyze::{Analyzer, Document, Fields};
pub use error::{Error, ErrorKind, Result};
pub use specific::specificity;
pub use stem::Stemmer;
pub use terms::{Held, QueryTerms};
pub use values::{
    changed_value, extends, holds_the_other, identifiers, names, plain_words, rewords, same_entry,
    same_passage, same_values, says_beside, says_changed, subject_replaced, updates, values,
};
pub use words::*;
