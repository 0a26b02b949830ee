//! The PostgreSQL store of oro-mem: the same memories as the SQLite store, on a server that
//! several machines share.
//!
//! - **Tables** in the connection's current schema (so teams can share a server, a schema
//!   each: `?options=-csearch_path%3Dteam_a` in the URL), created and migrated by
//!   [`Store::open`] under an advisory lock.
//! - **BM25 as FTS5 computes it.** PostgreSQL's `ts_rank` is not BM25, and its stemmer is not
//!   FTS5's. This store keeps its own postings (each term's frequency in each memory), each
//!   term's document frequency and the store's totals, maintained by triggers, and scores
//!   with FTS5's `bm25()` formula in one query ([`oro_mem_text::bm25`]). Its terms come from
//!   the full-text index's own tokenizer (`porter unicode61`, run in memory:
//!   [`oro_mem_text::Analyzer`]), so both stores rank a query's matches alike.
//! - **Vectors** in a pgvector column, one HNSW index (cosine) per embedding model, searched
//!   with iterative scans under filters; what it finds is rescored exactly from the stored
//!   vectors.
//! - **Writers** that add or remove memories take one advisory lock per transaction, so a
//!   duplicate check sees every memory committed before it; reads never wait for it. Every
//!   value is a bound parameter.
//! - **Credentials** come from the URL, `PGPASSWORD` or the password file, and are never
//!   shown: [`Location`] prints the database without its password.
//!
//! # Crate features
//!
//! - `testing`: `testing::TestServer`, the test server (`scripts/postgres`) with a fresh
//!   schema per store, for other crates' tests.

#![deny(missing_docs)]

mod connect;
mod interface;
mod schema;
mod search;
mod sql;
mod store;
mod tls;
mod transaction;
mod write;

pub use connect::{is_postgres_location, Location};
pub use oro_mem_core::store::{ConsolidateReport, Embedding, ListOrder, WriteOutcome};
pub use schema::SCHEMA_VERSION;
pub use store::Store;

#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tls_tests;
