//! The cost of deduplicated writes at a store size criterion would take too long to build per
//! run: two `Engine::remember` batches of 100 new memories into a copy of an N-memory
//! synthetic store, with dedup off (the baseline) and then on, three times. The first batch
//! pays for reading the index into the duplicate checks' mirror; the next reuses it.
//!
//! `cargo run --release -p oro-mem-benches --example ingest_at -- [N=100000] [DIR]`; the
//! store is built once into DIR (default: the system temp directory) and reused.

use std::path::PathBuf;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::{MemoryType, NewMemory};
use oro_mem_store_sqlite::Store;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map_or(100_000, |s| s.parse().expect("N must be a number"));
    let dir = args.next().map_or_else(std::env::temp_dir, PathBuf::from);
    let template = dir.join(format!("oro-mem-synthetic-{n}.db"));
    if !template.exists() {
        eprintln!("building {} ...", template.display());
        drop(oro_mem_benches::build_store(&template, n));
    }
    // A template from an older schema is migrated once, not in every copy.
    drop(Store::open(&template).expect("open the store"));
    let copy = dir.join("oro-mem-ingest-copy.db");
    let texts = oro_mem_benches::memories(n + 200).split_off(n);
    for enabled in [false, true, true, true] {
        std::fs::copy(&template, &copy).expect("copy the store");
        let mut store = Store::open(&copy).expect("open the copy");
        let mut engine = oro_mem_benches::fts_engine();
        let dedup = DedupConfig {
            enabled,
            ..DedupConfig::default()
        };
        // The first batch into a store just opened, then one more into the same store, as
        // the next batch of an import or a write to a warm server.
        for (i, texts) in texts.chunks(100).enumerate() {
            let batch: Vec<_> = texts
                .iter()
                .map(|t| (NewMemory::new(t.clone(), MemoryType::Lesson), None))
                .collect();
            let started = std::time::Instant::now();
            engine.remember(&mut store, batch, &dedup).expect("write");
            println!(
                "{n} memories, dedup {}, {} batch of 100: {:.2} ms per write",
                if enabled { "on " } else { "off" },
                if i == 0 { "first" } else { "next " },
                started.elapsed().as_secs_f64() * 1000.0 / 100.0
            );
        }
    }
    let _ = std::fs::remove_file(&copy);
}
