//! Where FTS-mode recall time goes in the engine: the store's own lexical search, the
//! engine's candidate stage (sources and their signals), and the whole recall (plus rank,
//! fuse, score, select), as medians of several rounds over the synthetic corpus.
//!
//! Run: `cargo run --release -p oro-mem-benches --example recall_stages -- [MEMORIES]`
//! (default 1000).

use std::time::Instant;

use oro_mem_benches::{build_store, fts_engine, CONTENT_QUERIES};
use oro_mem_core::{Filter, Query, Timestamp};

const CALLS: usize = 2_000;
const ROUNDS: usize = 7;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("MEMORIES must be a whole number"))
        .unwrap_or(1_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = build_store(&dir.path().join("s.db"), n);
    let mut engine = fts_engine();
    let filter = Filter::default();
    let now = Timestamp::now();
    let query = |i: usize| Query::new(CONTENT_QUERIES[i % CONTENT_QUERIES.len()], &filter).now(now);
    // The three are timed in turn within each round, so a noisy moment hits them alike.
    let (mut lexical, mut candidates, mut recall) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        lexical.push(per_call(|i| {
            store
                .lexical_candidates(query(i).text, &filter, 50)
                .expect("search");
        }));
        candidates.push(per_call(|i| {
            engine.candidates(&store, &query(i)).expect("candidates");
        }));
        recall.push(per_call(|i| {
            engine.recall(&mut store, &query(i), false).expect("recall");
        }));
    }
    let (lexical, candidates, recall) = (median(lexical), median(candidates), median(recall));
    println!(
        "{n} memories, median µs per call: store lexical search {lexical:.1}, engine candidate \
         stage {candidates:.1}, whole recall {recall:.1}"
    );
}

/// Microseconds per call of `f` over [`CALLS`] calls.
fn per_call(mut f: impl FnMut(usize)) -> f64 {
    let t = Instant::now();
    (0..CALLS).for_each(&mut f);
    t.elapsed().as_secs_f64() / CALLS as f64 * 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
