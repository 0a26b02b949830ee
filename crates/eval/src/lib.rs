//! Retrieval evaluation for oro-mem.
//!
//! - [`Dataset`]: a benchmark in BEIR layout (`corpus.jsonl`, `queries.jsonl`,
//!   `qrels/<split>.tsv`), with the optional `namespace`, `created_at` and `metadata.category`
//!   fields that memory benchmarks such as LoCoMo add.
//! - [`metrics`]: nDCG@k, Recall@k and MRR@k as pytrec_eval defines them, and the means and
//!   latency percentiles of a run ([`Summary`]).
//! - [`calibration`]: fitting a relevance model (`recall.calibration`) on judged queries.
//! - [`tune`]: choosing a setting out of sample: leave one group (conversation) out, or
//!   pick on one split and score another.
//! - [`updates`]: real edits (a statement before and after) replayed through the write path,
//!   and what it decided against what each edit was.
//! - [`CachedEmbedder`]: wraps an [`Embedder`](oro_mem_rank_vector::Embedder) with an SQLite
//!   cache keyed by model id and a hash of the text, so a corpus is embedded once per model.
//!
//! - [`run`]: an evaluation from start to end, as `oro-mem eval` runs it: a [`Plan`] (a
//!   dataset split, the settings of a grid ([`grid`]), how recall is scored and how settings
//!   are chosen out of sample) is run over a scratch store through the same engine as
//!   `oro-mem recall`, into a [`Report`] (JSON by `serde`, a table by `Display`), with
//!   [`Event`]s on the way for a person watching.
//!
//! The metrics, datasets and tuning have no opinion on how a ranking is made, so they score
//! any retriever; [`run`] is oro-mem's own.
//!
//! # Example
//!
//! ```
//! use std::collections::HashMap;
//! use oro_mem_eval::metrics::{ndcg_at, recall_at, reciprocal_rank_at};
//!
//! let relevant = HashMap::from([("d2".to_string(), 1)]);
//! let ranked = ["d1", "d2", "d3"];
//! assert_eq!(reciprocal_rank_at(&ranked, &relevant, 10), 0.5);
//! assert_eq!(recall_at(&ranked, &relevant, 1), 0.0);
//! assert!((ndcg_at(&ranked, &relevant, 10) - 1.0 / 3f64.log2()).abs() < 1e-12);
//! ```
//!
//! # Crate features
//!
//! None.

#![deny(missing_docs)]

mod cache;
pub mod calibration;
mod dataset;
mod fitting;
pub mod grid;
pub mod metrics;
mod plan;
mod report;
mod session;
pub mod tune;
pub mod updates;

pub use cache::{CacheStats, CachedEmbedder, EmbeddingCache};
pub use dataset::{Dataset, Doc, EvalQuery, Qrels};
pub use fitting::{read_examples, write_examples, Fitted, FIT_DEPTH};
pub use metrics::{QueryScores, Summary};
pub use plan::{run, Event, Fit, Holdout, Plan};
pub use report::{Chosen, OutOfSample, Report, Row};
