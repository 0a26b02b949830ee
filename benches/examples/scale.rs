//! Latency at scale, on a synthetic store anyone can rebuild: the lexical candidates, the
//! vector stage (index and exact rescoring), and the whole hybrid recall, over the benches'
//! content and question queries; and the vector stage's recall@10 against an exact scan.
//!
//! ```text
//! cargo run --release -p oro-mem-benches --example scale -- --memories 1000000 --dir DIR
//! ```
//!
//! The store is `DIR/scale-N.db`, built by [`build_embedded_store`] (384-dimensional synthetic
//! embeddings; about 165 s and 2.6 GB for a million memories) or reused when a finished build
//! of the same generator and size is there: a build goes to a temporary file that is renamed
//! when complete, then stamped, so an interrupted one is never reused. Timings are taken after
//! one warm-up round, over [`ROUNDS`] rounds of every query; the query embedding is made
//! beforehand and not timed. Recall@10 is over the timed queries and the openings of 100 stored
//! memories. The store is warm, as `oro-mem serve` holds it ([`Store::set_warm`]: lexical
//! search reads an in-memory mirror of the full-text index, read during the warm-up); with
//! `--cold` it searches through FTS5 as a one-off command does. Output, one line each:
//!
//! ```text
//! lexical p50_ms=X p95_ms=Y
//! vector p50_ms=X p95_ms=Y
//! hybrid p50_ms=X p95_ms=Y
//! recall_at_10=Z
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use oro_mem_benches::{
    build_embedded_store, hybrid_engine, memories, SyntheticEmbedder, CONTENT_QUERIES,
    QUESTION_QUERIES, SYNTHETIC_MODEL,
};
use oro_mem_core::{Filter, Query, Timestamp};
use oro_mem_rank_vector::Embedder;
use oro_mem_store_sqlite::Store;

/// Timed rounds over every query, after one warm-up round.
const ROUNDS: usize = 5;

/// Changes whenever the synthetic corpus or its embeddings change, so an old store is rebuilt.
const GENERATOR: &str = "oro-mem-benches synthetic v1";

/// Candidates per list, as recall asks for by default.
const DEPTH: usize = 50;

/// Queries made from stored memories' openings, besides the timed ones, for recall@10.
const RECALL_QUERIES: usize = 100;

fn main() {
    let (n, dir, cold) = match args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("scale: {e}\nusage: scale [--memories N] --dir DIR [--cold]");
            std::process::exit(2);
        }
    };
    let mut store = open_or_build(&dir, n);
    store.set_warm(!cold);

    let texts: Vec<&str> = CONTENT_QUERIES
        .iter()
        .chain(QUESTION_QUERIES)
        .copied()
        .collect();
    let vectors = SyntheticEmbedder.embed(&texts).expect("embed queries");
    let mut engine = hybrid_engine(&texts);
    let all = Filter::default();
    let now = Timestamp::now();

    let (mut lexical, mut vector, mut hybrid) = (Vec::new(), Vec::new(), Vec::new());
    let mut warm = None;
    for round in 0..=ROUNDS {
        for (text, q) in texts.iter().zip(&vectors) {
            // The three stages in turn for each query, so a noisy moment hits them alike.
            let t = Instant::now();
            store
                .lexical_candidates(text, &all, DEPTH)
                .expect("lexical candidates");
            let l = t.elapsed();
            let t = Instant::now();
            store
                .vector_candidates(SYNTHETIC_MODEL, q, &all, DEPTH)
                .expect("vector candidates");
            let v = t.elapsed();
            let t = Instant::now();
            engine
                .recall(&mut store, &Query::new(text, &all).now(now), false)
                .expect("hybrid recall");
            let h = t.elapsed();
            if round == 0 && lexical.is_empty() && warm.is_none() {
                // The first search of a warm store reads the mirror of the index.
                warm = Some(l);
            }
            if round > 0 {
                lexical.push(l.as_secs_f64() * 1e3);
                vector.push(v.as_secs_f64() * 1e3);
                hybrid.push(h.as_secs_f64() * 1e3);
            }
        }
    }

    // A namespace condition makes the store score every embedding exactly (every synthetic
    // memory is in "default"): the answer the index must match.
    let exact = Filter {
        namespace: Some("default".into()),
        ..Filter::default()
    };
    // The timed queries, and the openings of 100 stored memories (6 words each) for more of
    // them.
    let openings: Vec<String> = memories(RECALL_QUERIES)
        .iter()
        .map(|t| t.split_whitespace().take(6).collect::<Vec<_>>().join(" "))
        .collect();
    let openings: Vec<&str> = openings.iter().map(String::as_str).collect();
    let more = SyntheticEmbedder.embed(&openings).expect("embed queries");
    let mut found = 0usize;
    let mut wanted = 0usize;
    for q in vectors.iter().chain(&more) {
        let ids = |filter: &Filter| -> Vec<i64> {
            store
                .vector_candidates(SYNTHETIC_MODEL, q, filter, 10)
                .expect("vector candidates")
                .into_iter()
                .map(|(id, _)| id)
                .collect()
        };
        let truth = ids(&exact);
        let got = ids(&all);
        found += truth.iter().filter(|id| got.contains(id)).count();
        wanted += truth.len();
    }

    if let Some(first) = warm {
        eprintln!(
            "scale: first lexical search {:.0} ms ({})",
            first.as_secs_f64() * 1e3,
            if cold {
                "FTS5"
            } else {
                "reads the mirror of the index"
            }
        );
    }
    for (name, times) in [("lexical", lexical), ("vector", vector), ("hybrid", hybrid)] {
        let (p50, p95) = percentiles(times);
        println!("{name} p50_ms={p50:.2} p95_ms={p95:.2}");
    }
    println!("recall_at_10={:.4}", found as f64 / wanted.max(1) as f64);
}

/// `--memories N` (default 100,000), `--dir DIR` and `--cold`.
fn args() -> Result<(usize, PathBuf, bool), String> {
    let mut n = 100_000;
    let mut dir = None;
    let mut cold = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--memories" => {
                let v = value("--memories")?;
                n = v
                    .replace('_', "")
                    .parse()
                    .map_err(|_| format!("--memories must be a whole number, got {v:?}"))?;
            }
            "--dir" => dir = Some(PathBuf::from(value("--dir")?)),
            "--cold" => cold = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if n == 0 {
        return Err("--memories must be at least 1".into());
    }
    Ok((n, dir.ok_or("--dir is required")?, cold))
}

/// The finished store of `n` memories in `dir`, built first unless a stamped one is there.
fn open_or_build(dir: &Path, n: usize) -> Store {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(format!("scale-{n}.db"));
    let stamp_path = dir.join(format!("scale-{n}.stamp"));
    let stamp = format!("{GENERATOR}, {n} memories\n");
    if path.is_file() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        eprintln!("scale: reusing {}", path.display());
        return Store::open(&path).expect("open the store");
    }
    let _ = std::fs::remove_file(&stamp_path);
    let partial = dir.join(format!("scale-{n}.db.partial"));
    for stale in [&path, &partial] {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", stale.display()));
        }
    }
    eprintln!("scale: building {} ({n} memories)", path.display());
    let t = Instant::now();
    drop(build_embedded_store(&partial, n)); // closing checkpoints the log into the file
    std::fs::rename(&partial, &path).expect("rename the finished store");
    std::fs::write(&stamp_path, stamp).expect("stamp the finished store");
    eprintln!("scale: built in {:.0} s", t.elapsed().as_secs_f64());
    Store::open(&path).expect("open the store")
}

/// The 50th and 95th percentiles (nearest rank) of `times`.
fn percentiles(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
    (at(0.50), at(0.95))
}
