//! The SQLite store of oro-mem.
//!
//! One file holds everything: the `memories` table, an FTS5 index over content and tags
//! (`porter unicode61`, with CJK text indexed one character per token so any CJK word matches
//! as a phrase), kept in sync by triggers, and embeddings with a vector index (`vector_bits`:
//! each vector's sign bits packed 512 to a blob; what it finds is rescored exactly from the
//! stored `f32` vectors; see [`Store::vector_candidates`]). The schema version lives in
//! `PRAGMA user_version`; [`Store::open`] applies forward migrations, each in one transaction.
//! The database runs in WAL mode with a busy timeout, every statement is parameterized and
//! every write runs in a `BEGIN IMMEDIATE` transaction, so several processes can share one
//! database.
//!
//! # Example
//!
//! ```
//! use oro_mem_core::store::Commit;
//! use oro_mem_core::{Filter, MemoryType, NewMemory, Timestamp};
//! use oro_mem_store_sqlite::Store;
//!
//! let mut store = Store::open_in_memory()?;
//! let gotcha = NewMemory::new("SQLite WAL mode allows a single writer", MemoryType::Gotcha);
//! // One write transaction of primitives; the engine's `remember_batch` adds duplicate checks.
//! store.transact(&mut |tx| {
//!     tx.insert(&[(&gotcha, None)], Timestamp::now())?;
//!     Ok(Commit::Yes)
//! })?;
//!
//! let candidates = store.lexical_candidates("single writer?", &Filter::default(), 50)?;
//! assert_eq!(candidates.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Main types
//!
//! - [`Store`]: open, write (one transaction of primitives, [`Store::transact`]: insert, find
//!   similar by words or embedding, fold, archive, on which the engine checks duplicates and
//!   consolidates), get, list, forget, pin, search (lexical and vector), record access, list
//!   what lacks an embedding and store those made later ([`Store::claim_unembedded`],
//!   [`Store::set_embeddings`]). The store never runs a model.
//! - [`fts5_query`]: any text as a safe FTS5 `MATCH` expression.
//! - [`quant`]: the sign bits, `i8` quantization and SIMD scans of the vector index.
//! - [`WriteOutcome`]: inserted, merged into a duplicate, or skipped.
//! - [`OtherMemory`] and [`Embedding`]: another store's memories, read by
//!   [`Store::read_other`], written here through [`Store::transact`].
//! - [`Stats`], [`ConsolidateReport`], [`ListOrder`].
//!
//! # Crate features
//!
//! None.

#![deny(missing_docs)]

mod filter;
mod fts5;
mod interface;
mod mirror;
pub mod quant;
mod rescore;
mod row;
mod schema;
mod search;
mod similar;
mod store;
mod transaction;
mod vectors;
mod write;

pub use fts5::fts5_query;
pub use oro_mem_core::store::{
    ConsolidateReport, Embedding, ListOrder, OtherMemory, Stats, WriteOutcome,
};
pub use schema::SCHEMA_VERSION;
pub use store::{Store, APPLICATION_ID, READ_ONLY_FROM};

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vector_tests;
