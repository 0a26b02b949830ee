//! The vector index and the embedding write path, with deterministic test embedders (the
//! real model is exercised by the CLI tests).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::quant::dot_f32;
use oro_mem_core::config::{ConsolidateConfig, DedupConfig};
use oro_mem_core::{ErrorKind, Filter, MemoryType, NewMemory, Result, Status, Timestamp};
use oro_mem_rank_vector::{normalize, Embedder};

use crate::schema;
use crate::{Store, WriteOutcome};

/// Hashes each word to a signed coordinate: texts sharing words point the same way.
#[derive(Debug)]
struct Words;

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

impl Embedder for Words {
    fn model_id(&self) -> &str {
        "test/words"
    }
    fn dimension(&self) -> usize {
        64
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; 64];
                for w in t.split_whitespace() {
                    let h = fnv(&w.to_lowercase());
                    v[(h % 64) as usize] += if h & 64 == 0 { 1.0 } else { -1.0 };
                }
                normalize(&mut v);
                v
            })
            .collect())
    }
}

/// A pseudo-random unit vector per text: no structure, the hardest case for quantization.
#[derive(Debug)]
struct Random {
    dim: usize,
    model: &'static str,
    calls: AtomicUsize,
    fail_after: usize,
}

impl Random {
    fn new(dim: usize) -> Random {
        Random {
            dim,
            model: "test/random",
            calls: AtomicUsize::new(0),
            fail_after: usize::MAX,
        }
    }
}

impl Embedder for Random {
    fn model_id(&self) -> &str {
        self.model
    }
    fn dimension(&self) -> usize {
        self.dim
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if self.calls.fetch_add(1, Ordering::SeqCst) >= self.fail_after {
            return Err(oro_mem_core::Error::new(
                ErrorKind::Embedding,
                "model went away",
            ));
        }
        Ok(texts
            .iter()
            .map(|t| {
                let mut state = fnv(t);
                let mut v: Vec<f32> = (0..self.dim)
                    .map(|_| {
                        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                        let mut z = state;
                        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                        ((z ^ (z >> 31)) >> 11) as f32 / (1u64 << 53) as f32 - 0.5
                    })
                    .collect();
                normalize(&mut v);
                v
            })
            .collect())
    }
}

fn no_dedup() -> DedupConfig {
    DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    }
}

fn lesson(text: &str) -> NewMemory {
    NewMemory::new(text, MemoryType::Lesson)
}

fn embedded_store(embedder: Arc<dyn Embedder>, n: usize) -> Store {
    let mut s = Store::open_in_memory().unwrap();
    s.set_embedder(embedder);
    let batch: Vec<NewMemory> = (0..n)
        .map(|i| lesson(&format!("memory number {i}")))
        .collect();
    for chunk in batch.chunks(700) {
        s.remember_batch(chunk.to_vec(), &no_dedup()).unwrap();
    }
    s
}

/// Every embedding under `filter`, scored exactly: the reference for the index.
fn exact(s: &Store, model: &str, q: &[f32], k: usize) -> Vec<i64> {
    // A namespace condition takes the exact-scan path.
    let f = Filter {
        namespace: Some("default".into()),
        ..Filter::default()
    };
    s.vector_candidates(model, q, &f, k)
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

#[test]
fn quantized_index_finds_the_exact_nearest() {
    let emb = Arc::new(Random::new(96));
    let s = embedded_store(emb.clone(), 3000);
    let mut hits = 0;
    let queries = 40;
    for i in 0..queries {
        let q = &emb.embed(&[&format!("query {i}")]).unwrap()[0];
        let fast = s
            .vector_candidates("test/random", q, &Filter::default(), 10)
            .unwrap();
        let want = exact(&s, "test/random", q, 10);
        assert_eq!(fast.len(), 10);
        // The fast path's cosines are exact, best first.
        assert!(fast.windows(2).all(|w| w[0].1 >= w[1].1));
        hits += fast.iter().filter(|(id, _)| want.contains(id)).count();
    }
    let recall = hits as f64 / (10 * queries) as f64;
    assert!(recall >= 0.99, "recall@10 {recall}");
}

#[test]
fn index_follows_forget_consolidate_and_rebuild() {
    let emb = Arc::new(Random::new(32));
    let mut s = embedded_store(emb.clone(), 1200);
    let q = emb.embed(&["memory number 7"]).unwrap().remove(0);
    let top = s
        .vector_candidates("test/random", &q, &Filter::default(), 3)
        .unwrap();
    assert_eq!(top[0].0, 8); // ids start at 1
    assert!((top[0].1 - 1.0).abs() < 1e-5);

    s.forget(8).unwrap();
    let top = s
        .vector_candidates("test/random", &q, &Filter::default(), 3)
        .unwrap();
    assert!(top.iter().all(|(id, _)| *id != 8));
    let chunks: i64 = s
        .connection()
        .query_row("SELECT sum(len) FROM vector_chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(chunks, 1199);

    // Archived memories leave the active answer but stay indexed.
    s.set_status(9, Status::Archived).unwrap();
    let q9 = emb.embed(&["memory number 8"]).unwrap().remove(0);
    let top = s
        .vector_candidates("test/random", &q9, &Filter::default(), 5)
        .unwrap();
    assert!(top.iter().all(|(id, _)| *id != 9));
    let archived = Filter {
        status: Some(Status::Archived),
        ..Filter::default()
    };
    let top = s
        .vector_candidates("test/random", &q9, &archived, 5)
        .unwrap();
    assert_eq!(top[0].0, 9);

    let before: Vec<_> = s
        .vector_candidates("test/random", &q, &Filter::default(), 20)
        .unwrap();
    s.connection()
        .execute("DELETE FROM vector_chunks", [])
        .unwrap();
    assert!(s
        .vector_candidates("test/random", &q, &Filter::default(), 20)
        .unwrap()
        .is_empty());
    s.rebuild_index().unwrap();
    let after: Vec<_> = s
        .vector_candidates("test/random", &q, &Filter::default(), 20)
        .unwrap();
    assert_eq!(before, after);

    // Consolidation deletes merged memories; their rows leave the index.
    let mut s = Store::open_in_memory().unwrap();
    s.set_embedder(Arc::new(Words));
    for t in [
        "the build cache must be cleared after upgrading rust",
        "the build cache must be cleared after upgrading rust",
    ] {
        s.remember(lesson(t), &no_dedup()).unwrap();
    }
    let report = s
        .consolidate(&ConsolidateConfig::default(), Timestamp::now(), false)
        .unwrap();
    assert_eq!(report.merged.len(), 1);
    let rows: i64 = s
        .connection()
        .query_row("SELECT sum(len) FROM vector_chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
}

#[test]
fn cosine_duplicates_merge_like_lexical_ones() {
    let mut s = Store::open_in_memory().unwrap();
    s.set_embedder(Arc::new(Words));
    let dedup = DedupConfig {
        bm25: 2.0, // off: only the cosine rule can fire
        ..DedupConfig::default()
    };
    let first = s
        .remember(lesson("Alpha beta gamma delta epsilon"), &dedup)
        .unwrap();
    // Same words, other order and case: identical bag-of-words vector.
    let again = s
        .remember(
            lesson("epsilon DELTA gamma beta alpha").confidence(0.95),
            &dedup,
        )
        .unwrap();
    match again {
        WriteOutcome::Merged {
            into, similarity, ..
        } => {
            assert_eq!(into, first.id());
            assert!(similarity > 0.99);
        }
        other => panic!("expected a merge, got {other:?}"),
    }
    // In one batch, the second of two duplicates is caught before the index holds the first.
    let out = s
        .remember_batch(
            vec![lesson("zeta eta theta iota"), lesson("iota theta eta zeta")],
            &dedup,
        )
        .unwrap();
    assert!(
        matches!(out[1], WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == out[0].id())
    );
    // Another namespace is not a duplicate.
    let other = s
        .remember(
            lesson("alpha beta gamma delta epsilon").namespace("elsewhere"),
            &dedup,
        )
        .unwrap();
    assert!(matches!(other, WriteOutcome::Inserted { .. }));
}

#[test]
fn embed_missing_is_resumable_and_replaces_other_models() {
    let mut s = Store::open_in_memory().unwrap();
    let batch: Vec<NewMemory> = (0..1100).map(|i| lesson(&format!("text {i}"))).collect();
    s.remember_batch(batch, &no_dedup()).unwrap();
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1100);

    // The model fails during the third batch: two batches stay written.
    let flaky = Random {
        fail_after: 2,
        ..Random::new(16)
    };
    s.set_embedder(Arc::new(flaky));
    let mut seen = Vec::new();
    let err = s.embed_missing(400, |p| seen.push(p.done)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedding);
    assert_eq!(seen, [0, 400, 800]);
    assert_eq!(s.count_unembedded("test/random").unwrap(), 300);

    s.set_embedder(Arc::new(Random::new(16)));
    let done = s.embed_missing(400, |_| {}).unwrap();
    assert_eq!((done.done, done.total), (300, 300));
    assert_eq!(s.count_unembedded("test/random").unwrap(), 0);

    // Another model id: everything is re-embedded and the old rows leave the index.
    let other = Random {
        model: "test/other",
        ..Random::new(8)
    };
    s.set_embedder(Arc::new(other));
    assert_eq!(s.count_unembedded("test/other").unwrap(), 1100);
    s.embed_missing(500, |_| {}).unwrap();
    let per_model: Vec<(String, i64)> = s
        .connection()
        .prepare("SELECT model, sum(len) FROM vector_chunks GROUP BY model")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(per_model, [("test/other".to_string(), 1100)]);
    let e = Random {
        model: "test/other",
        ..Random::new(8)
    };
    let q = e.embed(&["text 5"]).unwrap().remove(0);
    assert_eq!(
        s.vector_candidates("test/other", &q, &Filter::default(), 1)
            .unwrap()[0]
            .0,
        6
    );
}

#[test]
fn lexical_hits_get_their_exact_cosine() {
    let mut s = Store::open_in_memory().unwrap();
    s.set_embedder(Arc::new(Words));
    for t in [
        "sqlite lock contention between writers",
        "database timeout when two agents write",
        "completely unrelated note about gardening",
    ] {
        s.remember(lesson(t), &no_dedup()).unwrap();
    }
    let q = Words.embed(&["gardening tips"]).unwrap().remove(0);
    let lexical = s
        .lexical_candidates("database timeout", &Filter::default(), 10)
        .unwrap();
    assert_eq!(lexical.len(), 1);
    let nearest = s
        .vector_candidates("test/words", &q, &Filter::default(), 1)
        .unwrap();
    assert_eq!(nearest[0].0, 3);
    let exact = s.similarities("test/words", &q, &[2, 3, 99]).unwrap();
    assert_eq!(exact.iter().map(|&(id, _)| id).collect::<Vec<_>>(), [2, 3]);
    let cosine_3 = f64::from(dot_f32(
        &q,
        &Words
            .embed(&["completely unrelated note about gardening"])
            .unwrap()[0],
    ));
    assert_eq!(
        exact[1].1, nearest[0].1,
        "the same exact cosine as the search"
    );
    assert!((exact[1].1 - cosine_3).abs() < 1e-6);
    assert!(s
        .similarities("other/model", &q, &[2, 3])
        .unwrap()
        .is_empty());
}

#[test]
fn version_2_database_gains_the_vector_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 2).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, created_at, updated_at) VALUES ('old one', 'lesson', 1, 1)",
            [],
        )
        .unwrap();
    }
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.migrated_from(), 2);
    s.set_embedder(Arc::new(Words));
    assert_eq!(s.count_unembedded("test/words").unwrap(), 1);
    s.embed_missing(10, |_| {}).unwrap();
    let q = Words.embed(&["old one"]).unwrap().remove(0);
    assert_eq!(
        s.vector_candidates("test/words", &q, &Filter::default(), 1)
            .unwrap()[0]
            .0,
        1
    );
}

#[test]
fn embeddings_of_the_same_model_are_reused_others_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.db");
    {
        let mut w = Store::open(&worker).unwrap();
        w.set_embedder(Arc::new(Random::new(16)));
        for text in ["alpha lesson", "beta lesson"] {
            w.remember(
                NewMemory::new(text, MemoryType::Lesson),
                &DedupConfig::default(),
            )
            .unwrap();
        }
    }
    // One memory without an embedding (written with no model).
    Store::open(&worker)
        .unwrap()
        .remember(
            NewMemory::new("gamma lesson", MemoryType::Lesson),
            &DedupConfig::default(),
        )
        .unwrap();
    let theirs = Store::read_other(&worker).unwrap();
    let models: Vec<Option<&str>> = theirs
        .iter()
        .map(|o| o.embedding.as_ref().map(|e| e.model.as_str()))
        .collect();
    assert_eq!(models, [Some("test/random"), Some("test/random"), None]);

    // Same model: only the memory without an embedding is embedded, in one call.
    let model = Arc::new(Random::new(16));
    let mut main = Store::open_in_memory().unwrap();
    main.set_embedder(model.clone());
    let batch = theirs
        .iter()
        .map(|o| (o.memory.clone(), o.embedding.clone()))
        .collect();
    let out = main
        .remember_batch_reusing(batch, &DedupConfig::default())
        .unwrap();
    assert!(
        out.iter()
            .all(|o| matches!(o, WriteOutcome::Inserted { .. })),
        "{out:?}"
    );
    assert_eq!(model.calls.load(Ordering::SeqCst), 1, "one call, for gamma");
    let stored: Vec<Vec<u8>> = main
        .connection()
        .prepare("SELECT embedding FROM memories ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let worker_alpha = theirs[0].embedding.as_ref().unwrap();
    assert_eq!(
        stored[0],
        bytemuck::cast_slice::<f32, u8>(&worker_alpha.vector),
        "written as it was"
    );
    // The index holds the reused vectors too: a search for alpha's vector finds it first.
    let hits = main
        .vector_candidates("test/random", &worker_alpha.vector, &Filter::default(), 3)
        .unwrap();
    assert_eq!(hits.first().map(|h| h.0), Some(1), "{hits:?}");
    assert!((hits[0].1 - 1.0).abs() < 1e-5, "{hits:?}");

    // Another model (or dimension): everything is embedded again.
    let other = Arc::new(Random {
        model: "test/other",
        ..Random::new(16)
    });
    let mut main = Store::open_in_memory().unwrap();
    main.set_embedder(other.clone());
    let batch = theirs
        .into_iter()
        .map(|o| (o.memory, o.embedding))
        .collect();
    main.remember_batch_reusing(batch, &DedupConfig::default())
        .unwrap();
    assert_eq!(other.calls.load(Ordering::SeqCst), 1);
    assert_eq!(main.stats().unwrap().embedded, 3);
}
