use crate::test_support::{remember, remember_batch};
use oro_mem_core::config::DedupConfig;
use oro_mem_core::{
    ErrorKind, Filter, Memory, MemoryType, MetaCondition, NewMemory, Status, Timestamp,
};

use crate::schema;
use crate::{ListOrder, Store, WriteOutcome};

fn lesson(text: &str) -> NewMemory {
    NewMemory::new(text, MemoryType::Lesson)
}

fn no_dedup() -> DedupConfig {
    DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    }
}

fn store_with(texts: &[&str]) -> Store {
    let mut s = Store::open_in_memory().unwrap();
    let off = no_dedup();
    for t in texts {
        remember(&mut s, lesson(t), &off).unwrap();
    }
    s
}

fn ids(c: &[(Memory, f64)]) -> Vec<i64> {
    c.iter().map(|(m, _)| m.id).collect()
}

#[test]
fn passes_the_store_conformance_checks() {
    oro_mem_core::testing::store_conformance(|| Store::open_in_memory().unwrap());
}

#[test]
fn lexical_search_ranks_and_stems() {
    let s = store_with(&[
        "Postgres connection pooling with pgbouncer",
        "SQLite locks the database while writing; use WAL mode",
        "The database connections were timing out under load",
    ]);
    let c = s
        .lexical_candidates("database connection timeouts", &Filter::default(), 50)
        .unwrap();
    assert_eq!(ids(&c)[0], 3);
    assert!(c.iter().all(|&(_, bm25)| bm25 > 0.0));
}

#[test]
fn chinese_and_japanese_text_match() {
    let s = store_with(&[
        "数据库连接超时的时候要检查连接池",
        "日本語のテキストを検索する方法",
        "plain English memory",
    ]);
    let f = Filter::default();
    assert_eq!(ids(&s.lexical_candidates("连接池", &f, 5).unwrap()), [1]);
    assert_eq!(
        ids(&s.lexical_candidates("数据库超时", &f, 5).unwrap()),
        [1]
    );
    assert_eq!(
        ids(&s.lexical_candidates("テキスト検索", &f, 5).unwrap()),
        [2]
    );
    assert!(s.lexical_candidates("英语", &f, 5).unwrap().is_empty());
}

#[test]
fn hostile_queries_never_error() {
    let s = store_with(&["anything at all", "\"quoted\" AND NOT stuff*"]);
    let long = "x".repeat(1 << 20);
    for q in [
        "\"",
        "AND OR NOT",
        "NEAR(a b)",
        "col:value",
        "a*",
        "\0",
        "(((",
        "^start",
        "😀 emoji",
        "-minus +plus",
        "{a b}",
        "'; DROP TABLE memories; --",
        long.as_str(),
    ] {
        s.lexical_candidates(q, &Filter::default(), 50).unwrap();
    }
    assert_eq!(s.stats().unwrap().total, 2);
}

#[test]
fn filters_restrict_candidates() {
    let mut s = Store::open_in_memory().unwrap();
    let off = no_dedup();
    let mut a = lesson("cache invalidation is hard").tags(["rust", "cache"]);
    a.metadata.insert("priority".into(), 3.into());
    a.metadata
        .insert("project".into(), serde_json::json!({"lang": "rust"}));
    let a = remember(&mut s, a, &off).unwrap().id();
    let mut b = NewMemory::new("cache eviction policy matters", MemoryType::Decision)
        .tags(["go"])
        .namespace("other")
        .created_at(Timestamp(1_000));
    b.metadata.insert("priority".into(), 1.into());
    let b = remember(&mut s, b, &off).unwrap().id();

    let search = |f: &Filter| ids(&s.lexical_candidates("cache", f, 50).unwrap());
    assert_eq!(search(&Filter::default()).len(), 2);
    let f = |g: fn(&mut Filter)| {
        let mut f = Filter::default();
        g(&mut f);
        f
    };
    assert_eq!(search(&f(|f| f.types = vec![MemoryType::Decision])), [b]);
    assert_eq!(search(&f(|f| f.namespace = Some("other".into()))), [b]);
    assert_eq!(
        search(&f(|f| f.tags_any = vec!["go".into(), "x".into()])),
        [b]
    );
    assert_eq!(
        search(&f(|f| f.tags_all = vec!["rust".into(), "cache".into()])),
        [a]
    );
    assert!(search(&f(|f| f.tags_all = vec!["rust".into(), "go".into()])).is_empty());
    assert_eq!(
        search(&f(|f| f.created_before = Some(Timestamp(2_000)))),
        [b]
    );
    assert_eq!(
        search(&f(|f| f.created_after = Some(Timestamp(2_000)))),
        [a]
    );
    let meta = |json: &str| {
        search(&Filter {
            metadata: MetaCondition::parse_all(json).unwrap(),
            ..Filter::default()
        })
    };
    assert_eq!(meta(r#"{"priority": {"$gte": 2}}"#), [a]);
    assert_eq!(meta(r#"{"priority": {"$lt": 2}}"#), [b]);
    assert_eq!(meta(r#"{"project.lang": "rust"}"#), [a]);
    assert_eq!(meta(r#"{"project.lang": {"$ne": "rust"}}"#), [b]);
    s.set_status(a, Status::Archived).unwrap();
    let search = |f: &Filter| ids(&s.lexical_candidates("cache", f, 50).unwrap());
    assert_eq!(search(&Filter::default()), [b]);
    assert_eq!(search(&f(|f| f.statuses = vec![Status::Archived])), [a]);
    let both = f(|f| f.statuses = vec![Status::Archived, Status::Active]);
    assert_eq!(search(&both), [a, b]);
}

#[test]
fn remember_validates_and_writes_nothing_on_error() {
    let mut s = Store::open_in_memory().unwrap();
    let d = DedupConfig::default();
    let err = remember(&mut s, lesson(" "), &d).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let err = remember_batch(
        &mut s,
        vec![lesson("fine"), lesson("bad").confidence(2.0)],
        &d,
    )
    .unwrap_err();
    assert!(err.to_string().contains("memory 2 of the batch"), "{err}");
    assert_eq!(s.stats().unwrap().total, 0);
}

#[test]
fn duplicates_merge_or_skip() {
    let mut s = Store::open_in_memory().unwrap();
    let d = DedupConfig::default();
    remember(&mut s, lesson("Use connection pooling for Postgres"), &d).unwrap();
    let first = remember(
        &mut s,
        lesson("SQLite WAL mode allows only one writer at a time"),
        &d,
    )
    .unwrap();
    assert!(matches!(first, WriteOutcome::Inserted { .. }));
    let same = remember(
        &mut s,
        lesson("SQLite WAL mode allows only one writer at a time"),
        &d,
    )
    .unwrap();
    assert!(
        matches!(same, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == first.id())
    );
    let higher = remember(
        &mut s,
        lesson("sqlite WAL mode allows only ONE writer at a time!").confidence(0.95),
        &d,
    )
    .unwrap();
    assert!(
        matches!(higher, WriteOutcome::Merged { into, confidence, .. }
        if into == first.id() && confidence == 0.95)
    );
    assert_eq!(s.get(first.id()).unwrap().confidence, 0.95);
    let different = remember(
        &mut s,
        lesson("WAL checkpoints can stall readers on slow disks"),
        &d,
    )
    .unwrap();
    assert!(matches!(different, WriteOutcome::Inserted { .. }));
    let other_ns = remember(
        &mut s,
        lesson("SQLite WAL mode allows only one writer at a time").namespace("x"),
        &d,
    )
    .unwrap();
    assert!(matches!(other_ns, WriteOutcome::Inserted { .. }));
    assert_eq!(s.stats().unwrap().total, 4);
}

#[test]
fn fts_index_follows_updates_and_deletes() {
    let mut s = store_with(&["alpha beta", "gamma delta"]);
    s.forget(1).unwrap();
    assert!(s
        .lexical_candidates("alpha", &Filter::default(), 5)
        .unwrap()
        .is_empty());
    assert_eq!(s.forget(1).unwrap_err().kind(), ErrorKind::NotFound);
    s.connection()
        .execute("UPDATE memories SET content = 'epsilon' WHERE id = 2", [])
        .unwrap();
    assert!(s
        .lexical_candidates("gamma", &Filter::default(), 5)
        .unwrap()
        .is_empty());
    assert_eq!(
        s.lexical_candidates("epsilon", &Filter::default(), 5)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(s.integrity_check().unwrap(), "ok");
}

#[test]
fn a_row_with_a_broken_access_count_is_still_read_and_others_are_untouched() {
    let mut s = store_with(&["alpha beta", "gamma delta"]);
    let max = oro_mem_core::memory::MAX_ACCESS_COUNT;
    for (value, expected) in [("9.3e18", max), ("'lots'", 0), ("12.0", 12)] {
        s.connection()
            .execute(
                &format!("UPDATE memories SET access_count = {value} WHERE id = 1"),
                [],
            )
            .unwrap();
        assert_eq!(s.get(1).unwrap().access_count, expected, "{value}");
        assert_eq!(s.get(2).unwrap().access_count, 0);
    }
    // Counting saturates instead of overflowing.
    s.connection()
        .execute(
            &format!("UPDATE memories SET access_count = {max}, return_count = {max}"),
            [],
        )
        .unwrap();
    s.record_used(&[1, 2], Timestamp(5)).unwrap();
    s.record_returned(&[1, 2]).unwrap();
    let m = s.get(2).unwrap();
    assert_eq!((m.access_count, m.return_count), (max, max));
}

#[test]
fn database_predating_the_index_is_migrated_and_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 1).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, created_at, updated_at) \
             VALUES ('legacy memory about caching', 'lesson', 0, 0)",
            [],
        )
        .unwrap();
    }
    let s = Store::open(&path).unwrap();
    assert_eq!(s.migrated_from(), 1);
    assert_eq!(s.stats().unwrap().schema_version, crate::SCHEMA_VERSION);
    assert_eq!(
        s.lexical_candidates("caching", &Filter::default(), 5)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn newer_or_foreign_databases_are_refused_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 4] = [
        ("newer.db", "PRAGMA user_version = 999;", "newer"),
        (
            "other-app.db",
            "PRAGMA application_id = 42; CREATE TABLE t (x);",
            "another application",
        ),
        (
            "foreign-memories.db",
            "CREATE TABLE memories (x); INSERT INTO memories VALUES (1);",
            "no oro-mem schema",
        ),
        (
            "versioned.db",
            "CREATE TABLE notes (x); PRAGMA user_version = 2;",
            "no memories table",
        ),
    ];
    for (name, sql, says) in cases {
        let path = dir.path().join(name);
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        for err in [
            Store::open(&path).unwrap_err(),
            Store::open_read_only(&path).unwrap_err(),
            Store::read_other(&path).unwrap_err(),
        ] {
            assert_eq!(err.kind(), ErrorKind::Storage);
            let shown = format!("{err} {:?}", std::error::Error::source(&err));
            assert!(shown.contains(says), "{name}: {shown}");
            assert!(
                !shown.contains("CREATE"),
                "{name}: SQL in the error: {shown}"
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), before, "{name} was changed");
        assert!(!dir.path().join(format!("{name}-wal")).exists());
    }
}

#[test]
fn a_store_gets_the_application_id_and_an_older_one_on_migrating() {
    let dir = tempfile::tempdir().unwrap();
    let application = |path: &std::path::Path| -> i32 {
        rusqlite::Connection::open(path)
            .unwrap()
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap()
    };
    let new = dir.path().join("new.db");
    Store::open(&new).unwrap();
    assert_eq!(application(&new), crate::APPLICATION_ID);
    let old = dir.path().join("old.db");
    schema::migrate_to(&rusqlite::Connection::open(&old).unwrap(), 5).unwrap();
    assert_eq!(application(&old), 0);
    Store::open(&old).unwrap();
    assert_eq!(application(&old), crate::APPLICATION_ID);
}

/// A store of schema 9, with memories, migrates to the statuses of schema 10 without a
/// table rebuild: every memory and the full-text index as they were, a memory can be merged,
/// and the database is sound. Read-only, the old schema reads with no memory merged.
#[test]
fn a_schema_9_store_takes_the_merged_status_and_the_fact_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v9.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 9).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, created_at, updated_at) \
             VALUES ('vacuum after the backup', 'lesson', 1, 1), \
                    ('Vacuum after the backup!', 'lesson', 2, 2)",
            [],
        )
        .unwrap();
    }
    {
        let s = Store::open_read_only(&path).unwrap();
        assert_eq!(s.get(1).unwrap().merged_into, None);
    }
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.stats().unwrap().schema_version, crate::SCHEMA_VERSION);
    s.transact(&mut |tx| {
        let all = tx.active_memories()?;
        tx.fold_into(all[0].id, &all[1])?;
        Ok(oro_mem_core::store::Commit::Yes)
    })
    .unwrap();
    let merged = s.get(2).unwrap();
    assert_eq!(
        (merged.status, merged.merged_into),
        (Status::Merged, Some(1))
    );
    let found = s
        .lexical_candidates("vacuum backup", &Filter::default(), 10)
        .unwrap();
    assert_eq!(found.iter().map(|(m, _)| m.id).collect::<Vec<_>>(), [1]);
    let check: String = s
        .connection()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    // Another status is still refused; a fact is a type (schema 11), another type is not.
    assert!(s
        .connection()
        .execute("UPDATE memories SET status = 'gone' WHERE id = 1", [])
        .is_err());
    remember_batch(
        &mut s,
        vec![NewMemory::new(
            "The API listens on port 8080",
            MemoryType::Fact,
        )],
        &no_dedup(),
    )
    .unwrap();
    assert!(s
        .connection()
        .execute("UPDATE memories SET type = 'rumour' WHERE id = 1", [])
        .is_err());
}

#[test]
fn a_store_opened_read_only_reads_and_refuses_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.db");
    {
        let mut s = Store::open(&path).unwrap();
        remember_batch(&mut s, vec![lesson("pyright needs the venv")], &no_dedup()).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let mut s = Store::open_read_only(&path).unwrap();
    assert!(s.is_read_only());
    assert_eq!(s.get(1).unwrap().content, "pyright needs the venv");
    let found = s
        .lexical_candidates("venv pyright", &Filter::default(), 5)
        .unwrap();
    let scored = s.lexical_scores("venv pyright", &[2, 1]).unwrap();
    assert_eq!(scored, [(1, found[0].1)], "scored as found");
    let err = remember_batch(&mut s, vec![lesson("another")], &no_dedup()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ReadOnly, "{err}");
    let err = s.record_returned(&[1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ReadOnly, "{err}");
    let err = s.record_used(&[1], Timestamp(5)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ReadOnly, "{err}");
    drop(s);
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing written");

    // Too old to read without migrating, too new to read at all: clear errors.
    for version in [crate::READ_ONLY_FROM - 1, crate::SCHEMA_VERSION + 1] {
        let other = dir.path().join(format!("v{version}.db"));
        let conn = rusqlite::Connection::open(&other).unwrap();
        schema::migrate_to(&conn, version.min(crate::SCHEMA_VERSION)).unwrap();
        conn.pragma_update(None, "user_version", version).unwrap();
        drop(conn);
        let err = Store::open_read_only(&other).unwrap_err();
        assert!(err.to_string().contains("schema version"), "{err}");
    }
}

#[test]
fn a_store_before_sessions_is_read_read_only_and_merged_from_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v7.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 7).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, created_at, updated_at) \
             VALUES ('pyright needs the venv', 'gotcha', 100, 100)",
            [],
        )
        .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let s = Store::open_read_only(&path).unwrap();
    let m = s.get(1).unwrap();
    assert_eq!(
        (m.content.as_str(), m.session.as_deref()),
        ("pyright needs the venv", None)
    );
    let found = s
        .lexical_candidates("pyright venv", &Filter::default(), 5)
        .unwrap();
    assert_eq!(ids(&found), [1], "full-text search reads through the shim");
    let scored = s.lexical_scores("pyright venv", &[1]).unwrap();
    assert_eq!(scored, [(1, found[0].1)], "scored as found, by FTS5");
    let in_session = Filter {
        session: Some("s".into()),
        ..Filter::default()
    };
    assert_eq!(s.count(&in_session).unwrap(), 0);
    assert!(s.session_neighbours(&[&m], 2).unwrap().is_empty());
    drop(s);
    let other = Store::read_other(&path).unwrap();
    assert_eq!(other[0].memory.session, None);
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing written");
    // Opened for writing, it is migrated and takes sessions.
    let mut s = Store::open(&path).unwrap();
    let id = remember(
        &mut s,
        lesson("ruff runs first").session("run-1"),
        &no_dedup(),
    )
    .unwrap()
    .id();
    assert_eq!(s.get(id).unwrap().session.as_deref(), Some("run-1"));
}

#[test]
fn not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.db");
    std::fs::write(&path, vec![b'x'; 8192]).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Storage);
}

#[test]
fn uses_are_counted_and_listed_most_used_first() {
    let mut s = store_with(&["one thing", "two things", "three things"]);
    s.record_used(&[2, 3], Timestamp(500)).unwrap();
    s.record_used(&[3], Timestamp(600)).unwrap();
    let m = s.get(3).unwrap();
    assert_eq!((m.access_count, m.last_accessed), (2, Some(Timestamp(600))));
    let l = s
        .list(&Filter::default(), ListOrder::MostAccessed, 2, 0)
        .unwrap();
    assert_eq!(l.iter().map(|m| m.id).collect::<Vec<_>>(), [3, 2]);
    assert_eq!(s.count(&Filter::default()).unwrap(), 3);
}

#[test]
fn fast_path_falls_back_when_the_best_matches_are_filtered_out() {
    let mut s = Store::open_in_memory().unwrap();
    let off = no_dedup();
    // 30 archived memories that match "apple" better (shorter) than the one active memory.
    for i in 0..30 {
        let m = lesson(&format!("apple apple {i}")).namespace("n");
        let id = remember(&mut s, m, &off).unwrap().id();
        s.set_status(id, Status::Archived).unwrap();
    }
    let active = remember(
        &mut s,
        lesson("apple pie with a long tail of other words in it"),
        &off,
    )
    .unwrap()
    .id();
    for depth in [1, 5, 50] {
        let c = s
            .lexical_candidates("apple", &Filter::default(), depth)
            .unwrap();
        assert_eq!(ids(&c), [active], "depth {depth}");
    }
    let archived = Filter {
        statuses: vec![Status::Archived],
        ..Filter::default()
    };
    let c = s.lexical_candidates("apple", &archived, 50).unwrap();
    assert_eq!(c.len(), 30);
    let general = Filter {
        namespace: Some("n".into()),
        statuses: vec![Status::Archived],
        ..Filter::default()
    };
    let g = s.lexical_candidates("apple", &general, 50).unwrap();
    assert_eq!(ids(&c), ids(&g), "fast and general paths agree");
    let scores = |c: &[(Memory, f64)]| c.iter().map(|&(_, s)| s).collect::<Vec<_>>();
    assert_eq!(scores(&c), scores(&g));
}

#[test]
fn another_store_of_an_older_version_is_read_without_being_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("worker-v1.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 1).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, tags, metadata, confidence, pinned, status, \
             created_at, updated_at, access_count, last_accessed) \
             VALUES ('worker lesson', 'gotcha', '[\"ci\"]', '{\"k\": 1}', 0.6, 1, 'archived', \
             100, 200, 7, 150)",
            [],
        )
        .unwrap();
    }
    let read = Store::read_other(&path).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].embedding, None);
    let m = &read[0].memory;
    assert_eq!(m.content, "worker lesson");
    assert_eq!(m.memory_type, MemoryType::Gotcha);
    assert_eq!(m.tags, ["ci"]);
    assert_eq!(m.metadata["k"], 1);
    assert_eq!(
        (m.confidence, m.pinned, m.status),
        (0.6, true, Status::Archived)
    );
    assert_eq!(m.created_at, Some(Timestamp(100)));
    assert_eq!((m.access_count, m.last_accessed), (7, Some(Timestamp(150))));
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(schema::version(&conn).unwrap(), 1, "left at its version");

    let err = Store::read_other(dir.path().join("none.db")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    let plain = dir.path().join("plain.db");
    rusqlite::Connection::open(&plain)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    let err = Store::read_other(&plain).unwrap_err().to_string();
    assert!(err.contains("not an oro-mem database"), "{err}");
    let newer = dir.path().join("newer.db");
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 999)
        .unwrap();
    let err = Store::read_other(&newer).unwrap_err().to_string();
    assert!(err.contains("newer than this oro-mem"), "{err}");
}

#[test]
fn dedup_finds_a_duplicate_behind_many_better_matches_of_other_namespaces() {
    let mut s = Store::open_in_memory().unwrap();
    let off = no_dedup();
    // 40 copies in namespace "a" match the new text better than its near-duplicate in "b"
    // does (one word longer), filling the fast path's look-ahead: the general query must
    // find it.
    for _ in 0..40 {
        remember(
            &mut s,
            lesson("retry backoff jitter keeps clients from stampeding the server").namespace("a"),
            &off,
        )
        .unwrap();
    }
    let original = remember(
        &mut s,
        lesson("retry backoff jitter keeps clients from stampeding the server eventually")
            .namespace("b"),
        &off,
    )
    .unwrap()
    .id();
    let again = remember(
        &mut s,
        lesson("retry backoff jitter keeps clients from stampeding the server").namespace("b"),
        &DedupConfig::default(),
    )
    .unwrap();
    assert!(
        matches!(again, WriteOutcome::Skipped { duplicate_of, .. } if duplicate_of == original),
        "{again:?}"
    );
    // And in a namespace of its own the same text is new.
    let other = remember(
        &mut s,
        lesson("retry backoff jitter keeps clients from stampeding the server").namespace("c"),
        &DedupConfig::default(),
    )
    .unwrap();
    assert!(matches!(other, WriteOutcome::Inserted { .. }), "{other:?}");
}

#[test]
fn memories_alike_in_words_but_not_in_metadata_are_no_duplicates() {
    let mut s = Store::open_in_memory().unwrap();
    let dedup = DedupConfig::default();
    let episode = |speed: i64| {
        let mut m = lesson("the gripper slipped on the wet cup during the pick");
        m.metadata = serde_json::json!({"params": {"speed": speed}})
            .as_object()
            .unwrap()
            .clone();
        m
    };
    let first = remember(&mut s, episode(1), &dedup).unwrap();
    let other = remember(&mut s, episode(2), &dedup).unwrap();
    assert!(
        matches!(other, WriteOutcome::Inserted { .. }),
        "another run's parameters: {other:?}"
    );
    let again = remember(&mut s, episode(1), &dedup).unwrap();
    assert_eq!(
        again,
        WriteOutcome::Skipped {
            duplicate_of: first.id(),
            similarity: 1.0
        }
    );
}

/// A namespace's lexical candidates are the store's, in the store's order, that are in the
/// namespace with the filter's status: whether the namespace is small (its ids picked from
/// its index first) or most of the store, cold (FTS5) or warm (the mirror).
#[test]
fn a_namespace_filtered_lexical_search_is_the_stores_search_within_the_namespace() {
    for warm in [false, true] {
        let mut s = Store::open_in_memory().unwrap();
        s.set_warm(warm);
        let off = no_dedup();
        for i in 0..200 {
            let namespace = if i % 10 == 0 { "small" } else { "large" };
            let text = format!("lint error number {i} {}", "again ".repeat(i % 7));
            remember(&mut s, lesson(&text).namespace(namespace), &off).unwrap();
        }
        for id in (1..=200).step_by(3) {
            s.set_status(id, Status::Archived).unwrap();
        }
        assert!(s
            .few_in_namespace(&in_namespace("small", &[]))
            .unwrap()
            .is_some());
        assert!(s
            .few_in_namespace(&in_namespace("large", &[]))
            .unwrap()
            .is_none());
        let both = [Status::Active, Status::Archived];
        for (namespace, statuses) in [
            ("small", &[][..]),
            ("small", &[Status::Archived][..]),
            ("small", &both[..]),
            ("large", &[]),
            ("large", &both[..]),
            ("none", &[]),
        ] {
            let filter = in_namespace(namespace, statuses);
            let everything = Filter {
                statuses: statuses.to_vec(),
                ..Filter::default()
            };
            let want: Vec<i64> = s
                .lexical_candidates("lint error", &everything, 1000)
                .unwrap()
                .into_iter()
                .filter(|(m, _)| m.namespace == namespace)
                .map(|(m, _)| m.id)
                .take(8)
                .collect();
            let got = ids(&s.lexical_candidates("lint error", &filter, 8).unwrap());
            assert_eq!(got, want, "warm {warm}, {namespace} {statuses:?}");
            assert_eq!(want.is_empty(), namespace == "none");
        }
    }
}

fn in_namespace(namespace: &str, statuses: &[Status]) -> Filter {
    Filter {
        namespace: Some(namespace.into()),
        statuses: statuses.to_vec(),
        ..Filter::default()
    }
}

#[test]
fn a_kept_count_follows_writes_by_this_store_and_by_others() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("counts.db");
    let mut s = Store::open(&path).unwrap();
    let mut other = Store::open(&path).unwrap();
    let off = no_dedup();
    let all = Filter::default();
    let count = |s: &Store| s.count_up_to(&all, 10).unwrap();
    remember(&mut s, lesson("one"), &off).unwrap();
    assert_eq!(count(&s), 1);
    // Asked again with nothing changed: the kept count.
    assert_eq!(count(&s), 1);
    remember(&mut other, lesson("two"), &off).unwrap();
    assert_eq!(count(&s), 2, "another connection's commit");
    let third = remember(&mut s, lesson("three"), &off).unwrap();
    assert_eq!(count(&s), 3, "this store's own write");
    s.set_status(third.id(), Status::Archived).unwrap();
    assert_eq!(count(&s), 2, "an update");
    for i in 0..10 {
        remember(&mut other, lesson(&format!("more {i}")), &off).unwrap();
    }
    assert_eq!(count(&s), 10, "up to the most asked for");
    assert_eq!(
        s.count_up_to(&all, 100).unwrap(),
        12,
        "each most counted alike"
    );
    let ns = Filter {
        namespace: Some("elsewhere".into()),
        ..Filter::default()
    };
    assert_eq!(
        s.count_up_to(&ns, 10).unwrap(),
        0,
        "each filter counted alike"
    );
}

#[test]
fn a_schema_12_store_indexes_its_identifiers_by_their_parts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v12.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        schema::migrate_to(&conn, 12).unwrap();
        conn.execute(
            "INSERT INTO memories (content, type, created_at, updated_at) \
             VALUES ('cfg.DefaultHost() reads GH_HOST first', 'gotcha', 1, 1), \
                    ('the docs build with mkdocs', 'lesson', 2, 2)",
            [],
        )
        .unwrap();
    }
    let found = |s: &Store, query: &str| -> Vec<i64> {
        ids(&s.lexical_candidates(query, &Filter::default(), 10).unwrap())
    };
    {
        // Read as it is, unchanged.
        let s = Store::open_read_only(&path).unwrap();
        assert_eq!(found(&s, "DefaultHost"), [1]);
        assert_eq!(s.stats().unwrap().schema_version, 12);
    }
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.stats().unwrap().schema_version, crate::SCHEMA_VERSION);
    assert_eq!(found(&s, "which default host"), [1]);
    assert_eq!(found(&s, "DefaultHost"), [1]);
    // Only the memory whose indexed text changed was written again.
    let fts_text: Vec<Option<String>> = s
        .conn
        .prepare("SELECT fts_text FROM memories ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(
        fts_text,
        [
            Some("cfg.DefaultHost Default Host() reads GH_HOST first".to_string()),
            None
        ]
    );
    s.rebuild_index().unwrap();
    assert_eq!(found(&s, "default host"), [1]);
    assert_eq!(s.integrity_check().unwrap(), "ok");
}
