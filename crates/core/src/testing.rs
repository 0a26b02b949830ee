//! Conformance checks that any store implementation can run in its own tests (feature
//! `testing`).
//!
//! [`store_conformance`] takes a function that makes an empty store and checks what the
//! engine and the commands rely on: reading, filtering, lexical search, vector search where the
//! store embeds, and every write. It panics with a message naming the broken rule.

use crate::config::DedupConfig;
use crate::memory::{MemoryType, NewMemory, Status};
use crate::query::Filter;
use crate::store::{CandidateSearch, ListOrder, MemoryWrite, WriteOutcome};
use crate::time::Timestamp;
use crate::ErrorKind;

fn no_dedup() -> DedupConfig {
    DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    }
}

fn insert<S: MemoryWrite>(store: &mut S, memories: Vec<NewMemory>) -> Vec<crate::MemoryId> {
    store
        .remember_batch(memories, &no_dedup())
        .expect("remember_batch")
        .into_iter()
        .map(|o| match o {
            WriteOutcome::Inserted { id } => id,
            other => panic!("with dedup off every memory is inserted, got {other:?}"),
        })
        .collect()
}

/// Runs every check on stores made by `make` (each check gets a new, empty one).
///
/// # Panics
///
/// On the first rule the store breaks, naming it.
pub fn store_conformance<S: CandidateSearch + MemoryWrite>(mut make: impl FnMut() -> S) {
    written_memories_read_back(&mut make());
    filters_restrict_listing_counting_and_search(&mut make());
    lexical_search_ranks_and_never_fails_on_text(&mut make());
    writes_change_what_they_say(&mut make());
    invalid_batches_write_nothing(&mut make());
    duplicates_are_merged_or_skipped(&mut make());
}

fn written_memories_read_back<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let new = NewMemory::new("SQLite allows one writer at a time", MemoryType::Gotcha)
        .tags(["sqlite".to_string()])
        .namespace("ops")
        .confidence(0.9)
        .created_at(Timestamp(1_000));
    let ids = insert(s, vec![new]);
    let m = s.get(ids[0]).expect("get a written memory");
    assert_eq!(
        (
            m.content.as_str(),
            m.memory_type,
            m.tags.as_slice(),
            m.namespace.as_str()
        ),
        (
            "SQLite allows one writer at a time",
            MemoryType::Gotcha,
            &["sqlite".to_string()][..],
            "ops"
        ),
        "a memory reads back as written"
    );
    assert_eq!((m.confidence, m.created_at), (0.9, Timestamp(1_000)));
    assert_eq!(m.status, Status::Active);
    let missing = s.get(ids[0] + 1_000).expect_err("no such memory");
    assert_eq!(
        missing.kind(),
        ErrorKind::NotFound,
        "an unknown id is NotFound"
    );
}

fn filters_restrict_listing_counting_and_search<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        (0..6)
            .map(|i| {
                NewMemory::new(format!("cache note number {i}"), MemoryType::Lesson)
                    .namespace(if i % 2 == 0 { "even" } else { "odd" })
                    .created_at(Timestamp(i * 100))
            })
            .collect(),
    );
    let even = Filter {
        namespace: Some("even".into()),
        ..Filter::default()
    };
    assert_eq!(s.count(&Filter::default()).expect("count"), 6);
    assert_eq!(
        s.count(&even).expect("count"),
        3,
        "count honours the filter"
    );
    let newest: Vec<_> = s
        .list(&Filter::default(), ListOrder::Newest, 2, 1)
        .expect("list")
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(newest, [ids[4], ids[3]], "list orders, skips and limits");
    let found = s.lexical_candidates("cache", &even, 50).expect("search");
    assert_eq!(found.len(), 3, "search honours the filter");
    assert!(found.iter().all(|(m, _)| m.namespace == "even"));
    s.set_status(ids[0], Status::Archived).expect("archive");
    assert_eq!(
        s.lexical_candidates("cache", &even, 50)
            .expect("search")
            .len(),
        2,
        "archived memories are not searched by default"
    );
}

fn lexical_search_ranks_and_never_fails_on_text<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new(
                "Postgres connection pooling with pgbouncer",
                MemoryType::Pattern,
            ),
            NewMemory::new(
                "The database connections were timing out under load",
                MemoryType::Lesson,
            ),
        ],
    );
    let found = s
        .lexical_candidates("database connection timeouts", &Filter::default(), 10)
        .expect("search");
    assert_eq!(
        found.first().map(|(m, _)| m.id),
        Some(ids[1]),
        "the better match first"
    );
    assert!(
        found.windows(2).all(|w| w[0].1 >= w[1].1),
        "best first, larger scores better"
    );
    assert!(found.iter().all(|(_, score)| score.is_finite()));
    for hostile in [
        "",
        "   ",
        "the of and",
        "\"unbalanced (",
        "NEAR(a b)",
        "a* OR -b",
        "é",
    ] {
        let found = s
            .lexical_candidates(hostile, &Filter::default(), 10)
            .unwrap_or_else(|e| panic!("search for {hostile:?} failed: {e}"));
        assert!(found.len() <= 2);
    }
    assert!(
        s.lexical_candidates("database", &Filter::default(), 0)
            .expect("search")
            .is_empty(),
        "depth 0 finds nothing"
    );
}

fn writes_change_what_they_say<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new("first", MemoryType::Lesson),
            NewMemory::new("second", MemoryType::Lesson),
        ],
    );
    s.set_pinned(ids[0], true).expect("pin");
    assert!(s.get(ids[0]).expect("get").pinned);
    s.record_access(&ids[..1], Timestamp(5_000))
        .expect("record access");
    let m = s.get(ids[0]).expect("get");
    assert_eq!(
        (m.access_count, m.last_accessed),
        (1, Some(Timestamp(5_000)))
    );
    s.forget(ids[1]).expect("forget");
    assert_eq!(
        s.get(ids[1]).expect_err("forgotten").kind(),
        ErrorKind::NotFound
    );
    for (what, e) in [
        ("forget", s.forget(ids[1]).expect_err("twice")),
        ("pin", s.set_pinned(ids[1], true).expect_err("gone")),
        (
            "archive",
            s.set_status(ids[1], Status::Archived).expect_err("gone"),
        ),
    ] {
        assert_eq!(e.kind(), ErrorKind::NotFound, "{what} of an unknown id");
    }
}

fn invalid_batches_write_nothing<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let batch = vec![
        NewMemory::new("fine", MemoryType::Lesson),
        NewMemory::new("   ", MemoryType::Lesson),
    ];
    let e = s
        .remember_batch(batch, &no_dedup())
        .expect_err("empty content");
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(
        s.count(&Filter::default()).expect("count"),
        0,
        "all or nothing"
    );
}

fn duplicates_are_merged_or_skipped<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let dedup = DedupConfig::default();
    let text = "Run cargo fmt before every commit";
    let first = s
        .remember_batch(
            vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.5)],
            &dedup,
        )
        .expect("remember")[0];
    let again = s
        .remember_batch(
            vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.9)],
            &dedup,
        )
        .expect("remember")[0];
    assert!(
        matches!(again, WriteOutcome::Merged { into, .. } if into == first.id()),
        "a more confident duplicate merges: {again:?}"
    );
    assert_eq!(s.get(first.id()).expect("get").confidence, 0.9);
    let third = s
        .remember_batch(
            vec![NewMemory::new(text, MemoryType::Lesson).confidence(0.1)],
            &dedup,
        )
        .expect("remember")[0];
    assert!(
        matches!(third, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == first.id()),
        "a less confident duplicate is skipped: {third:?}"
    );
    assert_eq!(s.count(&Filter::default()).expect("count"), 1);
}
