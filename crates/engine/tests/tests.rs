//! The engine driven from outside: plug-ins defined here and chosen by configuration, the
//! shared recall fixtures (`fixtures/recall/*.toml`) in FTS and hybrid mode, and the write
//! path (the engine embeds, the store keeps).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use oro_mem_core::calibration::{Calibration, INTERCEPT, MEMORIES};
use oro_mem_core::config::{ConsolidateConfig, DedupConfig};
use oro_mem_core::memory::CONTEXT_MEMORIES;
use oro_mem_core::store::{ConsolidateReport, ListOrder, MemoryStore};
use oro_mem_core::testing::MemoryBuilder;
use oro_mem_core::{
    Candidates, Config, Embedding, Error, ErrorKind, Filter, MemoryId, MemoryType, MemoryWrite,
    Mode, NewMemory, Query, Ranker, Ranking, Result, Status, Timestamp, WriteOutcome,
};
use oro_mem_engine::testing::{recall_cases, recall_fixture_dir};
use oro_mem_engine::{
    consolidate, embed_in_context, keeps, link_versions, remember_batch, remember_embedded,
    CandidateSource, EmbedderLoader, Engine, Found, Registry, Search, SourceContext, VersionLink,
};
use oro_mem_rank_vector::{normalize, Embedder};
use oro_mem_store_postgres::testing::TestServer;
use oro_mem_store_sqlite::Store;

/// Shorter memories first (scored by 1 / length): a ranker that needs only the memories.
struct Brevity;

impl Ranker for Brevity {
    fn name(&self) -> &str {
        "brevity"
    }

    fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(c.iter().map(|c| {
            (c.id(), 1.0 / c.memory.content.len().max(1) as f64)
        })))
    }
}

/// Finds memories carrying a tag that is a word of the query; its signal counts such tags.
struct TagSource;

impl CandidateSource for TagSource {
    fn name(&self) -> &str {
        "tags"
    }

    fn search(&self, cx: &SourceContext<'_>) -> Result<Search> {
        let words: Vec<String> = cx
            .query
            .text
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let filter = Filter {
            tags_any: words.clone(),
            ..cx.query.filter.clone()
        };
        let found = cx
            .store
            .list(&filter, Default::default(), 50, 0)?
            .into_iter()
            .map(|m| Found {
                id: m.id,
                score: m.tags.iter().filter(|t| words.contains(t)).count() as f64,
                memory: Some(m),
            })
            .collect();
        Ok(Search {
            found,
            warnings: Vec::new(),
        })
    }
}

/// Ranks by the `tags` signal: a ranker reading a per-query signal of its own source.
struct TagMatch;

impl Ranker for TagMatch {
    fn name(&self) -> &str {
        "tag_match"
    }

    fn signal(&self) -> Option<&str> {
        Some("tags")
    }

    fn rank(&self, _: &Query<'_>, c: &Candidates) -> Result<Ranking> {
        Ok(Ranking::from_scores(c.scores("tags")))
    }
}

fn off() -> DedupConfig {
    DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    }
}

/// Writes one memory with duplicate checks under `dedup`.
fn remember(
    s: &mut (impl MemoryWrite + ?Sized),
    m: NewMemory,
    dedup: &DedupConfig,
) -> Result<WriteOutcome> {
    Ok(remember_batch(s, vec![m], dedup)?.remove(0))
}

fn store(memories: &[(&str, &[&str])]) -> Store {
    let mut store = Store::open_in_memory().unwrap();
    for (content, tags) in memories {
        let m =
            NewMemory::new(*content, MemoryType::Lesson).tags(tags.iter().map(|t| t.to_string()));
        remember(&mut store, m, &off()).unwrap();
    }
    store
}

/// A new, empty SQLite store and, when there is a test server (scripts/test starts one), a
/// PostgreSQL one, each with its name.
fn new_stores(server: &mut Option<TestServer>) -> Vec<(&'static str, Box<dyn MemoryStore>)> {
    let mut stores: Vec<(&str, Box<dyn MemoryStore>)> =
        vec![("sqlite", Box::new(Store::open_in_memory().unwrap()))];
    if let Some(server) = server.as_mut() {
        stores.push(("postgres", Box::new(server.store())));
    }
    stores
}

fn recalled(engine: &mut Engine, store: &mut Store, text: &str) -> Vec<MemoryId> {
    let filter = Filter::default();
    let answer = engine
        .recall(store, &Query::new(text, &filter), false)
        .unwrap();
    answer.recall.results.iter().map(|r| r.memory.id).collect()
}

#[test]
fn a_ranker_defined_outside_runs_by_configuration() {
    let mut s = store(&[
        (
            "sqlite writer lock: one writer at a time, a second one waits for the lock",
            &[],
        ),
        ("sqlite lock", &[]),
    ]);
    let registry = Registry::default().ranker("brevity", |_| Ok(Box::new(Brevity)));
    let mut config = Config::default();
    // BM25 prefers the first (two matching words of three); brevity the second.
    let mut plain = Engine::with_registry(config.clone(), registry.clone()).unwrap();
    assert_eq!(recalled(&mut plain, &mut s, "sqlite writer lock")[0], 1);
    config.recall.weights.set("brevity", 3.0);
    let mut brief = Engine::with_registry(config, registry).unwrap();
    let answer = brief
        .recall(
            &mut s,
            &Query::new("sqlite writer lock", &Filter::default()),
            false,
        )
        .unwrap();
    assert_eq!(answer.recall.results[0].memory.id, 2);
    let lists: Vec<&str> = answer.recall.results[0]
        .lists
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(lists, ["bm25", "access", "coord", "proximity", "brevity"]);
}

#[test]
fn a_weight_for_an_unregistered_ranker_is_refused_by_name() {
    let mut config = Config::default();
    config.recall.weights.set("brevity", 1.0);
    let err = Engine::from_config(config).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(err.to_string().contains("recall.weights.brevity"), "{err}");
    assert!(
        err.to_string()
            .contains("bm25, vector, recency, access, spatial, coord, proximity or feedback"),
        "{err}"
    );
}

#[test]
fn a_source_defined_outside_gives_its_ranker_a_signal() {
    let mut s = store(&[
        ("prefer small focused commits", &["git"]),
        ("rebase onto main before merging", &["git", "workflow"]),
        ("unrelated note about gardening", &[]),
    ]);
    let _ = recalled; // (used by the other tests)
    let registry = Registry::default()
        .source("tags", |_| Ok(Box::new(TagSource)))
        .ranker("tag_match", |_| Ok(Box::new(TagMatch)))
        .mode(Mode::Fts, ["lexical", "tags"]);
    let mut config = Config::default();
    config.recall.weights.set("bm25", 0.0);
    config.recall.weights.set("tag_match", 1.0);
    let filter = Filter::default();
    let query = Query::new("git workflow", &filter);
    let mut engine = Engine::with_registry(config.clone(), registry.clone()).unwrap();
    let gathered = engine.candidates(&s, &query).unwrap();
    assert_eq!(gathered.signals, ["lexical", "tags"]);
    let tags = gathered.candidates.signal("tags").unwrap();
    assert_eq!(
        (tags.get(1), tags.get(2), tags.get(3)),
        (Some(1.0), Some(2.0), None)
    );
    // The memory with two matching tags first, by the tag ranker.
    let answer = engine.recall(&mut s, &query, false).unwrap();
    let first = &answer.recall.results[0];
    assert_eq!(first.memory.id, 2);
    assert!(
        first
            .lists
            .iter()
            .any(|l| l.name == "tag_match" && l.rank == Some(1)),
        "{:?}",
        first.lists
    );
    // Without the source in the mode, the ranker has no signal and is left out (and with
    // bm25 at 0 and every access count 0, no list would tell the memories apart: bm25 back).
    let registry = registry.mode(Mode::Fts, ["lexical"]);
    config.recall.weights.set("bm25", 1.0);
    let mut engine = Engine::with_registry(config, registry).unwrap();
    let answer = engine.recall(&mut s, &query, false).unwrap();
    assert!(answer.recall.results[0]
        .lists
        .iter()
        .all(|l| l.name != "tag_match"));
}

#[test]
fn fixtures_pass_in_every_mode_and_both_stores_answer_alike() {
    // Hybrid and vector run on the real model (scripts/fetch-model), loaded once and shared.
    let model = Engine::from_config(Config::default())
        .unwrap()
        .embedder()
        .expect("the model (run scripts/fetch-model)");
    // The PostgreSQL store too, when there is a test server (scripts/test starts one).
    let mut server = TestServer::get();
    for mode in [Mode::Fts, Mode::Vector, Mode::Hybrid] {
        let config = Config {
            mode,
            fallback_to_fts: false,
            ..Config::default()
        };
        let mut engine = Engine::from_config(config)
            .unwrap()
            .with_embedder(model.clone());
        for (path, case) in recall_cases(&recall_fixture_dir()) {
            let mut stores = new_stores(&mut server);
            let mut answers = Vec::new();
            for (name, s) in &mut stores {
                for m in &case.memories {
                    let memory = m.to_new();
                    let done = engine.remember(s, vec![(memory, None)], &off()).unwrap();
                    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
                }
                let filter = Filter::default();
                let answer = engine
                    .recall(s, &Query::new(&case.query, &filter), false)
                    .unwrap();
                assert_eq!(answer.mode, mode);
                let ranked: Vec<(i64, f64)> = answer
                    .recall
                    .results
                    .iter()
                    .map(|r| (r.memory.id, r.score))
                    .collect();
                answers.push((*name, ranked));
            }
            let (_, first) = &answers[0];
            for (name, other) in &answers[1..] {
                let alike = first.len() == other.len()
                    && first
                        .iter()
                        .zip(other)
                        .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-9);
                assert!(
                    alike,
                    "{} ({mode}): {name} answers {other:?}, sqlite {first:?}",
                    path.display()
                );
            }
            if !case.modes.contains(&mode) {
                continue; // vector mode, or a case about the other lexical mode
            }
            let ids: Vec<i64> = first.iter().map(|r| r.0).collect();
            let known_failure = case.known_failures.contains(&mode);
            assert_eq!(
                case.holds(&ids),
                !known_failure,
                "{} ({mode}{}): {} — got {ids:?}",
                path.display(),
                if known_failure {
                    ", listed as a known failure but now passes: remove it from known_failures"
                } else {
                    ""
                },
                case.description
            );
        }
    }
}

/// A pseudo-random unit vector per text, counting calls, failing from call `fail_after` on.
struct Random {
    model: &'static str,
    dim: usize,
    calls: AtomicUsize,
    fail_after: usize,
}

impl Random {
    fn new(model: &'static str, dim: usize) -> Random {
        Random {
            model,
            dim,
            calls: AtomicUsize::new(0),
            fail_after: usize::MAX,
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
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
            return Err(Error::new(ErrorKind::Embedding, "model went away"));
        }
        Ok(texts
            .iter()
            .map(|t| {
                let mut state = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                });
                let mut v: Vec<f32> = (0..self.dim)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1);
                        (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                    })
                    .collect();
                normalize(&mut v);
                v
            })
            .collect())
    }
}

fn hybrid_engine(model: Arc<dyn Embedder>) -> Engine {
    Engine::from_config(hybrid_config(Config::default().embedding.session_context))
        .unwrap()
        .with_embedder(model)
}

/// A hybrid-mode engine with a deterministic model, a session memory embedded with the ones
/// before it at `weight`.
fn session_engine(weight: f64) -> (Arc<Random>, Engine) {
    let model = Arc::new(Random::new("test/random", 16));
    let engine = Engine::from_config(hybrid_config(weight))
        .unwrap()
        .with_embedder(model.clone());
    (model, engine)
}

/// Hybrid mode, a session memory embedded with the ones before it at `weight`.
fn hybrid_config(weight: f64) -> Config {
    let mut config = Config {
        mode: Mode::Hybrid,
        ..Config::default()
    };
    config.embedding.session_context = weight;
    config
}

/// `memories` as a batch to remember, without embeddings: the engine makes them.
fn batch(memories: &[NewMemory]) -> Vec<(NewMemory, Option<Embedding>)> {
    memories.iter().cloned().map(|m| (m, None)).collect()
}

fn lessons(texts: &[&str]) -> Vec<(NewMemory, Option<Embedding>)> {
    texts
        .iter()
        .map(|t| (NewMemory::new(*t, MemoryType::Lesson), None))
        .collect()
}

#[test]
fn remember_reuses_embeddings_of_its_model_and_makes_the_rest() {
    let worker = Random::new("test/random", 16);
    let made = worker.embed(&["alpha lesson", "beta lesson"]).unwrap();
    let mut batch = lessons(&[
        "alpha lesson",
        "beta lesson",
        "gamma lesson",
        "delta lesson",
    ]);
    for (i, v) in made.into_iter().enumerate() {
        batch[i].1 = Some(Embedding {
            model: "test/random".into(),
            vector: v,
        });
    }
    // Another model's embedding is not reused: delta is embedded again.
    batch[3].1 = Some(Embedding {
        model: "test/other".into(),
        vector: vec![1.0; 16],
    });
    let model = Arc::new(Random::new("test/random", 16));
    let mut engine = hybrid_engine(model.clone());
    let mut s = Store::open_in_memory().unwrap();
    let done = engine.remember(&mut s, batch, &off()).unwrap();
    assert_eq!(done.reused, 2);
    assert!(done.warnings.is_empty());
    assert_eq!(model.calls(), 1, "one call, for gamma and delta");
    assert_eq!(s.count_unembedded("test/random").unwrap(), 0);
    let delta = model.embed(&["delta lesson"]).unwrap().remove(0);
    let hits = s
        .vector_candidates("test/random", &delta, &Filter::default(), 1)
        .unwrap();
    assert_eq!(hits[0].0, 4);
    assert!((hits[0].1 - 1.0).abs() < 1e-5, "{hits:?}");

    // In FTS mode nothing is embedded, and what came with the memories is not written.
    let mut fts = Engine::from_config(Config::default())
        .unwrap()
        .with_embedder(model.clone());
    let mut batch = lessons(&["epsilon lesson"]);
    batch[0].1 = Some(Embedding {
        model: "test/random".into(),
        vector: model.embed(&["epsilon lesson"]).unwrap().remove(0),
    });
    fts.remember(&mut s, batch, &off()).unwrap();
    assert_eq!(model.calls(), 3);
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1);
}

/// A turn of `session` in `namespace`, written at `at`.
fn turn(text: &str, namespace: &str, session: Option<&str>, at: i64) -> NewMemory {
    let mut m = NewMemory::new(text, MemoryType::Lesson)
        .namespace(namespace)
        .created_at(oro_mem_core::Timestamp(at));
    m.session = session.map(str::to_string);
    m
}

#[test]
fn a_session_memory_is_embedded_with_the_ones_before_it_by_remember_and_embed_alike() {
    let (model, mut engine) = session_engine(2.0);
    let first = vec![turn("did you go hiking", "me", Some("chat"), 100)];
    // Out of time order in the batch; the same session name in another namespace; no session.
    let batch = vec![
        turn("yes, twice last summer", "me", Some("chat"), 300),
        turn("where did you go", "me", Some("chat"), 200),
        turn("a turn elsewhere", "other", Some("chat"), 400),
        turn("a lesson of no session", "me", None, 500),
    ];
    assert_eq!(CONTEXT_MEMORIES, 2, "the expected vectors assume it");
    let expected = [
        ("did you go hiking", None),
        (
            "yes, twice last summer",
            Some("did you go hiking\nwhere did you go"),
        ),
        ("where did you go", Some("did you go hiking")),
        ("a turn elsewhere", None),
        ("a lesson of no session", None),
    ];
    let vectors = embed_in_context(model.as_ref(), &expected, 2.0).unwrap();
    // By hand, for one: e(text) + 2 e(before \n text), unit length.
    let alone = model.embed(&["yes, twice last summer"]).unwrap().remove(0);
    let paired = model
        .embed(&["did you go hiking\nwhere did you go\nyes, twice last summer"])
        .unwrap()
        .remove(0);
    let mut sum: Vec<f32> = alone
        .iter()
        .zip(&paired)
        .map(|(a, p)| a + 2.0 * p)
        .collect();
    normalize(&mut sum);
    assert!(cosine(&vectors[1], &sum) > 1.0 - 1e-5);
    assert!(
        cosine(&vectors[1], &alone) < 0.99,
        "the context changes the vector"
    );
    assert!(
        cosine(
            &vectors[0],
            &model.embed(&["did you go hiking"]).unwrap()[0]
        ) > 1.0 - 1e-5,
        "a memory first in its session is embedded alone"
    );

    let check = |s: &Store, how: &str| {
        for (id, v) in (1..).zip(&vectors) {
            let got = s.similarities("test/random", v, &[id]).unwrap();
            assert!(
                got.len() == 1 && got[0].1 > 1.0 - 1e-5,
                "{how}: memory {id} {:?}: {got:?}",
                expected[id as usize - 1]
            );
        }
    };
    let mut by_remember = Store::open_in_memory().unwrap();
    for batch in [first.clone(), batch.clone()] {
        let batch = batch.into_iter().map(|m| (m, None)).collect();
        engine.remember(&mut by_remember, batch, &off()).unwrap();
    }
    check(&by_remember, "remembered");

    let mut by_embed = Store::open_in_memory().unwrap();
    remember_batch(
        &mut by_embed,
        first.into_iter().chain(batch).collect(),
        &off(),
    )
    .unwrap();
    engine.embed_missing(&mut by_embed, 2, |_| {}).unwrap();
    check(&by_embed, "embedded later");

    // Off, each text alone, as before.
    let mut plain = Engine::from_config(hybrid_config(0.0))
        .unwrap()
        .with_embedder(model.clone());
    let mut s = Store::open_in_memory().unwrap();
    remember_batch(
        &mut s,
        vec![
            turn("did you go hiking", "me", Some("chat"), 100),
            turn("where did you go", "me", Some("chat"), 200),
        ],
        &off(),
    )
    .unwrap();
    plain.embed_missing(&mut s, 10, |_| {}).unwrap();
    let alone = model.embed(&["where did you go"]).unwrap().remove(0);
    assert!(s.similarities("test/random", &alone, &[2]).unwrap()[0].1 > 1.0 - 1e-5);
}

#[test]
fn a_memory_written_into_the_middle_of_its_session_reembeds_the_ones_after_it() {
    let (model, mut engine) = session_engine(2.0);
    let first = vec![
        turn("did you go hiking", "me", Some("chat"), 100),
        turn("yes, twice last summer", "me", Some("chat"), 300),
        turn("the same session elsewhere", "other", Some("chat"), 250),
    ];
    // Both come before "yes, twice last summer"; the later of them is now the one before it.
    let later = vec![
        turn("where did you go", "me", Some("chat"), 200),
        turn("hm, hiking?", "me", Some("chat"), 150),
    ];
    let expected = [
        ("did you go hiking", None),
        (
            "yes, twice last summer",
            Some("hm, hiking?\nwhere did you go"),
        ),
        ("the same session elsewhere", None),
        ("where did you go", Some("did you go hiking\nhm, hiking?")),
        ("hm, hiking?", Some("did you go hiking")),
    ];
    let vectors = embed_in_context(model.as_ref(), &expected, 2.0).unwrap();
    let check = |s: &Store, how: &str| {
        for (id, v) in (1..).zip(&vectors) {
            let got = s.similarities("test/random", v, &[id]).unwrap();
            assert!(
                got.len() == 1 && got[0].1 > 1.0 - 1e-5,
                "{how}: memory {id} {:?}: {got:?}",
                expected[id as usize - 1]
            );
        }
    };

    let mut by_remember = Store::open_in_memory().unwrap();
    let done = engine
        .remember(&mut by_remember, batch(&first), &off())
        .unwrap();
    assert_eq!(done.reembedded, 0, "written in order");
    let calls = model.calls();
    let done = engine
        .remember(&mut by_remember, batch(&later), &off())
        .unwrap();
    assert_eq!(done.reembedded, 1, "{done:?}");
    assert_eq!(model.calls(), calls + 2, "the batch, then the one after it");
    check(&by_remember, "remembered into the middle");

    // The same as a store embedded once everything is in it.
    let mut by_embed = Store::open_in_memory().unwrap();
    remember_batch(
        &mut by_embed,
        first.into_iter().chain(later).collect(),
        &off(),
    )
    .unwrap();
    engine.embed_missing(&mut by_embed, 10, |_| {}).unwrap();
    check(&by_embed, "embedded later");

    // A memory written after the last of its session changes no other.
    let done = engine
        .remember(
            &mut by_remember,
            batch(&[turn("Mount Rainier", "me", Some("chat"), 400)]),
            &off(),
        )
        .unwrap();
    assert_eq!(done.reembedded, 0);
    check(&by_remember, "after the last");
}

#[test]
fn without_session_context_a_memory_written_into_the_middle_leaves_every_memory_embedded() {
    let (model, mut engine) = session_engine(0.0);
    let mut s = Store::open_in_memory().unwrap();
    engine
        .remember(
            &mut s,
            batch(&[
                turn("did you go hiking", "me", Some("chat"), 100),
                turn("yes, twice last summer", "me", Some("chat"), 300),
            ]),
            &off(),
        )
        .unwrap();
    let done = engine
        .remember(
            &mut s,
            batch(&[turn("where did you go", "me", Some("chat"), 200)]),
            &off(),
        )
        .unwrap();
    assert_eq!(done.reembedded, 1, "{done:?}");
    assert_eq!(s.count_unembedded("test/random").unwrap(), 0);
    // Each alone, as the weight says.
    let alone = model.embed(&["yes, twice last summer"]).unwrap().remove(0);
    assert!(s.similarities("test/random", &alone, &[2]).unwrap()[0].1 > 1.0 - 1e-5);
}

#[test]
fn a_memory_is_embedded_with_what_is_before_it_once_written_not_what_the_batch_held() {
    let (model, mut engine) = session_engine(2.0);
    let mut s = Store::open_in_memory().unwrap();
    engine
        .remember(
            &mut s,
            batch(&[turn("did you go hiking", "me", Some("chat"), 100)]),
            &off(),
        )
        .unwrap();
    // The batch's first memory is a duplicate of the stored one, so it is not written: the
    // second follows only the stored one.
    let done = engine
        .remember(
            &mut s,
            batch(&[
                turn("did you go hiking", "me", Some("chat"), 150),
                turn("which trail did you take", "me", Some("chat"), 200),
            ]),
            &DedupConfig::default(),
        )
        .unwrap();
    assert!(
        !matches!(done.outcomes[0], WriteOutcome::Inserted { .. }),
        "{done:?}"
    );
    let WriteOutcome::Inserted { id } = done.outcomes[1] else {
        panic!("{done:?}")
    };
    assert_eq!(done.reembedded, 1, "{done:?}");
    let expected = embed_in_context(
        model.as_ref(),
        &[("which trail did you take", Some("did you go hiking"))],
        2.0,
    )
    .unwrap()
    .remove(0);
    let got = s.similarities("test/random", &expected, &[id]).unwrap();
    assert!(got[0].1 > 1.0 - 1e-5, "{got:?}");
}

#[test]
fn reembed_moved_embeds_again_only_what_follows_other_memories_than_given() {
    let texts = ["did you go hiking", "where did you go", "yes, twice"];
    let batch = || -> Vec<(NewMemory, Option<Embedding>)> {
        (0..)
            .zip(texts)
            .map(|(i, t)| (turn(t, "me", Some("chat"), 100 * (i + 1)), None))
            .collect()
    };
    let (model, mut engine) = session_engine(2.0);
    let mut s = Store::open_in_memory().unwrap();
    engine.remember(&mut s, batch(), &off()).unwrap();
    let vector_of = |s: &Store, id: MemoryId| {
        let v = model.embed(&[texts[id as usize - 1]]).unwrap().remove(0);
        s.similarities("test/random", &v, &[id]).unwrap()[0].1
    };
    let before = (vector_of(&s, 2), vector_of(&s, 3));
    // Memory 2 was made after what is before it; memory 3 "after memory 1 alone", as a
    // worker holding only those two would have made it.
    let made_after = [
        (2, Some("did you go hiking".to_string())),
        (3, Some("did you go hiking".to_string())),
    ];
    let calls = model.calls();
    let done = engine.reembed_moved(&mut s, &made_after).unwrap();
    assert_eq!(done.done, 1, "{done:?}");
    assert_eq!(model.calls(), calls + 1);
    assert_eq!(vector_of(&s, 2), before.0, "memory 2 is as it was");
    assert!(
        (vector_of(&s, 3) - before.1).abs() < 1e-6,
        "made again alike"
    );

    // Where an embedding does not hold what is before it, or there is none, nothing is done.
    for config in [hybrid_config(0.0), Config::default()] {
        let mut other = Engine::from_config(config)
            .unwrap()
            .with_embedder(model.clone());
        let calls = model.calls();
        let done = other.reembed_moved(&mut s, &made_after).unwrap();
        assert_eq!((done.done, model.calls()), (0, calls));
    }
}

#[test]
fn archiving_reactivating_or_forgetting_a_memory_reembeds_the_ones_after_it() {
    let model = Arc::new(Random::new("test/random", 16));
    let config = hybrid_config(2.0);
    let mut engine = Engine::from_config(config.clone())
        .unwrap()
        .with_embedder(model.clone());
    let mut s = Store::open_in_memory().unwrap();
    let texts = [
        "did you go hiking",
        "where did you go",
        "yes, twice",
        "Mount Rainier",
    ];
    let batch = (0..)
        .zip(texts)
        .map(|(i, t)| (turn(t, "me", Some("chat"), 100 * (i + 1)), None))
        .collect();
    engine.remember(&mut s, batch, &off()).unwrap();
    // Each memory's vector is the one it would have if embedded with the memory now before
    // it, or alone.
    let holds = |s: &Store, expected: &[(MemoryId, &str, Option<&str>)], how: &str| {
        for &(id, text, before) in expected {
            let v = embed_in_context(model.as_ref(), &[(text, before)], 2.0).unwrap();
            let got = s.similarities("test/random", &v[0], &[id]).unwrap();
            assert!(
                got.len() == 1 && got[0].1 > 1.0 - 1e-5,
                "{how}: memory {id} {text:?} after {before:?}: {got:?}"
            );
        }
    };
    let mut step = |s: &mut Store, dropped: Vec<MemoryId>, how: &str| {
        let done = engine.reembed(s, &dropped).unwrap();
        assert_eq!(done.done, dropped.len(), "{how}: {done:?}");
        assert!(done.warnings.is_empty(), "{how}: {done:?}");
        assert_eq!(s.count_unembedded("test/random").unwrap(), 0, "{how}");
        dropped
    };
    // Each memory is embedded with the two before it.
    assert_eq!(CONTEXT_MEMORIES, 2, "the expected vectors assume it");
    let dropped = s.set_status(2, Status::Archived).unwrap();
    assert_eq!(step(&mut s, dropped, "archived"), [3, 4]);
    holds(
        &s,
        &[
            (3, "yes, twice", Some("did you go hiking")),
            (4, "Mount Rainier", Some("did you go hiking\nyes, twice")),
        ],
        "archived",
    );
    let dropped = s.set_status(2, Status::Active).unwrap();
    assert_eq!(step(&mut s, dropped, "reactivated"), [2, 3, 4]);
    holds(
        &s,
        &[
            (2, "where did you go", Some("did you go hiking")),
            (3, "yes, twice", Some("did you go hiking\nwhere did you go")),
            (4, "Mount Rainier", Some("where did you go\nyes, twice")),
        ],
        "reactivated",
    );
    let dropped = s.forget(3).unwrap();
    assert_eq!(step(&mut s, dropped, "forgotten"), [4]);
    holds(
        &s,
        &[(
            4,
            "Mount Rainier",
            Some("did you go hiking\nwhere did you go"),
        )],
        "forgotten",
    );
    let dropped = s.forget(1).unwrap();
    assert_eq!(step(&mut s, dropped, "the first forgotten"), [2, 4]);
    holds(
        &s,
        &[
            (2, "where did you go", None),
            (4, "Mount Rainier", Some("where did you go")),
        ],
        "the first forgotten",
    );

    // An FTS-mode engine leaves the memory for `embed`, and says nothing: it has no model.
    let mut fts = Engine::from_config(Config::default())
        .unwrap()
        .with_embedder(model.clone());
    let dropped = s.set_status(2, Status::Archived).unwrap();
    assert_eq!(dropped, [4]);
    let done = fts.reembed(&mut s, &dropped).unwrap();
    assert_eq!((done.done, done.warnings.len()), (0, 0));
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1);
    // Without its model, a hybrid engine says why it is left.
    let loader: EmbedderLoader =
        Arc::new(|| Err(Error::new(ErrorKind::Embedding, "no model here")));
    let mut without = Engine::from_config(config).unwrap().with_loader(loader);
    let done = without.reembed(&mut s, &dropped).unwrap();
    assert_eq!(done.done, 0);
    assert!(
        done.warnings.len() == 1
            && done.warnings[0].contains("no model here")
            && done.warnings[0].contains("memory 4 is left without an embedding"),
        "{done:?}"
    );
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1);
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn remember_validates_before_the_model_runs() {
    let model = Arc::new(Random::new("test/random", 8));
    let mut engine = hybrid_engine(model.clone());
    let mut s = Store::open_in_memory().unwrap();
    let err = engine
        .remember(&mut s, lessons(&["fine", "  "]), &off())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("memory 2 of the batch"), "{err}");
    assert_eq!(model.calls(), 0);
    assert_eq!(s.count(&Filter::default()).unwrap(), 0);
}

#[test]
fn without_the_model_memories_are_stored_unembedded_with_a_warning() {
    let loader: EmbedderLoader =
        Arc::new(|| Err(Error::new(ErrorKind::Embedding, "no model here")));
    let config = Config {
        mode: Mode::Hybrid,
        ..Config::default()
    };
    let mut engine = Engine::from_config(config).unwrap().with_loader(loader);
    let mut s = Store::open_in_memory().unwrap();
    let done = engine
        .remember(&mut s, lessons(&["alpha lesson"]), &off())
        .unwrap();
    assert!(matches!(done.outcomes[..], [WriteOutcome::Inserted { .. }]));
    assert_eq!(done.warnings.len(), 1);
    assert!(
        done.warnings[0].contains("no model here"),
        "{:?}",
        done.warnings
    );
    assert_eq!(s.count_unembedded("test/random").unwrap(), 1);
    // Embedding later needs the model: a clear error, nothing changed.
    let err = engine.embed_missing(&mut s, 10, |_| {}).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedding);
}

#[test]
fn the_model_loads_once_for_an_engine_and_every_engine_reconfigured_from_it() {
    let loads = Arc::new(AtomicUsize::new(0));
    let counted = loads.clone();
    let loader: EmbedderLoader = Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(Arc::new(Random::new("test/random", 8)) as Arc<dyn Embedder>)
    });
    // An FTS engine, as an MCP server on an FTS-configured store holds, asked for hybrid
    // searches one call at a time.
    let base = Engine::from_config(Config::default())
        .unwrap()
        .with_loader(loader);
    let mut s = Store::open_in_memory().unwrap();
    base.reconfigured(Config::default())
        .unwrap()
        .remember(&mut s, lessons(&["alpha lesson"]), &off())
        .unwrap();
    let hybrid = Config {
        mode: Mode::Hybrid,
        ..Config::default()
    };
    for _ in 0..3 {
        let filter = Filter::default();
        let answer = base
            .reconfigured(hybrid.clone())
            .unwrap()
            .recall(&mut s, &Query::new("alpha", &filter), false)
            .unwrap();
        assert_eq!(answer.mode, Mode::Hybrid);
    }
    assert_eq!(loads.load(Ordering::SeqCst), 1);
}

#[test]
fn embed_missing_is_resumable_and_replaces_other_models() {
    let mut s = Store::open_in_memory().unwrap();
    let texts: Vec<String> = (0..1100).map(|i| format!("text {i}")).collect();
    let batch: Vec<NewMemory> = texts
        .iter()
        .map(|t| NewMemory::new(t.as_str(), MemoryType::Lesson))
        .collect();
    remember_batch(&mut s, batch, &off()).unwrap();

    // The model fails during the third batch: two batches stay written.
    let flaky = Random {
        fail_after: 2,
        ..Random::new("test/random", 16)
    };
    let mut engine = hybrid_engine(Arc::new(flaky));
    let mut seen = Vec::new();
    let err = engine
        .embed_missing(&mut s, 400, |p| seen.push(p.done))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Embedding);
    assert_eq!(seen, [0, 400, 800]);
    assert_eq!(s.count_unembedded("test/random").unwrap(), 300);

    let mut engine = hybrid_engine(Arc::new(Random::new("test/random", 16)));
    let done = engine.embed_missing(&mut s, 400, |_| {}).unwrap();
    assert_eq!((done.done, done.total), (300, 300));
    assert_eq!(s.count_unembedded("test/random").unwrap(), 0);

    // Another model: everything is embedded again, and recall finds by its vectors.
    let other = Arc::new(Random::new("test/other", 8));
    let mut engine = hybrid_engine(other.clone());
    let done = engine.embed_missing(&mut s, 500, |_| {}).unwrap();
    assert_eq!(done.done, 1100);
    assert_eq!(s.count_unembedded("test/other").unwrap(), 0);
    let q = other.embed(&["text 5"]).unwrap().remove(0);
    let hits = s
        .vector_candidates("test/other", &q, &Filter::default(), 1)
        .unwrap();
    assert_eq!(hits[0].0, 6);
}

#[test]
fn the_answerable_model_reads_how_many_memories_the_query_searched() {
    let mut s = Store::open_in_memory().unwrap();
    for (namespace, n) in [("small", 2), ("large", 30)] {
        for i in 0..n {
            let m = NewMemory::new(
                format!("the deploy script waits for the lint job ({namespace} {i})"),
                MemoryType::Lesson,
            )
            .namespace(namespace);
            remember(&mut s, m, &off()).unwrap();
        }
    }
    let archived = remember(
        &mut s,
        NewMemory::new("an archived note on the deploy script", MemoryType::Lesson)
            .namespace("small"),
        &off(),
    )
    .unwrap();
    s.set_status(archived.id(), Status::Archived).unwrap();
    let mut config = Config {
        mode: Mode::Fts,
        ..Config::default()
    };
    let answer = |config: &Config, store: &mut Store, namespace: &str| {
        let filter = Filter {
            namespace: Some(namespace.into()),
            ..Filter::default()
        };
        Engine::from_config(config.clone())
            .unwrap()
            .recall(store, &Query::new("deploy script", &filter), false)
            .unwrap()
            .recall
    };
    // Without a model that reads it, the store is not counted.
    *config.recall.answerable.get_mut(Mode::Fts) = Calibration::default();
    let plain = answer(&config, &mut s, "small");
    assert_eq!(plain.results[0].features.get(MEMORIES), None);
    *config.recall.answerable.get_mut(Mode::Fts) =
        Calibration::new([(INTERCEPT, 3.0), (MEMORIES, -1.0)]);
    for (namespace, n) in [("small", 2.0f64), ("large", 30.0)] {
        let r = answer(&config, &mut s, namespace);
        let memories = r.results[0].features.get(MEMORIES);
        assert_eq!(
            memories,
            Some(n.ln_1p()),
            "the active memories of {namespace}"
        );
        let expected = 1.0 / (1.0 + (-(3.0 - n.ln_1p())).exp());
        assert!((r.answerable.unwrap() - expected).abs() < 1e-12);
    }
}

#[test]
fn feedback_finds_what_the_best_matches_say_in_other_words_only_when_weighted() {
    let memories = [
        "sqlite lock: a second writer waits on the busy timeout, then retries",
        "raise the busy timeout so a waiting writer retries",
        "postgres connection pooling for many clients",
        // Others, so that words of two memories are rare enough to count (BM25).
        "prefer small focused commits",
        "rebase onto main before merging",
        "pin the toolchain in rust-toolchain.toml",
        "log the request id with every error",
    ];
    let filter = Filter::default();
    let query = Query::new("why does sqlite lock", &filter);
    let mut config = Config::default();
    config.recall.min_relevance = 0.0;
    config.recall.feedback_docs = 1;
    config.recall.feedback_terms = 4;
    let mut without = Engine::from_config(config.clone()).unwrap();
    config.recall.weights.set("feedback", 0.5);
    let mut with = Engine::from_config(config).unwrap();

    let mut server = TestServer::get();
    let mut stores = new_stores(&mut server);
    for (name, s) in &mut stores {
        let batch = lessons(&memories);
        without.remember(s, batch, &off()).unwrap();
        let ids = |engine: &mut Engine, s: &mut Box<dyn MemoryStore>| -> Vec<MemoryId> {
            let answer = engine.recall(s, &query, false).unwrap();
            answer.recall.results.iter().map(|r| r.memory.id).collect()
        };

        // Off (weight 0, the default): no feedback signal, and the second memory, which
        // holds no word of the query, is no candidate.
        let gathered = without.candidates(s.as_ref(), &query).unwrap();
        assert_eq!(gathered.signals, ["lexical"], "{name}");
        assert_eq!(ids(&mut without, s), [1], "{name}");

        // On: the first memory's other words (busy, timeout, writer, retries) find the
        // second (and the first, whose words they are), nothing else.
        let gathered = with.candidates(s.as_ref(), &query).unwrap();
        let found: Vec<MemoryId> = gathered
            .candidates
            .scores("feedback")
            .map(|(id, _)| id)
            .collect();
        assert_eq!(found, [1, 2], "{name}");
        let answer = with.recall(s, &query, false).unwrap();
        let got: Vec<MemoryId> = answer.recall.results.iter().map(|r| r.memory.id).collect();
        assert_eq!(got, [1, 2], "{name}");
        assert!(
            answer.recall.results[1]
                .lists
                .iter()
                .any(|l| l.name == "feedback" && l.rank.is_some()),
            "{name}"
        );
    }
}

#[test]
fn a_candidate_found_by_its_embedding_gets_its_bm25_score_unless_configured_not_to() {
    let memories = [
        "sqlite busy timeout: raise it so a waiting writer retries",
        "a writer waits on the lock another sqlite connection holds",
        "prefer small focused commits",
        "rebase onto main before merging",
        "pin the toolchain in rust-toolchain.toml",
    ];
    let model = Engine::from_config(Config::default())
        .unwrap()
        .embedder()
        .expect("the model (run scripts/fetch-model)");
    let filter = Filter::default();
    let query = Query::new("sqlite busy timeout", &filter);
    let mut config = hybrid_config(Config::default().embedding.session_context);
    // One full-text candidate; every memory a candidate by its embedding.
    config.recall.depth = 1;
    config.recall.vector_depth = 10;
    config.recall.min_similarity = 0.0;
    let mut with = Engine::from_config(config.clone())
        .unwrap()
        .with_embedder(model.clone());
    config.recall.score_all_lexically = false;
    let mut without = Engine::from_config(config)
        .unwrap()
        .with_embedder(model.clone());

    let mut server = TestServer::get();
    let mut stores = new_stores(&mut server);
    for (name, s) in &mut stores {
        with.remember(s, lessons(&memories), &off()).unwrap();
        let searched: Vec<(MemoryId, f64)> = s
            .lexical_candidates(query.text, &filter, 10)
            .unwrap()
            .into_iter()
            .map(|(m, score)| (m.id, score))
            .collect();
        assert_eq!(
            searched.iter().map(|&(id, _)| id).collect::<Vec<_>>(),
            [1, 2],
            "{name}: the second holds one word of the query"
        );
        let lexical = |engine: &mut Engine| -> Vec<(MemoryId, f64)> {
            let gathered = engine.candidates(s.as_ref(), &query).unwrap();
            assert_eq!(gathered.candidates.len(), memories.len(), "{name}");
            let mut scores: Vec<_> = gathered.candidates.scores("lexical").collect();
            scores.sort_by_key(|&(id, _)| id);
            scores
        };
        // Only the best full-text match has a BM25 score...
        assert_eq!(lexical(&mut without), searched[..1], "{name}");
        // ...unless every candidate gets its own: the second, found by its embedding, the
        // score the full-text search gives it further down; those without a word, none.
        let scored = lexical(&mut with);
        assert_eq!(scored.len(), 2, "{name}");
        for ((id, score), (want, at)) in scored.iter().zip(&searched) {
            assert_eq!(id, want, "{name}");
            assert!(
                (score - at).abs() <= 1e-9 * at,
                "{name}: {score} against {at}"
            );
        }
    }
}

/// A lesson written at `day` (in days since the epoch) with `confidence`.
/// Writes `batch` into `s` without duplicate checks: the ids, in order.
fn stored_apart(s: &mut dyn MemoryStore, batch: Vec<NewMemory>) -> Vec<MemoryId> {
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    let out = remember_batch(s, batch, &off).expect("remember");
    out.iter().map(WriteOutcome::id).collect()
}

fn lesson_on(text: &str, confidence: f64, day: i64) -> NewMemory {
    NewMemory::new(text, MemoryType::Lesson)
        .confidence(confidence)
        .created_at(Timestamp(day * 86_400))
}

/// `m` with metadata `{"speed": speed}`.
fn at_speed(mut m: NewMemory, speed: f64) -> NewMemory {
    m.metadata.insert("speed".to_string(), speed.into());
    m
}

/// `consolidate` takes a newer statement that holds an older one and adds a clause naming a
/// new value, or an exception, for its newer version, as the write path does: the older one
/// is superseded, not merged into it (which would lose the clause).
#[test]
fn consolidation_supersedes_a_statement_extended_by_a_value_or_an_exception_on_both_stores() {
    let mut server = TestServer::get();
    let now = Timestamp(1_000 * 86_400);
    for (name, mut s) in new_stores(&mut server) {
        let ids = stored_apart(
            &mut *s,
            vec![
                lesson_on("Nightly builds run on the shared runner", 0.8, 990),
                lesson_on(
                    "On first run with an empty snapshot, pytest fills in the expected value.",
                    0.8,
                    990,
                ),
                lesson_on(
                    "On first run with an empty snapshot, pytest fills in the expected value \
                     when running `pytest --inline-snapshot=create`.",
                    0.8,
                    995,
                ),
                lesson_on(
                    "Always add `from __future__ import annotations` as the first import of a \
                     module.",
                    0.8,
                    990,
                ),
                lesson_on(
                    "Always add `from __future__ import annotations` as the first import of a \
                     module, except in documentation snippets.",
                    0.8,
                    995,
                ),
            ],
        );
        let report = consolidate(&mut s, &ConsolidateConfig::default(), now, false).unwrap();
        let mut superseded = report.superseded.clone();
        superseded.sort();
        assert_eq!(
            superseded,
            [(ids[1], ids[2]), (ids[3], ids[4])],
            "{name}: {report:?}"
        );
        assert!(report.merged.is_empty(), "{name}: {report:?}");
    }
}

/// `consolidate` takes a statement with a clause added (a negated one) for the statement it
/// holds, as the write path does, however low their similarity.
/// In a store of two to four memories BM25 gives a word two memories share no weight, so a
/// rewording scored as a stranger and was stored twice. It is decided as in a store of one.
#[test]
fn a_rewording_is_a_duplicate_in_a_store_of_a_few_memories_on_both_stores() {
    let mut server = TestServer::get();
    let dedup = DedupConfig::default();
    let pairs = [
        (
            "Do not push directly to the main branch",
            "Never push directly to the main branch",
        ),
        (
            "Never hard-code credentials in the config files",
            "Never hardcode credentials in the config files",
        ),
    ];
    for (old, new) in pairs {
        let mut alone = None;
        for others in 0..6 {
            for (name, mut s) in new_stores(&mut server) {
                for i in 0..others {
                    let note = format!("Water the tomato bed number {i} every evening");
                    remember(&mut *s, NewMemory::new(note, MemoryType::Lesson), &off()).unwrap();
                }
                let first = remember(&mut *s, NewMemory::new(old, MemoryType::Lesson), &dedup)
                    .unwrap()
                    .id();
                let outcome =
                    remember(&mut *s, NewMemory::new(new, MemoryType::Lesson), &dedup).unwrap();
                let WriteOutcome::Skipped {
                    duplicate_of,
                    similarity,
                } = outcome
                else {
                    panic!("{name}, {others} others: {new:?} is {outcome:?}");
                };
                assert_eq!(duplicate_of, first, "{name}, {others} others");
                // Up to four memories in all, the similarity of a store of the two.
                if others + 2 <= 4 {
                    let alone = *alone.get_or_insert(similarity);
                    assert!(
                        (similarity - alone).abs() < 1e-9,
                        "{name}, {others} others: {similarity} against {alone} alone"
                    );
                }
                // A changed value still supersedes, another statement is stored beside.
                let port = |p: u32| {
                    NewMemory::new(format!("The API listens on port {p}"), MemoryType::Fact)
                };
                let api = remember(&mut *s, port(8080), &dedup).unwrap().id();
                let outcome = remember(&mut *s, port(9090), &dedup).unwrap();
                assert!(
                    matches!(&outcome, WriteOutcome::Updated { supersedes, .. } if supersedes == &[api]),
                    "{name}, {others} others: {outcome:?}"
                );
                let beside =
                    NewMemory::new("Never push directly to a release tag", MemoryType::Lesson);
                let outcome = remember(&mut *s, beside, &dedup).unwrap();
                assert!(
                    matches!(outcome, WriteOutcome::Inserted { .. }),
                    "{name}, {others} others: {outcome:?}"
                );
            }
        }
    }
}

#[test]
fn consolidation_merges_a_statement_with_a_clause_added_on_both_stores() {
    let mut server = TestServer::get();
    let now = Timestamp(1_000 * 86_400);
    for (name, mut s) in new_stores(&mut server) {
        let ids = stored_apart(
            &mut *s,
            vec![
                lesson_on("Nightly builds run on the shared runner", 0.8, 990),
                lesson_on("Migrations run inside a transaction", 0.8, 990),
                lesson_on("The docs site deploys from the main branch", 0.8, 990),
                lesson_on(
                    "You can install CMake from the installers or with `pipx install cmake` \
                     (make sure that the pipx install path is in `PATH`, pipx complains if it \
                     isn't)",
                    0.6,
                    990,
                ),
                lesson_on(
                    "You can install CMake from the installers or with `pipx install cmake`.",
                    0.9,
                    995,
                ),
            ],
        );
        let report = consolidate(&mut s, &ConsolidateConfig::default(), now, false).unwrap();
        let pairs: Vec<_> = report.merged.iter().map(|m| (m.0, m.1)).collect();
        assert_eq!(pairs, [(ids[4], ids[3])], "{name}: {report:?}");
        assert!(report.superseded.is_empty(), "{name}: {report:?}");
    }
}

#[test]
fn consolidation_merges_near_duplicates_and_archives_stale_memories_on_both_stores() {
    let mut server = TestServer::get();
    let now = Timestamp(1_000 * 86_400);
    for (name, mut s) in new_stores(&mut server) {
        let ids = stored_apart(
            &mut *s,
            vec![
                lesson_on("run cargo fmt before every commit", 0.6, 990).tags(["rust"]),
                lesson_on("Run cargo fmt before every commit!", 0.9, 995).tags(["ci"]),
                lesson_on("an unrelated weak hunch", 0.1, 10),
                lesson_on("another weak hunch, pinned", 0.1, 10),
                lesson_on("ruff --fix must run before pyright", 0.8, 990),
                lesson_on("ruff --fix must not run before pyright", 0.8, 990),
                at_speed(lesson_on("the arm reached the cup", 0.8, 990), 0.5),
                at_speed(lesson_on("the arm reached the cup", 0.8, 990), 0.9),
            ],
        );
        s.set_pinned(ids[3], true).unwrap();
        s.record_used(&[ids[0]], Timestamp(990 * 86_400)).unwrap();
        s.record_returned(&[ids[0]]).unwrap();
        let config = ConsolidateConfig::default();
        let before = s
            .list(&Filter::default(), ListOrder::Oldest, 100, 0)
            .unwrap();
        let dry = consolidate(&mut s, &config, now, true).unwrap();
        assert!(dry.dry_run, "{name}");
        assert_eq!(
            s.list(&Filter::default(), ListOrder::Oldest, 100, 0)
                .unwrap(),
            before,
            "{name}: a dry run changes nothing"
        );
        let report = consolidate(&mut s, &config, now, false).unwrap();
        let pairs = |r: &ConsolidateReport| r.merged.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>();
        assert_eq!(pairs(&report), pairs(&dry), "{name}: the dry run told");
        assert_eq!(report.archived, dry.archived, "{name}: the dry run told");
        // The more confident is kept; a negation and other metadata are no duplicates, and
        // the negation, stored later, is the rule's newer version.
        assert_eq!(pairs(&report), [(ids[1], ids[0])], "{name}: {report:?}");
        assert_eq!(report.superseded, [(ids[4], ids[5])], "{name}: {report:?}");
        assert_eq!(
            dry.superseded, report.superseded,
            "{name}: the dry run told"
        );
        assert!(report.merged[0].2 >= config.merge_bm25, "{name}");
        let kept = s.get(ids[1]).unwrap();
        assert_eq!(kept.tags, ["ci", "rust"], "{name}: the tags are united");
        assert_eq!(
            (kept.confidence, kept.access_count, kept.return_count),
            (0.9, 1, 1),
            "{name}: it takes the other's confidence, uses and returns"
        );
        let merged = s.get(ids[0]).unwrap();
        assert_eq!(
            (merged.status, merged.merged_into),
            (Status::Merged, Some(ids[1])),
            "{name}: kept, merged into the other"
        );
        assert_eq!(report.archived, [ids[2]], "{name}: stale and not pinned");
        assert_eq!(s.get(ids[2]).unwrap().status, Status::Archived, "{name}");
        assert_eq!(s.get(ids[3]).unwrap().status, Status::Active, "{name}");
        assert_eq!(s.get(ids[4]).unwrap().status, Status::Superseded, "{name}");
        for id in &ids[5..] {
            assert_eq!(s.get(*id).unwrap().status, Status::Active, "{name}");
        }
        let again = consolidate(&mut s, &config, now, false).unwrap();
        assert!(
            again.merged.is_empty() && again.archived.is_empty() && again.superseded.is_empty(),
            "{name}: nothing is left to do: {again:?}"
        );
    }
}

#[test]
fn the_kept_memory_of_a_pair_is_the_more_confident_then_pinned_then_older() {
    let memory = |id, confidence, pinned, day| {
        let mut m = MemoryBuilder::new(id, "x").build();
        m.confidence = confidence;
        m.pinned = pinned;
        m.created_at = Timestamp(day);
        m
    };
    assert!(keeps(&memory(1, 0.9, false, 5), &memory(2, 0.8, true, 1)));
    assert!(keeps(&memory(1, 0.8, true, 5), &memory(2, 0.8, false, 1)));
    assert!(keeps(&memory(1, 0.8, false, 1), &memory(2, 0.8, false, 5)));
    assert!(!keeps(&memory(1, 0.8, false, 5), &memory(2, 0.8, false, 1)));
}

/// A unit vector of 4 along `(x, y)`.
fn unit(x: f32, y: f32) -> Vec<f32> {
    let n = (x * x + y * y).sqrt();
    vec![x / n, y / n, 0.0, 0.0]
}

/// A lesson with its embedding by `model`.
fn embedded(text: &str, model: &str, vector: Vec<f32>) -> (NewMemory, Option<Embedding>) {
    let e = Embedding {
        model: model.into(),
        vector,
    };
    (NewMemory::new(text, MemoryType::Lesson), Some(e))
}

fn invalid_batches_write_nothing(s: &mut dyn MemoryStore) {
    let batch = vec![
        NewMemory::new("fine", MemoryType::Lesson),
        NewMemory::new("   ", MemoryType::Lesson),
    ];
    let e = remember_batch(&mut *s, batch, &off()).expect_err("empty content");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(
        s.count(&Filter::default()).expect("count"),
        0,
        "all or nothing"
    );
}

fn duplicates_are_merged_or_skipped(s: &mut dyn MemoryStore) {
    let dedup = DedupConfig::default();
    let text = "Run cargo fmt before every commit";
    let first = remember_batch(
        &mut *s,
        vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.5)],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    let again = remember_batch(
        &mut *s,
        vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.9)],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(
        matches!(again, WriteOutcome::Merged { into, .. } if into == first.id()),
        "a more confident duplicate merges: {again:?}"
    );
    assert_eq!(s.get(first.id()).expect("get").confidence, 0.9);
    let third = remember_batch(
        &mut *s,
        vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.1)],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(
        matches!(third, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == first.id()),
        "a less confident duplicate is skipped: {third:?}"
    );
    assert_eq!(s.count(&Filter::default()).expect("count"), 1);

    // The same words, negated, say the opposite: not a duplicate, a newer version.
    let negated = remember_batch(
        &mut *s,
        vec![NewMemory::new(
            "Do not run cargo fmt before every commit",
            MemoryType::Lesson,
        )],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(
        matches!(&negated, WriteOutcome::Updated { supersedes, .. } if supersedes == &[first.id()]),
        "a negation is stored and supersedes the rule it reverses: {negated:?}"
    );
    assert_eq!(s.get(first.id()).expect("get").status, Status::Superseded);
    let again = remember_batch(
        &mut *s,
        vec![NewMemory::new(
            "do NOT run cargo fmt before every commit!",
            MemoryType::Lesson,
        )],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } | WriteOutcome::Merged { into: duplicate_of, .. } if duplicate_of == negated.id()),
        "a negation duplicates the negation, not the original: {again:?}"
    );

    // Archived memories are not duplicates: the same text is stored anew (reversing the
    // negation again).
    s.set_status(first.id(), Status::Archived).expect("archive");
    let anew = remember_batch(
        &mut *s,
        vec![NewMemory::new(text, MemoryType::Lesson)],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(
        matches!(anew, WriteOutcome::Inserted { id } | WriteOutcome::Updated { id, .. } if id != first.id()),
        "an archived memory is no duplicate: {anew:?}"
    );
}

fn a_newer_version_supersedes_the_memories_it_names(s: &mut dyn MemoryStore) {
    let fact = |text: &str| NewMemory::new(text, MemoryType::Fact);
    for dedup in [DedupConfig::default(), off()] {
        let ns = if dedup.enabled { "on" } else { "off" };
        let old = remember_batch(
            &mut *s,
            vec![fact("Deploys use pnpm 8").namespace(ns)],
            &dedup,
        )
        .expect("remember")
        .remove(0)
        .id();
        // Most of its words are the old one's: stored all the same, as its newer version.
        let new = remember_batch(
            &mut *s,
            vec![fact("Deploys use pnpm 9")
                .namespace(ns)
                .supersedes([old, old])],
            &dedup,
        )
        .expect("remember")
        .remove(0);
        let WriteOutcome::Updated { id, supersedes } = &new else {
            panic!("an update: {new:?}");
        };
        assert_eq!(supersedes, &[old], "an id given twice counts once");
        let was = s.get(old).expect("kept");
        assert_eq!(
            (was.status, was.superseded_by),
            (Status::Superseded, Some(*id))
        );
        assert!(was.superseded_at.is_some());
        let active = Filter {
            namespace: Some(ns.to_string()),
            ..Filter::default()
        };
        assert_eq!(s.count(&active).expect("count"), 1);

        // What cannot be superseded is said, and nothing of the batch is written.
        let before = s.count(&Filter::default()).expect("count");
        let newest = |ids: Vec<i64>, namespace: &str| {
            vec![
                fact("Deploys use pnpm 10 from now on").namespace(ns),
                fact("Deploys use pnpm 10")
                    .namespace(namespace)
                    .supersedes(ids),
            ]
        };
        for (ids, namespace, kind, says) in [
            (
                vec![old],
                ns,
                ErrorKind::InvalidInput,
                "already superseded by",
            ),
            (vec![*id + 100], ns, ErrorKind::NotFound, "no memory"),
            (vec![*id], "elsewhere", ErrorKind::InvalidInput, "namespace"),
        ] {
            let e = remember_batch(&mut *s, newest(ids, namespace), &dedup)
                .expect_err("cannot supersede");
            assert_eq!(e.kind(), kind, "{e}");
            assert!(e.to_string().contains(says), "{e}");
            assert_eq!(s.count(&Filter::default()).expect("count"), before);
        }
        // Restored, the old version is active again beside the new one.
        s.set_status(old, Status::Active).expect("restore");
        assert_eq!(s.count(&active).expect("count"), 2);
    }
}

fn versions_from_elsewhere_link_older_to_newer(s: &mut dyn MemoryStore) {
    let at =
        |second| NewMemory::new("Deploys use pnpm", MemoryType::Fact).created_at(Timestamp(second));
    let ids: Vec<MemoryId> = remember_batch(
        &mut *s,
        vec![
            at(100),
            at(200),
            NewMemory {
                status: Status::Superseded,
                ..at(300)
            },
            at(400).namespace("elsewhere"),
        ],
        &off(),
    )
    .expect("remember")
    .iter()
    .map(WriteOutcome::id)
    .collect();
    let link = |old, by| VersionLink {
        old,
        by,
        at: Timestamp(500),
    };
    let linked = link_versions(
        &mut *s,
        &[
            // Newer by older: never.
            link(ids[1], ids[0]),
            // Another namespace, a memory that is not there, itself: never.
            link(ids[0], ids[3]),
            link(ids[0], ids[3] + 10),
            link(ids[0], ids[0]),
            // A superseded memory without its successor gets it, even an older one.
            link(ids[2], ids[1]),
            // Older by newer.
            link(ids[0], ids[1]),
        ],
    )
    .expect("link");
    assert_eq!(linked.linked, 2);
    let by = |id| {
        let m = s.get(id).expect("get");
        (m.status, m.superseded_by, m.superseded_at)
    };
    assert_eq!(
        by(ids[0]),
        (Status::Superseded, Some(ids[1]), Some(Timestamp(500)))
    );
    assert_eq!(by(ids[1]).0, Status::Active);
    assert_eq!(
        by(ids[2]),
        (Status::Superseded, Some(ids[1]), Some(Timestamp(500)))
    );
    // Linked already: a second run links nothing.
    let again = link_versions(&mut *s, &[link(ids[0], ids[1])]).expect("link");
    assert_eq!(again.linked, 0);
}

fn a_changed_value_supersedes_the_statement_it_changes(s: &mut dyn MemoryStore) {
    let dedup = DedupConfig::default();
    let write = |s: &mut dyn MemoryStore, text: &str, dedup: &DedupConfig| {
        remember_batch(s, vec![NewMemory::new(text, MemoryType::Fact)], dedup)
            .expect("remember")
            .remove(0)
    };
    for text in [
        "Nightly builds run on the shared runner",
        "Run the linter before every commit",
        "Migrations run inside a transaction",
        "The docs site deploys from the main branch",
    ] {
        write(&mut *s, text, &dedup);
    }
    let old = write(
        &mut *s,
        "The staging API listens on port 8080 behind the proxy",
        &dedup,
    )
    .id();
    let new = write(
        &mut *s,
        "The staging API listens on port 9090 behind the proxy",
        &dedup,
    );
    assert_eq!(
        new,
        WriteOutcome::Updated {
            id: new.id(),
            supersedes: vec![old]
        }
    );
    assert_eq!(s.get(old).expect("kept").superseded_by, Some(new.id()));
    // Reworded, it is a duplicate of the newest; about something else, apart.
    let again = write(
        &mut *s,
        "the staging API listens on port 9090, behind the proxy",
        &dedup,
    );
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == new.id()),
        "{again:?}"
    );
    let other = write(
        &mut *s,
        "Nightly builds always run on the shared runner",
        &dedup,
    );
    assert!(
        matches!(
            other,
            WriteOutcome::Skipped { .. } | WriteOutcome::Merged { .. }
        ),
        "{other:?}"
    );
    // All it said, and a value more: its newer state.
    let timed = write(
        &mut *s,
        "Nightly builds run on the shared runner at 2am",
        &dedup,
    );
    assert!(
        matches!(&timed, WriteOutcome::Updated { supersedes, .. } if supersedes.len() == 1),
        "{timed:?}"
    );
    // Turned off, a new value is stored beside the old one.
    let off = DedupConfig {
        updates: false,
        ..DedupConfig::default()
    };
    let beside = write(
        &mut *s,
        "The staging API listens on port 7070 behind the proxy",
        &off,
    );
    assert!(
        matches!(beside, WriteOutcome::Inserted { .. }),
        "{beside:?}"
    );
    assert_eq!(s.get(new.id()).expect("kept").status, Status::Active);
    // A state older than the one here (copied from elsewhere with its time) does not
    // supersede it.
    let older = remember_batch(
        &mut *s,
        vec![NewMemory::new(
            "The staging API listens on port 6060 behind the proxy",
            MemoryType::Fact,
        )
        .created_at(Timestamp(86_400))],
        &dedup,
    )
    .expect("remember")
    .remove(0);
    assert!(matches!(older, WriteOutcome::Inserted { .. }), "{older:?}");
    assert_eq!(s.get(new.id()).expect("kept").status, Status::Active);
    // A new state supersedes every state of the fact stored apart.
    let newest = write(
        &mut *s,
        "The staging API listens on port 5050 behind the proxy",
        &dedup,
    );
    let WriteOutcome::Updated { mut supersedes, .. } = newest.clone() else {
        panic!("{newest:?}");
    };
    supersedes.sort_unstable();
    assert_eq!(supersedes, [new.id(), beside.id(), older.id()]);
    // The unrelated memories are left alone.
    assert_eq!(
        s.count(&Filter::default()).expect("count"),
        5,
        "the four unrelated ones and the newest state"
    );
}

/// A store of a few memories, short statements whose one rare word changes: the words they
/// share weigh next to nothing to BM25 there (they are in half the store), so the whole
/// statement finds no older state; its plain words do.
/// A clause added or dropped, even a negated one, a typo fixed in a command and a rule worded
/// another way ("Never" for "Do not", "Avoid" for "Don't use") repeat a statement; an entry of a list changed, or a negation put in front of a statement, is its
/// newer state.
fn a_clause_added_or_a_typo_fixed_is_a_duplicate(s: &mut dyn MemoryStore) {
    let dedup = DedupConfig::default();
    let write = |s: &mut dyn MemoryStore, text: &str| {
        remember_batch(s, vec![NewMemory::new(text, MemoryType::Lesson)], &dedup)
            .expect("remember")
            .remove(0)
    };
    // A store of a few memories, so that the words the two share are not in most of them.
    for text in [
        "Nightly builds run on the shared runner",
        "Migrations run inside a transaction",
        "The docs site deploys from the main branch",
        "Release notes are written by hand for every minor version",
    ] {
        write(&mut *s, text);
    }
    let rule = write(
        &mut *s,
        "Read the issue instructions carefully and ask for clarification when something is unclear",
    )
    .id();
    let format = write(
        &mut *s,
        "If the formatting check fails in CI, first run `goftumpt -w .` at the repository root",
    )
    .id();
    let push = write(&mut *s, "Do not push directly to the main branch").id();
    let state = write(&mut *s, "Don't use global state in request handlers").id();
    for (text, of) in [
        // A rule worded another way.
        ("Never push directly to the main branch", push),
        ("Avoid global state in request handlers", state),
        (
            "Read the issue instructions carefully (not all issues have them) and ask for \
             clarification when something is unclear",
            rule,
        ),
        (
            "Read the issue instructions carefully and ask for clarification",
            rule,
        ),
        (
            "If the formatting check fails in CI, first run `gofumpt -w .` at the repository root",
            format,
        ),
    ] {
        let again = write(&mut *s, text);
        assert!(
            matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == of),
            "{text:?} repeats memory {of}: {again:?}"
        );
    }
    // An entry of a list with what it says of its key changed is its newer state.
    let entry = write(
        &mut *s,
        "[crewAI CLI] crewai flow kickoff   # Legacy flow execution",
    )
    .id();
    let changed = write(
        &mut *s,
        "[crewAI CLI] crewai flow kickoff   # Deprecated compatibility alias for crewai run",
    );
    assert_eq!(
        changed,
        WriteOutcome::Updated {
            id: changed.id(),
            supersedes: vec![entry]
        }
    );
    let reversed = write(
        &mut *s,
        "Do not read the issue instructions carefully and ask for clarification when \
         something is unclear",
    );
    assert_eq!(
        reversed,
        WriteOutcome::Updated {
            id: reversed.id(),
            supersedes: vec![rule]
        }
    );
}

fn another_subject_is_stored_beside(s: &mut dyn MemoryStore) {
    // In a store of one memory, a statement with its subject replaced shares all but one word
    // with it: no duplicate (the new one would be lost), and no update (the same words say as
    // often that two things are alike). Nor is one that says it holds "also".
    let write = |s: &mut dyn MemoryStore, namespace: &str, text: &str| {
        let m = NewMemory::new(text, MemoryType::Fact).namespace(namespace);
        remember_batch(s, vec![m], &DedupConfig::default())
            .expect("remember")
            .remove(0)
    };
    for (i, (old, new)) in [
        (
            "Sentry is used for error tracking",
            "Rollbar is used for error tracking",
        ),
        (
            "Dependabot updates dependencies weekly",
            "Renovate updates dependencies weekly",
        ),
        // One word of the subject replaced, and what is said of it too: two facts.
        (
            "The API server listens on port 4000",
            "The metrics server listens on port 9100",
        ),
        (
            "The dev branch deploys automatically to the staging cluster on every merge",
            "The main branch deploys automatically to the production cluster on every merge",
        ),
        // A fact said to hold beside the other.
        (
            "Deploys happen on Tuesdays",
            "Deploys now also happen on Fridays",
        ),
        ("Logs go to stdout", "Logs now also go to Sentry"),
        // What the new statement says was replaced is not what the old one names.
        (
            "Unit tests run on Jest",
            "E2E tests run on Playwright (formerly Cypress)",
        ),
        ("Unit tests use Jest", "E2E tests now use Playwright"),
    ]
    .into_iter()
    .enumerate()
    {
        let namespace = format!("subject-{i}");
        write(&mut *s, &namespace, old);
        let new = write(&mut *s, &namespace, new);
        assert!(matches!(new, WriteOutcome::Inserted { .. }), "{new:?}");
    }
}

/// Writes `text` as a fact through the write path with the default duplicate checks.
fn write_fact(s: &mut dyn MemoryStore, text: &str) -> WriteOutcome {
    remember_batch(
        s,
        vec![NewMemory::new(text, MemoryType::Fact)],
        &DedupConfig::default(),
    )
    .expect("remember")
    .remove(0)
}

/// Writes each pair's old statement, then its new one, and asserts that the new one
/// superseded the old one and nothing else.
fn each_supersedes(s: &mut dyn MemoryStore, pairs: &[(&str, &str)]) {
    for &(old, new) in pairs {
        let old = write_fact(&mut *s, old).id();
        let new = write_fact(&mut *s, new);
        assert_eq!(
            new,
            WriteOutcome::Updated {
                id: new.id(),
                supersedes: vec![old]
            }
        );
    }
}

/// A statement that says its value changed ("switched from Jest to Vitest", "`just test`
/// instead of `make test`", "pnpm 9, not pnpm 8", "(was Cypress)", "is no longer used")
/// supersedes the old one, though it shares few words with it or still names its value;
/// one that says "now" of what did not change repeats it.
fn a_change_said_in_words_supersedes(s: &mut dyn MemoryStore) {
    for text in SMALL_STORE_RULES {
        write_fact(&mut *s, text);
    }
    each_supersedes(
        &mut *s,
        &[
            (
                "Run `make test` before pushing",
                "Run `just test` before pushing instead of `make test`",
            ),
            (
                "We use Jest for tests",
                "We switched from Jest to Vitest for tests",
            ),
            (
                "Max upload size is 10 MB",
                "Max upload size was raised to 25 MB",
            ),
            // In plain words, a value of one character, a clause or a flag added.
            (
                "The build uses webpack",
                "The build uses vite instead of webpack",
            ),
            (
                "We use yarn for the frontend",
                "We switched from yarn to pnpm for the frontend",
            ),
            ("Releases use Node 9", "Releases use Node 10, not 9"),
            (
                "Use uv for installs",
                "Use uv for installs, and commit uv.lock",
            ),
            (
                "Tests run with pytest -x",
                "Tests run with pytest -x -n auto",
            ),
            // The new value with the old one named as what it replaces: by its words, the
            // new statement holds all of the old one.
            ("Builds use pnpm 8", "Builds now use pnpm 9, not pnpm 8"),
            (
                "E2E tests run on Cypress",
                "E2E tests run on Playwright (was Cypress)",
            ),
            (
                "The docs site is built with \"Sphinx\"",
                "The docs site is built with \"MkDocs\" (formerly \"Sphinx\")",
            ),
            (
                "Format Python code with `black`",
                "`black` is no longer used; format Python code with `ruff format`",
            ),
            (
                "Unit tests use Jest",
                "Replace Jest with Vitest for unit tests",
            ),
            (
                "Use the staging database for tests",
                "Use the local database, not the staging one, for tests",
            ),
            // A convention chosen otherwise: one word for its alternative.
            (
                "The user prefers tabs for indentation",
                "The user prefers spaces for indentation",
            ),
        ],
    );
    let pnpm = write_fact(&mut *s, "Deploys use pnpm 8").id();
    let again = write_fact(&mut *s, "Deploys now use pnpm 8");
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == pnpm),
        "{again:?}"
    );
    // What a statement is said instead of is no negation of it.
    let eslint = write_fact(&mut *s, "Lint with eslint, not tslint").id();
    let again = write_fact(&mut *s, "Lint with eslint instead of tslint");
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == eslint),
        "{again:?}"
    );
}

/// A statement written otherwise (a space doubled, in bold, after a note's label, with a
/// full stop, its quotes dropped) is a duplicate of the one it repeats: neither stored
/// beside it nor its newer state, though the formatting changes a command's or a code
/// span's characters. What it quotes, changed, is a value changed.
fn a_statement_written_otherwise_is_a_duplicate(s: &mut dyn MemoryStore) {
    for text in SMALL_STORE_RULES {
        write_fact(&mut *s, text);
    }
    for (written, again) in [
        (
            "The app listens on 0.0.0.0",
            "Note: the app listens on 0.0.0.0",
        ),
        (
            "[Lint ruff with] cargo +nightly clippy --all",
            "**[Lint ruff with] cargo +nightly clippy --all**",
        ),
        (
            "`npm run build` builds the app",
            "`npm  run build` builds the app",
        ),
        ("nox --session tests-3.9", "nox --session tests-3.9."),
        (
            "$ git checkout -b name-of-your-bugfix",
            "Important: $ git checkout -b name-of-your-bugfix",
        ),
        (
            "Run `cargo fmt --all` before committing",
            "**Note:** run `cargo fmt\n--all` before committing.",
        ),
        (
            "Use the \"Bug report\" template for new issues",
            "- Use the Bug report template for new issues",
        ),
    ] {
        let first = write_fact(&mut *s, written).id();
        let outcome = write_fact(&mut *s, again);
        assert!(
            matches!(outcome, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == first),
            "{again:?} after {written:?}: {outcome:?}"
        );
    }
    each_supersedes(
        &mut *s,
        &[
            (
                "Logs go to the \"ops alerts\" channel",
                "Logs go to the \"ops pages\" channel",
            ),
            (
                "Name the feature flag \"new checkout\" until the launch",
                "Name the feature flag \"checkout v2\" until the launch",
            ),
        ],
    );
}

/// An entry of a list led by a bold label and rewritten at length, though it shares few
/// of its words with the old one, a command line with its program or subcommand changed, a
/// clause opened by a command with a flag changed, a long passage rewritten in part, a statement with a clause added that names a new value,
/// one rewritten keeping most of its words that names a new path, one condensed around a
/// name replaced and one that says a value it keeps is deprecated supersede the old one; a
/// note's label leads entries about anything, and a clause that names nothing new repeats
/// the statement.
fn an_entry_or_a_command_rewritten_supersedes(s: &mut dyn MemoryStore) {
    for text in SMALL_STORE_RULES {
        write_fact(&mut *s, text);
    }
    each_supersedes(
        &mut *s,
        &[
            (
                "**Failure modes:** If the child never connects within 1 s, the runner kills it.",
                "**Failure modes:** If the child never connects or never acks within 1 s, \
             `signal()` returns `False`; `CancellationManager` falls through to the normal \
             graceful kill, and the engine treats the termination as a crash.",
            ),
            ("$ git checkout -b my-fix", "$ git switch -c my-fix"),
            ("prek run --last-commit", "just hooks run --last-commit"),
            (
                "Airflow is a uv workspace monorepo: each distribution declares what it needs, \
             and `uv --project <FOLDER> sync` syncs only that project's dependencies.",
                "Airflow is a uv workspace monorepo: each distribution declares what it needs, \
             and `uv --project-all <FOLDER> sync` syncs only that project's dependencies.",
            ),
            (
                "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
             `EngineCommandStarter` and `propose_submitting=False` because `BaseWorker` \
             already proposed Submitting. The ad hoc bundle path still uses deprecated \
             `Runner.execute_bundle()` and remains a migration gap.",
                "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
             `EngineCommandStarter` and `propose_submitting=False` because `BaseWorker` \
             already proposed Submitting. Ad hoc bundle submissions open their own \
             `FlowRunExecutorContext` with `BundleExecutionStarter`.",
            ),
            (
                "Always add `from __future__ import annotations` as the first import of a module.",
                "Always add `from __future__ import annotations` as the first import of a module, \
             except in documentation snippets.",
            ),
            (
                "On first run with an empty snapshot, pytest fills in the expected value.",
                "On first run with an empty snapshot, pytest fills in the expected value when \
             running `pytest --inline-snapshot=create`.",
            ),
            (
                "To run the docs server, open your terminal and navigate to the root directory \
             of the project.",
                "To run the docs server, open your terminal and navigate to the `docs` \
             subdirectory of the project. The `docusaurus.config.js` file there is a sign you \
             are in the right place.",
            ),
            (
                "When you're ready to submit your changes, send your pull request specifically \
             to the **dev** branch.",
                "Send your pull request to the main branch.",
            ),
            (
                "In addition to `crush.json`, Crush reads its config from `crushrc`, a Bash \
             script that defines providers and models.",
                "Crush reads its config from `crushrc`, a Bash script that defines providers \
             and models. `crush.json` is still read but is deprecated.",
            ),
        ],
    );
    write_fact(&mut *s, "**Note:** run the tests first");
    let other = write_fact(&mut *s, "**Note:** the docs build on push");
    assert!(matches!(other, WriteOutcome::Inserted { .. }), "{other:?}");
    // A clause that names no new value repeats the statement.
    let rule = write_fact(
        &mut *s,
        "Keep each pull request to one change so that review stays quick",
    )
    .id();
    let again = write_fact(
        &mut *s,
        "Keep each pull request to one change so that review stays quick, as reviewers are few",
    );
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == rule),
        "{again:?}"
    );
}

fn a_changed_name_in_a_small_store_supersedes_it(s: &mut dyn MemoryStore) {
    let write = |s: &mut dyn MemoryStore, text: &str| {
        let m = NewMemory::new(text, MemoryType::Decision);
        remember_batch(s, vec![m], &DedupConfig::default())
            .expect("remember")
            .remove(0)
    };
    // First, in a store of a few, written in one batch (as `extract` writes an agent's
    // output): where the words a reversed rule keeps are in a third of the memories or more
    // and weigh little to BM25, and the word that reverses it is most of its score.
    let tiny = |text: &str| NewMemory::new(text, MemoryType::Decision).namespace("tiny");
    let batch = [
        "Use Node 18",
        "Never squash merge",
        "Enable strict mode",
        "Use Node 20",
        "Always squash merge",
        "Disable strict mode",
    ];
    let done = remember_batch(
        &mut *s,
        batch.iter().map(|text| tiny(text)).collect(),
        &DedupConfig::default(),
    )
    .unwrap();
    let superseded: Vec<(MemoryId, Vec<MemoryId>)> = done
        .iter()
        .filter_map(|o| match o {
            WriteOutcome::Updated { id, supersedes } => Some((*id, supersedes.clone())),
            _ => None,
        })
        .collect();
    let id = |i: usize| done[i].id();
    assert_eq!(
        superseded,
        [
            (id(3), vec![id(0)]),
            (id(4), vec![id(1)]),
            (id(5), vec![id(2)])
        ]
    );
    write(&mut *s, "Always run migrations inside a transaction");
    for (old, new) in [
        ("Unit tests run on Jest", "Unit tests run on Vitest"),
        (
            "Config lives in src/config.rs",
            "Config lives in src/settings.rs",
        ),
        // Short: one word of three changed.
        ("Use Node 18", "Use Node 20"),
        ("Never squash merge", "Always squash merge"),
        // A word for its opposite, though both are stopwords to the index (a similarity of 1).
        (
            "Run the linter before the tests",
            "Run the linter after the tests",
        ),
        // A tool, a place, a convention's choice, in lower case.
        (
            "Type-check with mypy before pushing",
            "Type-check with pyright before pushing",
        ),
        (
            "Send your pull request to the dev branch",
            "Send your pull request to the main branch",
        ),
        (
            "Use single quotes for strings",
            "Use double quotes for strings",
        ),
        // A log's level; a place's name in emphasis, a word dropped beside it.
        (
            "The default log level is info",
            "The default log level is debug",
        ),
        (
            "Cut releases specifically from the **next** branch",
            "Cut releases from the stable branch",
        ),
    ] {
        let old = write(&mut *s, old).id();
        let new = write(&mut *s, new);
        assert_eq!(
            new,
            WriteOutcome::Updated {
                id: new.id(),
                supersedes: vec![old]
            }
        );
    }
    // Stored apart, consolidation finds them the same way.
    let off = DedupConfig {
        updates: false,
        ..DedupConfig::default()
    };
    let apart: Vec<MemoryId> = [
        "Review the code format in CI",
        "Code format checks run nightly",
        "Format the code with Ruff",
        "Format the code with Biome",
        "Port 8080",
        "Port 9090",
    ]
    .into_iter()
    .map(|text| {
        let m = NewMemory::new(text, MemoryType::Decision).namespace("apart");
        remember_batch(&mut *s, vec![m], &off).expect("remember")[0].id()
    })
    .collect();
    let report = consolidate(
        &mut *s,
        &ConsolidateConfig::default(),
        Timestamp::now(),
        false,
    )
    .expect("consolidate");
    let mut superseded = report.superseded;
    superseded.sort_unstable();
    assert_eq!(superseded, [(apart[2], apart[3]), (apart[4], apart[5])]);
}

fn cosine_duplicates_are_caught(s: &mut dyn MemoryStore) {
    let dedup = DedupConfig {
        bm25: 2.0, // never: only the cosine rule can fire
        ..DedupConfig::default()
    };
    let out = remember_embedded(
        &mut *s,
        vec![
            embedded("alpha words", "m1", unit(1.0, 0.0)),
            embedded("other words entirely", "m1", unit(1.0, 0.01)),
            embedded("another model", "m2", unit(1.0, 0.0)),
        ],
        &dedup,
    )
    .expect("remember_embedded");
    assert!(
        matches!(out[1], WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == out[0].id()),
        "a near-identical embedding earlier in the batch is a duplicate: {:?}",
        out[1]
    );
    assert!(
        matches!(out[2], WriteOutcome::Inserted { .. }),
        "another model's embedding is not compared: {:?}",
        out[2]
    );
    let again = remember_embedded(
        &mut *s,
        vec![embedded("again", "m1", unit(1.0, 0.02))],
        &dedup,
    )
    .expect("remember_embedded")
    .remove(0);
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == out[0].id()),
        "a stored near-identical embedding is a duplicate: {again:?}"
    );
}

/// A lexical duplicate whose embedding (by the same model) is far from the new memory's is
/// none (`dedup.min_cosine`); near, or by another model, or with the floor at 0, it is one,
/// and an exact copy always is.
fn a_lexical_duplicate_far_in_meaning_is_none(s: &mut dyn MemoryStore) {
    let text = "Run the database migrations before the tests in CI";
    let first = remember_embedded(&mut *s, vec![embedded(text, "m1", unit(1.0, 0.0))], &off())
        .expect("remember_embedded")[0]
        .id();
    let write = |s: &mut dyn MemoryStore, text: &str, model: &str, vector: Vec<f32>, floor| {
        let dedup = DedupConfig {
            min_cosine: floor,
            ..DedupConfig::default()
        };
        remember_embedded(&mut *s, vec![embedded(text, model, vector)], &dedup)
            .expect("remember_embedded")
            .remove(0)
    };
    let reworded = "Run the database migrations before tests in CI";
    let skipped = |o: &WriteOutcome| matches!(o, WriteOutcome::Skipped { duplicate_of, .. } if *duplicate_of == first);
    // cos 0.95; by another model (not compared); with the floor at 0; an exact copy.
    assert!(skipped(&write(s, reworded, "m1", unit(1.0, 0.3), 0.45)));
    assert!(skipped(&write(s, reworded, "m2", unit(1.0, 3.0), 0.45)));
    assert!(skipped(&write(s, reworded, "m1", unit(1.0, 3.0), 0.0)));
    assert!(skipped(&write(s, text, "m1", unit(1.0, 3.0), 0.45)));
    // cos 0.32: the words say the same, the vectors do not.
    let far = write(s, reworded, "m1", unit(1.0, 3.0), 0.45);
    assert!(matches!(far, WriteOutcome::Inserted { .. }), "{far:?}");
}

/// `consolidate` keeps apart what the write path keeps apart: two lexical duplicates whose
/// embeddings (by one model) are far apart are not merged, unless `merge_min_cosine` is 0;
/// near, they are.
fn consolidate_keeps_apart_the_same_words_far_in_meaning(s: &mut dyn MemoryStore) {
    let texts = [
        "Run the database migrations before the tests in CI",
        "Run the database migrations before tests in CI",
    ];
    let stored = |s: &mut dyn MemoryStore, namespace: &str, second: Vec<f32>| -> Vec<MemoryId> {
        let batch = texts
            .iter()
            .zip([unit(1.0, 0.0), second])
            .map(|(text, vector)| {
                let (m, e) = embedded(text, "m1", vector);
                (m.namespace(namespace), e)
            })
            .collect();
        remember_embedded(&mut *s, batch, &off())
            .expect("remember_embedded")
            .iter()
            .map(WriteOutcome::id)
            .collect()
    };
    let far = stored(&mut *s, "far", unit(1.0, 3.0));
    let near = stored(&mut *s, "near", unit(1.0, 0.3));
    let now = Timestamp::now();
    // The pairs merged, each as (lower id, higher id).
    let merged = |r: &ConsolidateReport| -> Vec<(MemoryId, MemoryId)> {
        r.merged
            .iter()
            .map(|m| (m.0.min(m.1), m.0.max(m.1)))
            .collect()
    };
    let config = ConsolidateConfig::default();
    let report = consolidate(&mut *s, &config, now, true).expect("consolidate");
    assert_eq!(merged(&report), [(near[0], near[1])], "{report:?}");
    let words_alone = ConsolidateConfig {
        merge_min_cosine: 0.0,
        ..config
    };
    let report = consolidate(&mut *s, &words_alone, now, true).expect("consolidate");
    assert_eq!(
        merged(&report),
        [(far[0], far[1]), (near[0], near[1])],
        "{report:?}"
    );
}

fn a_bad_embedding_writes_nothing(s: &mut dyn MemoryStore) {
    let bad = remember_embedded(
        &mut *s,
        vec![
            embedded("fine", "m1", unit(1.0, 0.0)),
            embedded("nan", "m1", vec![f32::NAN; 4]),
        ],
        &off(),
    )
    .expect_err("a NaN vector");
    assert_eq!(bad.kind(), ErrorKind::InvalidInput);
    assert_eq!(s.count(&Filter::default()).unwrap(), 0, "all or nothing");
}

fn a_second_merge_adds_nothing(s: &mut dyn MemoryStore, other: &mut dyn MemoryStore) {
    let mut archived = NewMemory::new("An archived decision about queues", MemoryType::Decision);
    archived.status = Status::Archived;
    remember_embedded(
        &mut *s,
        vec![
            (
                NewMemory::new("A lesson about retries", MemoryType::Lesson),
                None,
            ),
            (archived, None),
            embedded("Embedded pattern for retries", "test-model", unit(1.0, 0.5)),
        ],
        &off(),
    )
    .unwrap();
    let mut exported = Vec::new();
    s.for_each_embedded(&mut |o| {
        exported.push((o.memory, o.embedding));
        Ok(())
    })
    .unwrap();
    let dedup = DedupConfig::default();
    let first = remember_embedded(&mut *other, exported.clone(), &dedup).unwrap();
    assert!(first
        .iter()
        .all(|o| matches!(o, WriteOutcome::Inserted { .. })));
    let again = remember_embedded(&mut *other, exported, &dedup).unwrap();
    assert!(
        again
            .iter()
            .filter(|o| matches!(o, WriteOutcome::Inserted { .. }))
            .count()
            <= 1,
        "a second merge finds the active memories as duplicates: {again:?}"
    );
    let copied = other
        .list(&Filter::default(), ListOrder::Oldest, 100, 0)
        .unwrap();
    assert_eq!(copied.len(), 2);
    assert_eq!(
        other
            .vector_candidates("test-model", &unit(1.0, 0.5), &Filter::default(), 5)
            .unwrap()
            .first()
            .map(|&(id, _)| id),
        Some(copied[1].id),
        "the embedding came along"
    );
}

/// A check of a store's behaviour.
type StoreCheck = fn(&mut dyn MemoryStore);

/// The duplicate checks on write, on both stores: written once in the engine over each
/// store's write transaction.
#[test]
fn duplicates_are_merged_skipped_or_kept_apart_on_both_stores() {
    let mut server = TestServer::get();
    let checks: [(&str, StoreCheck); 15] = [
        ("invalid batches", invalid_batches_write_nothing),
        ("a bad embedding", a_bad_embedding_writes_nothing),
        ("lexical duplicates", duplicates_are_merged_or_skipped),
        ("cosine duplicates", cosine_duplicates_are_caught),
        (
            "a lexical duplicate far in meaning",
            a_lexical_duplicate_far_in_meaning_is_none,
        ),
        (
            "consolidate and meaning",
            consolidate_keeps_apart_the_same_words_far_in_meaning,
        ),
        ("updates", a_newer_version_supersedes_the_memories_it_names),
        ("version links", versions_from_elsewhere_link_older_to_newer),
        (
            "changed values",
            a_changed_value_supersedes_the_statement_it_changes,
        ),
        (
            "a changed name in a small store",
            a_changed_name_in_a_small_store_supersedes_it,
        ),
        (
            "a clause added or a typo fixed",
            a_clause_added_or_a_typo_fixed_is_a_duplicate,
        ),
        ("another subject", another_subject_is_stored_beside),
        ("a change said in words", a_change_said_in_words_supersedes),
        (
            "a statement written otherwise",
            a_statement_written_otherwise_is_a_duplicate,
        ),
        (
            "an entry or a command rewritten",
            an_entry_or_a_command_rewritten_supersedes,
        ),
    ];
    for (what, check) in checks {
        for (name, mut s) in new_stores(&mut server) {
            eprintln!("{what} on {name}");
            check(&mut *s);
        }
    }
    let stores = new_stores(&mut server);
    let others = new_stores(&mut server);
    for ((name, mut s), (_, mut other)) in stores.into_iter().zip(others) {
        eprintln!("a second merge on {name}");
        a_second_merge_adds_nothing(&mut *s, &mut *other);
    }
}

/// Rules of a small agent store, none naming an identifier, none alike.
const SMALL_STORE_RULES: [&str; 6] = [
    "Run the whole test suite before you push",
    "Commit messages start with the area they touch",
    "Never log a user's token, even at debug level",
    "Prefer small pull requests with one change each",
    "Release notes are written by whoever merges",
    "Ask before adding a new dependency to the project",
];

/// Identifiers a task may name, as `oro_mem_text::identifiers` finds them: a file, a path, a
/// code identifier, a command.
const IDENTIFIERS: [&str; 5] = [
    "MODULE.bazel.lock",
    "src/store/schema.rs",
    "cfg.DefaultHost()",
    "useSessionToken",
    "pnpm-workspace.yaml",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Selection, with the shipped FTS models: raising `recall.min_relevance` only takes
    /// results away, every result left is at or above the bar or names the task's identifier,
    /// and a memory that names the identifier the task names is never withheld from a store
    /// of no more memories than recall returns, however high the bar.
    #[test]
    fn a_higher_bar_only_takes_results_away_and_never_an_identifier_the_task_names(
        others in proptest::sample::subsequence(SMALL_STORE_RULES.to_vec(), 0..=2),
        identifier in proptest::sample::select(IDENTIFIERS.to_vec()),
        task in proptest::sample::select(vec![
            "fix the build after updating",
            "why does the release fail on",
            "clean up",
        ]),
        bars in (0.0f64..1.0, 0.0f64..1.0),
    ) {
        let mut s = Store::open_in_memory().unwrap();
        for text in &others {
            remember(&mut s, NewMemory::new(*text, MemoryType::Lesson), &off()).unwrap();
        }
        let named = remember(
            &mut s,
            NewMemory::new(
                format!("Regenerate {identifier} with the project's script, never by hand"),
                MemoryType::Gotcha,
            ),
            &off(),
        )
        .unwrap()
        .id();
        let query = format!("{task} {identifier}");
        let (low, high) = if bars.0 <= bars.1 { bars } else { (bars.1, bars.0) };
        let recall = |bar: f64, s: &mut Store| {
            let mut config = Config { mode: Mode::Fts, ..Config::default() };
            config.recall.min_relevance = bar;
            let filter = Filter::default();
            Engine::from_config(config)
                .unwrap()
                .recall(s, &Query::new(&query, &filter), false)
                .unwrap()
                .recall
        };
        let at_low = recall(low, &mut s);
        let at_high = recall(high, &mut s);
        for r in &at_high.results {
            proptest::prop_assert!(
                at_low.results.iter().any(|l| l.memory.id == r.memory.id),
                "{} is returned at bar {high} but not at {low}",
                r.memory.id
            );
            proptest::prop_assert!(
                r.probability.unwrap() >= high || r.named.is_some(),
                "{} at {:?} below the bar {high}, kept for no name",
                r.memory.id,
                r.probability
            );
        }
        for r in [&at_low, &at_high] {
            proptest::prop_assert!(
                r.results.iter().any(|r| r.memory.id == named),
                "the memory naming {identifier} was withheld: {:?}",
                r.results.iter().map(|r| r.memory.id).collect::<Vec<_>>()
            );
        }
        // A task about nothing the store holds gets nothing, and so does any task of an empty
        // store.
        let filter = Filter::default();
        let mut engine = Engine::from_config(Config {
            mode: Mode::Fts,
            ..Config::default()
        })
        .unwrap();
        let unrelated = Query::new("bake sourdough bread with rye flour", &filter);
        proptest::prop_assert!(engine
            .recall(&mut s, &unrelated, false)
            .unwrap()
            .recall
            .results
            .is_empty());
        let mut empty = Store::open_in_memory().unwrap();
        proptest::prop_assert!(engine
            .recall(&mut empty, &Query::new(&query, &filter), false)
            .unwrap()
            .recall
            .results
            .is_empty());
    }
}
