//! The vector index and the embedding write path, with deterministic test vectors (the engine
//! makes embeddings; its tests and the CLI tests run the real model).

use crate::test_support::{remember, remember_batch, remember_embedded};
use oro_mem_core::config::DedupConfig;
use oro_mem_core::store::Commit;
use oro_mem_core::store::ToEmbed;
use oro_mem_core::{Embedding, ErrorKind, Filter, MemoryType, NewMemory, Status, Timestamp};

use crate::quant::dot_f32;
use crate::schema;
use crate::search::{scan_sql, Scan};
use crate::{Store, WriteOutcome};

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// Each word hashed to a signed coordinate of 64: texts sharing words point the same way.
fn words(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 64];
    for w in text.split_whitespace() {
        let h = fnv(&w.to_lowercase());
        v[(h % 64) as usize] += if h & 64 == 0 { 1.0 } else { -1.0 };
    }
    normalize(v)
}

/// A pseudo-random unit vector per text: no structure, the hardest case for quantization.
fn random(text: &str, dim: usize) -> Vec<f32> {
    let mut state = fnv(text);
    normalize(
        (0..dim)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                ((z ^ (z >> 31)) >> 11) as f32 / (1u64 << 53) as f32 - 0.5
            })
            .collect(),
    )
}

/// `text` as a lesson with its [`words`] embedding.
fn with_words(text: &str) -> (NewMemory, Option<Embedding>) {
    let e = Embedding {
        model: "test/words".into(),
        vector: words(text),
    };
    (lesson(text), Some(e))
}

/// Rows of the vector index per model.
fn index_rows(s: &Store) -> Vec<(String, i64)> {
    s.connection()
        .prepare("SELECT model, sum(len) FROM vector_chunks GROUP BY model ORDER BY model")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
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

/// `n` memories with [`random`] embeddings of `dim` by "test/random".
fn embedded_store(dim: usize, n: usize) -> Store {
    let mut s = Store::open_in_memory().unwrap();
    let batch: Vec<(NewMemory, Option<Embedding>)> = (0..n)
        .map(|i| {
            let text = format!("memory number {i}");
            let e = Embedding {
                model: "test/random".into(),
                vector: random(&text, dim),
            };
            (lesson(&text), Some(e))
        })
        .collect();
    for chunk in batch.chunks(700) {
        remember_embedded(&mut s, chunk.to_vec(), &no_dedup()).unwrap();
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
    let s = embedded_store(96, 3000);
    let mut hits = 0;
    let queries = 40;
    for i in 0..queries {
        let q = &random(&format!("query {i}"), 96);
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
fn sign_bits_that_are_missing_or_torn_are_made_from_the_codes_and_filled_on_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bits.db");
    let queries: Vec<Vec<f32>> = (0..8).map(|i| random(&format!("query {i}"), 64)).collect();
    let answers = |s: &Store| -> Vec<Vec<(i64, f64)>> {
        queries
            .iter()
            .map(|q| {
                s.vector_candidates("test/random", q, &Filter::default(), 10)
                    .unwrap()
            })
            .collect()
    };
    let count = |s: &Store, table: &str| -> i64 {
        s.connection()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    let s = {
        let mut s = Store::open(&path).unwrap();
        let batch: Vec<(NewMemory, Option<Embedding>)> = (0..1500)
            .map(|i| {
                let text = format!("memory number {i}");
                let vector = random(&text, 64);
                (
                    lesson(&text),
                    Some(Embedding {
                        model: "test/random".into(),
                        vector,
                    }),
                )
            })
            .collect();
        remember_embedded(&mut s, batch, &no_dedup()).unwrap();
        s
    };
    let want = answers(&s);
    assert_eq!(count(&s, "vector_bits"), count(&s, "vector_chunks"));

    // A torn blob and a missing row: searched from the codes, with the same answers.
    s.connection()
        .execute_batch(
            "UPDATE vector_bits SET bits = x'00' WHERE chunk_id = (SELECT min(chunk_id) FROM vector_bits);
             DELETE FROM vector_bits WHERE chunk_id = (SELECT max(chunk_id) FROM vector_bits);",
        )
        .unwrap();
    assert_eq!(answers(&s), want);

    // A store from before version 7 (no bits at all) gets them when opened.
    s.connection()
        .execute_batch("DELETE FROM vector_bits; PRAGMA user_version = 6;")
        .unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(count(&s, "vector_bits"), count(&s, "vector_chunks"));
    assert_eq!(answers(&s), want);
}

#[test]
fn index_follows_forget_consolidate_and_rebuild() {
    let mut s = embedded_store(32, 1200);
    let q = random("memory number 7", 32);
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
    let q9 = random("memory number 8", 32);
    let top = s
        .vector_candidates("test/random", &q9, &Filter::default(), 5)
        .unwrap();
    assert!(top.iter().all(|(id, _)| *id != 9));
    let archived = Filter {
        statuses: vec![Status::Archived],
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

    // Folding (consolidation) keeps a memory, merged: its row stays in the index, as an
    // archived memory's does (restored, it is searched again), and searches pass it over.
    let mut s = Store::open_in_memory().unwrap();
    let t = "the build cache must be cleared after upgrading rust";
    remember_embedded(&mut s, vec![with_words(t), with_words(t)], &no_dedup()).unwrap();
    let mut kept = 0;
    s.transact(&mut |tx| {
        let all = tx.active_memories()?;
        kept = all[0].id;
        tx.fold_into(all[0].id, &all[1])?;
        Ok(Commit::Yes)
    })
    .unwrap();
    let rows: i64 = s
        .connection()
        .query_row("SELECT sum(len) FROM vector_chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 2);
    let found: Vec<_> = s
        .vector_candidates("test/words", &words(t), &Filter::default(), 20)
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(found, [kept]);
}

#[test]
fn cosine_duplicates_merge_like_lexical_ones() {
    let mut s = Store::open_in_memory().unwrap();
    let dedup = DedupConfig {
        bm25: 2.0, // off: only the cosine rule can fire
        ..DedupConfig::default()
    };
    let first = remember_embedded(
        &mut s,
        vec![with_words("Alpha beta gamma delta epsilon")],
        &dedup,
    )
    .unwrap()
    .remove(0);
    // Same words, other order and case: identical bag-of-words vector.
    let (m, e) = with_words("epsilon DELTA gamma beta alpha");
    let again = remember_embedded(&mut s, vec![(m.confidence(0.95), e)], &dedup)
        .unwrap()
        .remove(0);
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
    let out = remember_embedded(
        &mut s,
        vec![
            with_words("zeta eta theta iota"),
            with_words("iota theta eta zeta"),
        ],
        &dedup,
    )
    .unwrap();
    assert!(
        matches!(out[1], WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == out[0].id())
    );
    // Another namespace is not a duplicate, nor is an embedding of another model. (The text
    // the first memory's: one that differs in a letter's case only restates it, a duplicate
    // by its words whatever `dedup.bm25` says.)
    let (m, e) = with_words("Alpha beta gamma delta epsilon");
    let other = remember_embedded(&mut s, vec![(m.namespace("elsewhere"), e)], &dedup)
        .unwrap()
        .remove(0);
    assert!(matches!(other, WriteOutcome::Inserted { .. }));
    let (m, e) = with_words("Alpha beta gamma delta epsilon");
    let e = e.map(|e| Embedding {
        model: "test/other".into(),
        ..e
    });
    let other = remember_embedded(&mut s, vec![(m, e)], &dedup)
        .unwrap()
        .remove(0);
    assert!(matches!(other, WriteOutcome::Inserted { .. }));
}

/// What a claim would take, without holding it: a claim that ends when it starts.
fn unembedded(s: &mut Store, model: &str, after: i64, limit: usize) -> Vec<(i64, String)> {
    let now = Timestamp(1);
    s.claim_unembedded(model, after, limit, now, now)
        .unwrap()
        .into_iter()
        .map(|m| (m.id, m.text))
        .collect()
}

/// `rows` as vectors made from what each of their memories is now (its text and the texts
/// before it), for [`Store::set_embeddings`].
fn made_now(s: &Store, rows: &[(i64, Vec<f32>)]) -> Vec<(ToEmbed, Vec<f32>)> {
    let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
    let now = s.to_embed(&ids).unwrap();
    assert_eq!(now.len(), ids.len(), "every memory of the rows exists");
    rows.iter()
        .map(|(id, v)| (now.iter().find(|m| m.id == *id).unwrap().clone(), v.clone()))
        .collect()
}

#[test]
fn unembedded_pages_and_set_embeddings_replaces_other_models() {
    let mut s = Store::open_in_memory().unwrap();
    let batch: Vec<NewMemory> = (0..1100).map(|i| lesson(&format!("text {i}"))).collect();
    remember_batch(&mut s, batch, &no_dedup()).unwrap();
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1100);

    let page = unembedded(&mut s, "test/random", 0, 400);
    assert_eq!(page.len(), 400);
    assert_eq!(page[0], (1, "text 0".to_string()));
    let rows: Vec<(i64, Vec<f32>)> = page.iter().map(|(id, t)| (*id, random(t, 16))).collect();
    let rows = made_now(&s, &rows);
    assert_eq!(s.set_embeddings("test/random", &rows).unwrap(), 400);
    assert_eq!(s.count_unembedded("test/random").unwrap(), 700);
    // Listing goes on after the last id, and no longer lists what was embedded.
    assert_eq!(unembedded(&mut s, "test/random", 0, 1)[0].0, 401);
    assert_eq!(unembedded(&mut s, "test/random", 1000, 500).len(), 100);

    // Two writers embedding the same memories: the second replaces, the index holds each
    // once. A memory deleted meanwhile is skipped.
    s.forget(3).unwrap();
    assert_eq!(s.set_embeddings("test/random", &rows).unwrap(), 399);
    assert_eq!(index_rows(&s), [("test/random".to_string(), 399)]);

    // Another model: its embeddings replace the old ones, in the memories and the index.
    let all = unembedded(&mut s, "test/other", 0, 2000);
    assert_eq!(all.len(), 1099);
    let rows: Vec<(i64, Vec<f32>)> = all.iter().map(|(id, t)| (*id, random(t, 8))).collect();
    s.set_embeddings("test/other", &made_now(&s, &rows))
        .unwrap();
    assert_eq!(index_rows(&s), [("test/other".to_string(), 1099)]);
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1099);
    let q = random("text 5", 8);
    assert_eq!(
        s.vector_candidates("test/other", &q, &Filter::default(), 1)
            .unwrap()[0]
            .0,
        6
    );
}

#[test]
fn bad_embeddings_are_refused_and_write_nothing() {
    let mut s = Store::open_in_memory().unwrap();
    let (m, _) = with_words("alpha beta");
    let nan = Embedding {
        model: "test/words".into(),
        vector: vec![f32::NAN; 4],
    };
    let err = remember_embedded(
        &mut s,
        vec![with_words("fine one"), (m, Some(nan))],
        &no_dedup(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("memory 2 of the batch"), "{err}");
    assert!(err.to_string().contains("not a finite number"), "{err}");
    let empty = Embedding {
        model: " ".into(),
        vector: vec![1.0],
    };
    let err =
        remember_embedded(&mut s, vec![(lesson("gamma"), Some(empty))], &no_dedup()).unwrap_err();
    assert!(err.to_string().contains("model id is empty"), "{err}");
    assert_eq!(s.count(&Filter::default()).unwrap(), 0);

    remember_batch(&mut s, vec![lesson("one"), lesson("two")], &no_dedup()).unwrap();
    let err = s
        .set_embeddings(
            "test/words",
            &made_now(&s, &[(1, vec![1.0, 0.0]), (2, vec![1.0])]),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("memory 2"), "{err}");
    assert_eq!(s.count_unembedded("test/words").unwrap(), 2);
    assert!(index_rows(&s).is_empty());
}

#[test]
fn lexical_hits_get_their_exact_cosine() {
    let mut s = Store::open_in_memory().unwrap();
    let batch = [
        "sqlite lock contention between writers",
        "database timeout when two agents write",
        "completely unrelated note about gardening",
    ]
    .map(with_words);
    remember_embedded(&mut s, batch.to_vec(), &no_dedup()).unwrap();
    let q = words("gardening tips");
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
        &words("completely unrelated note about gardening"),
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
    assert_eq!(s.count_unembedded("test/words").unwrap(), 1);
    let todo = unembedded(&mut s, "test/words", 0, 10);
    assert_eq!(todo, [(1, "old one".to_string())]);
    s.set_embeddings("test/words", &made_now(&s, &[(1, words("old one"))]))
        .unwrap();
    let q = words("old one");
    assert_eq!(
        s.vector_candidates("test/words", &q, &Filter::default(), 1)
            .unwrap()[0]
            .0,
        1
    );
}

#[test]
fn another_stores_embeddings_are_read_and_written_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.db");
    {
        let mut w = Store::open(&worker).unwrap();
        let batch = ["alpha lesson", "beta lesson"].map(|t| {
            let e = Embedding {
                model: "test/random".into(),
                vector: random(t, 16),
            };
            (lesson(t), Some(e))
        });
        remember_embedded(&mut w, batch.to_vec(), &DedupConfig::default()).unwrap();
        // One memory without an embedding.
        remember(&mut w, lesson("gamma lesson"), &DedupConfig::default()).unwrap();
    }
    let theirs = Store::read_other(&worker).unwrap();
    let models: Vec<Option<&str>> = theirs
        .iter()
        .map(|o| o.embedding.as_ref().map(|e| e.model.as_str()))
        .collect();
    assert_eq!(models, [Some("test/random"), Some("test/random"), None]);
    let worker_alpha = theirs[0].embedding.clone().unwrap();
    assert_eq!(worker_alpha.vector, random("alpha lesson", 16));

    let mut main = Store::open_in_memory().unwrap();
    let batch = theirs
        .into_iter()
        .map(|o| (o.memory, o.embedding))
        .collect();
    let out = remember_embedded(&mut main, batch, &DedupConfig::default()).unwrap();
    assert!(
        out.iter()
            .all(|o| matches!(o, WriteOutcome::Inserted { .. })),
        "{out:?}"
    );
    let stored: Vec<Vec<u8>> = main
        .connection()
        .prepare("SELECT embedding FROM memories WHERE embedding IS NOT NULL ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(
        stored[0],
        bytemuck::cast_slice::<f32, u8>(&worker_alpha.vector),
        "written as it was"
    );
    // The index holds them: a search for alpha's vector finds it first.
    let hits = main
        .vector_candidates("test/random", &worker_alpha.vector, &Filter::default(), 3)
        .unwrap();
    assert_eq!(hits.first().map(|h| h.0), Some(1), "{hits:?}");
    assert!((hits[0].1 - 1.0).abs() < 1e-5, "{hits:?}");
    assert_eq!(main.count_unembedded("test/random").unwrap(), 1);
}

/// A filtered vector search reads what its filter's index selects, a namespace's or a
/// session's memories, or the table through; never every memory with an embedding by the
/// model's index, which is what SQLite chose, with no statistics, before the scan kept it from
/// that index.
#[test]
fn a_filtered_vector_scan_searches_by_the_filter_not_by_the_model() {
    let s = Store::open_in_memory().unwrap();
    let namespace = Filter {
        namespace: Some("project".into()),
        ..Filter::default()
    };
    let session = Filter {
        namespace: Some("project".into()),
        session: Some("run-7".into()),
        ..Filter::default()
    };
    let typed = Filter {
        types: vec![MemoryType::Gotcha],
        ..Filter::default()
    };
    for (filter, scan, expected) in [
        (
            &namespace,
            Scan::ByIndex,
            "SEARCH m USING INDEX memories_namespace_status (namespace=? AND status=?)",
        ),
        (&namespace, Scan::Table, "SCAN m"),
        (
            &session,
            Scan::ByIndex,
            "SEARCH m USING INDEX memories_session (session=?",
        ),
        (&typed, Scan::ByIndex, "SCAN m"),
    ] {
        let (sql, params) = scan_sql("test/words", filter, scan).unwrap();
        let plan: Vec<String> = s
            .connection()
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(rusqlite::params_from_iter(params), |r| r.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let plan = plan.join("\n");
        assert!(plan.contains(expected), "{filter:?} {scan:?}: {plan}");
        assert!(
            !plan.contains("memories_embedding_model"),
            "{filter:?}: {plan}"
        );
    }
}

/// The scan reads a namespace through its index while it holds at most a quarter of the
/// model's embeddings, and the table through beyond that.
#[test]
fn a_namespace_of_much_of_the_store_is_scanned_through_the_table() {
    let mut s = Store::open_in_memory().unwrap();
    let batch: Vec<(NewMemory, Option<Embedding>)> = (0..40)
        .map(|i| {
            let text = format!("memory number {i}");
            let m = lesson(&text).namespace(if i < 10 { "small" } else { "large" });
            let e = Embedding {
                model: "test/random".into(),
                vector: random(&text, 16),
            };
            (m, Some(e))
        })
        .collect();
    remember_embedded(&mut s, batch, &no_dedup()).unwrap();
    let scan = |s: &Store, namespace: &str| {
        let filter = Filter {
            namespace: Some(namespace.into()),
            ..Filter::default()
        };
        s.scan_for("test/random", &filter).unwrap()
    };
    assert_eq!(scan(&s, "small"), Scan::ByIndex);
    assert_eq!(scan(&s, "large"), Scan::Table);
    assert_eq!(scan(&s, "none"), Scan::ByIndex);
    // One more in the small namespace takes it over a quarter.
    let e = Embedding {
        model: "test/random".into(),
        vector: random("one more", 16),
    };
    remember_embedded(
        &mut s,
        vec![(lesson("one more").namespace("small"), Some(e))],
        &no_dedup(),
    )
    .unwrap();
    assert_eq!(scan(&s, "small"), Scan::Table);
}

/// A filtered search finds, by exact cosine, the nearest of the memories the whole filter
/// selects (namespace, status, type, another model's embeddings left out) and nothing else.
#[test]
fn a_namespace_filtered_vector_search_is_the_exact_nearest_of_the_namespace() {
    let mut s = Store::open_in_memory().unwrap();
    let types = [MemoryType::Lesson, MemoryType::Gotcha];
    let batch: Vec<(NewMemory, Option<Embedding>)> = (0..300)
        .map(|i| {
            let text = format!("memory number {i}");
            let m = NewMemory::new(&text, types[i % 2]).namespace(["a", "b", "c"][i % 3]);
            let e = Embedding {
                model: if i % 7 == 0 {
                    "test/other"
                } else {
                    "test/random"
                }
                .into(),
                vector: random(&text, 32),
            };
            (m, Some(e))
        })
        .collect();
    remember_embedded(&mut s, batch, &no_dedup()).unwrap();
    for id in (1..=300).step_by(5) {
        s.set_status(id, Status::Archived).unwrap();
    }
    let rows: Vec<(i64, String, String, String, String, Vec<u8>)> = s
        .connection()
        .prepare("SELECT id, namespace, status, type, embedding_model, embedding FROM memories")
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let q = random("query", 32);
    for (statuses, kind) in [
        (vec![], None),
        (vec![Status::Archived], None),
        (vec![Status::Archived, Status::Active], None),
        (vec![], Some(MemoryType::Gotcha)),
    ] {
        let filter = Filter {
            namespace: Some("b".into()),
            statuses,
            types: kind.into_iter().collect(),
            ..Filter::default()
        };
        let mut want: Vec<(f32, i64)> = rows
            .iter()
            .filter(|r| {
                r.1 == "b"
                    && filter.matches_status(r.2.parse().unwrap())
                    && kind.is_none_or(|k| r.3 == k.as_str())
                    && r.4 == "test/random"
            })
            .map(|r| (dot_f32(&q, bytemuck::cast_slice(&r.5)), r.0))
            .collect();
        want.sort_by(|a, b| b.0.total_cmp(&a.0));
        let want: Vec<i64> = want.into_iter().take(10).map(|(_, id)| id).collect();
        assert!(want.len() == 10, "{filter:?}");
        let got: Vec<i64> = s
            .vector_candidates("test/random", &q, &filter, 10)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(got, want, "{filter:?}");
    }
}
