//! Tests against a real PostgreSQL server with pgvector ([`TestServer`]).

use oro_mem_core::testing::store_conformance;
use postgres::{Client, NoTls};

use crate::testing::TestServer as Server;
use crate::Store;

#[test]
fn conforms_to_the_store_interface() {
    let Some(mut server) = Server::get() else {
        return;
    };
    store_conformance(|| server.store());
}

#[test]
fn a_dropped_connection_is_made_again_and_loses_nothing() {
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{Filter, MemoryType, NewMemory};
    use oro_mem_engine::remember_batch;

    let Some(mut server) = Server::get() else {
        return;
    };
    let mut store = server.store();
    let pid = |s: &Store| -> i32 {
        s.client()
            .expect("connected")
            .query_one("SELECT pg_backend_pid()", &[])
            .expect("pid")
            .get(0)
    };
    let kill = |pid: i32| {
        let mut admin = Client::connect(&server.url, NoTls).expect("admin connection");
        admin
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .expect("terminate");
    };
    let dedup = DedupConfig::default();
    remember_batch(
        &mut store,
        vec![NewMemory::new("before the drop", MemoryType::Lesson)],
        &dedup,
    )
    .expect("write");
    let first = pid(&store);
    kill(first);
    // A connection idle for a second is checked before use: the first call after the
    // backend ended connects again, instead of failing (a warm server's next request).
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert_eq!(store.count(&Filter::default()).expect("the first call"), 1);
    assert_ne!(pid(&store), first, "a new connection");
    // A batch whose connection drops before it commits leaves nothing behind.
    let mut doomed = server.store();
    let doomed_pid = pid(&doomed);
    let big: Vec<_> = (0..2_000)
        .map(|i| {
            NewMemory::new(
                format!("batch memory number{i} of many"),
                MemoryType::Lesson,
            )
        })
        .collect();
    let killer = {
        let url = server.url.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            let mut admin = Client::connect(&url, NoTls).expect("admin connection");
            admin
                .execute("SELECT pg_terminate_backend($1)", &[&doomed_pid])
                .expect("terminate");
        })
    };
    let outcome = remember_batch(&mut doomed, big, &dedup);
    killer.join().expect("killer");
    let stored = doomed.count(&Filter::default()).unwrap_or_else(|_| {
        std::thread::sleep(std::time::Duration::from_millis(200));
        doomed
            .count(&Filter::default())
            .expect("count after reconnecting")
    });
    match outcome {
        Ok(written) => assert_eq!(stored, written.len() as u64, "committed before the drop"),
        Err(e) => assert_eq!(stored, 0, "nothing half-written: {e}"),
    }
}

#[test]
fn a_filter_that_drops_the_best_matches_still_gets_its_own_best() {
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{Filter, MemoryType, NewMemory};
    use oro_mem_engine::remember_batch;

    let Some(mut server) = Server::get() else {
        return;
    };
    let mut store = server.store();
    // 150 short memories in "a" outscore 10 long ones in "b" for "cache": the best 100 by
    // score alone hold no memory of "b", so the search must filter every match instead.
    let mut batch: Vec<NewMemory> = (0..150)
        .map(|i| NewMemory::new(format!("cache item{i}"), MemoryType::Lesson).namespace("a"))
        .collect();
    batch.extend((0..10).map(|i| {
        NewMemory::new(
            format!(
                "cache {} tail{i}",
                "filler words that lengthen it ".repeat(i + 1)
            ),
            MemoryType::Lesson,
        )
        .namespace("b")
    }));
    let off = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    remember_batch(&mut store, batch, &off).expect("write");
    let b = Filter {
        namespace: Some("b".into()),
        ..Filter::default()
    };
    let all_of_b = store
        .lexical_candidates("cache", &b, 1_000)
        .expect("search");
    assert_eq!(all_of_b.len(), 10);
    let best = store.lexical_candidates("cache", &b, 5).expect("search");
    let ids = |v: &[(oro_mem_core::Memory, f64)]| v.iter().map(|(m, _)| m.id).collect::<Vec<_>>();
    assert_eq!(ids(&best), ids(&all_of_b[..5]));
    assert!(best.iter().all(|(m, _)| m.namespace == "b"));
}

/// A store keeps to the one schema its `search_path` names, as PostgreSQL reads the name:
/// teams named in mixed case never share `public` or each other's tables, and a schema that
/// cannot hold a store is refused, not written to.
#[test]
fn each_store_keeps_to_the_schema_it_names() {
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{Filter, MemoryType, NewMemory};
    use oro_mem_engine::remember_batch;

    let Some(server) = Server::get() else {
        return;
    };
    let pid = std::process::id();
    let sep = if server.url.contains('?') { '&' } else { '?' };
    let at = |search_path: &str| {
        let escaped = search_path.replace('"', "%22").replace(',', "%2C");
        crate::Location::parse(&format!(
            "{}{sep}options=-csearch_path%3D{escaped}",
            server.url
        ))
        .expect("a test URL")
    };
    let (a, b) = (format!("TeamA_{pid}"), format!("TeamB_{pid}"));
    let mut team_a = Store::open(&at(&a)).expect("team A's store");
    remember_batch(
        &mut team_a,
        vec![NewMemory::new("team A's secret", MemoryType::Lesson)],
        &DedupConfig::default(),
    )
    .expect("write");
    let team_b = Store::open(&at(&b)).expect("team B's store");
    assert_eq!(team_b.count(&Filter::default()).unwrap(), 0, "B sees A's");
    // Unquoted, the name is folded to lower case, as PostgreSQL folds it.
    let lower = Store::open(&at(&a.to_lowercase())).expect("the same schema");
    assert_eq!(lower.count(&Filter::default()).unwrap(), 1);
    let mut admin = Client::connect(&server.url, NoTls).expect("admin connection");
    let tables_of = |admin: &mut Client, schema: &str| -> i64 {
        admin
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = 'memories'",
                &[&schema],
            )
            .expect("tables")
            .get(0)
    };
    assert_eq!(tables_of(&mut admin, &a.to_lowercase()), 1);
    assert_eq!(
        tables_of(&mut admin, &a),
        0,
        "a schema of the unfolded name"
    );
    // Quoted, the name is kept as written: a schema of its own.
    let quoted = Store::open(&at(&format!("\"{a}\""))).expect("the quoted schema");
    assert_eq!(quoted.count(&Filter::default()).unwrap(), 0);
    assert_eq!(tables_of(&mut admin, &a), 1);
    for refused in ["pg_temp", "pg_catalog"] {
        let e = Store::open(&at(refused)).expect_err(refused);
        assert!(e.to_string().contains("cannot hold a store"), "{e}");
    }
    drop((team_a, team_b, lower, quoted));
    let server_location = crate::Location::parse(&server.url).expect("the server's URL");
    for schema in [a.to_lowercase(), b.to_lowercase(), a] {
        server_location.drop_schema(&schema).expect("drop");
    }
}

#[test]
fn an_older_schema_is_indexed_again_by_identifiers_parts_once() {
    use oro_mem_core::{Filter, MemoryType, NewMemory};

    let Some(mut server) = Server::get() else {
        return;
    };
    let location = server.fresh();
    let found = |s: &Store, query: &str| -> Vec<i64> {
        s.lexical_candidates(query, &Filter::default(), 10)
            .expect("search")
            .iter()
            .map(|(m, _)| m.id)
            .collect()
    };
    let version = |s: &Store| -> i32 {
        s.client()
            .expect("connected")
            .query_one("SELECT version FROM oro_mem_schema", &[])
            .expect("version")
            .get(0)
    };
    {
        let mut s = Store::open(&location).expect("open");
        assert_eq!(version(&s), crate::SCHEMA_VERSION);
        oro_mem_engine::remember_batch(
            &mut s,
            vec![NewMemory::new(
                "cfg.DefaultHost() reads GH_HOST first",
                MemoryType::Gotcha,
            )],
            &oro_mem_core::config::DedupConfig::default(),
        )
        .expect("write");
        assert_eq!(found(&s, "which default host"), [1]);
        // An index as schema 5 wrote it, without the parts (and none at all, here).
        s.client()
            .expect("connected")
            .batch_execute(
                "TRUNCATE lex_postings, lex_terms; UPDATE oro_mem_schema SET version = 5",
            )
            .expect("age the store");
        assert_eq!(found(&s, "which default host"), Vec::<i64>::new());
    }
    let s = Store::open(&location).expect("open again");
    assert_eq!(found(&s, "which default host"), [1]);
    assert_eq!(found(&s, "DefaultHost"), [1]);
    assert_eq!(version(&s), crate::SCHEMA_VERSION);
    // At the current version, opening writes nothing again: an emptied index stays empty.
    s.client()
        .expect("connected")
        .batch_execute("TRUNCATE lex_postings, lex_terms")
        .expect("empty the index");
    drop(s);
    let s = Store::open(&location).expect("open a third time");
    assert_eq!(found(&s, "DefaultHost"), Vec::<i64>::new());
}

#[test]
fn processes_that_open_a_new_store_together_all_open_it() {
    let Some(mut server) = Server::get() else {
        return;
    };
    for _ in 0..8 {
        let location = server.fresh();
        let barrier = std::sync::Barrier::new(4);
        std::thread::scope(|s| {
            let openers: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        Store::open(&location).map(|_| ())
                    })
                })
                .collect();
            for opener in openers {
                opener
                    .join()
                    .expect("opener")
                    .expect("each of them opens the store");
            }
        });
    }
}

#[test]
fn the_bm25_query_reads_each_terms_frequency_once_however_many_postings() {
    use oro_mem_core::config::DedupConfig;
    use oro_mem_core::{MemoryType, NewMemory};
    use oro_mem_engine::remember_batch;

    let Some(mut server) = Server::get() else {
        return;
    };
    let mut store = server.store();
    let alike = (0..60)
        .map(|i| {
            NewMemory::new(
                format!("the nightly job exported batch {i}"),
                MemoryType::Fact,
            )
        })
        .collect();
    let dedup = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    remember_batch(&mut store, alike, &dedup).expect("write");
    // Three terms, each in all 60 memories: 180 postings, joined with their memories as a
    // filtered search and the duplicate check join them. Read once per posting, as when
    // PostgreSQL inlined the terms into that join, each read of a term's row walks the
    // versions a transaction writing such memories made of it.
    let terms: Vec<String> = ["nightli", "job", "batch"].map(String::from).to_vec();
    let mut p = crate::sql::Params::default();
    let placeholder = p.add(terms.clone());
    let sql = format!(
        "EXPLAIN (ANALYZE, FORMAT JSON) {} SELECT id, score FROM s",
        crate::search::bm25_with(&placeholder, "true", Some("m.status = 'active'"))
    );
    let plan: serde_json::Value = store
        .client()
        .expect("connected")
        .query_one(&sql, &p.refs())
        .expect("explain")
        .get(0);
    fn lex_terms_reads(node: &serde_json::Value) -> u64 {
        let own = match node.get("Relation Name").and_then(|r| r.as_str()) {
            Some("lex_terms") => node["Actual Loops"].as_u64().unwrap_or(0),
            _ => 0,
        };
        let children = node.get("Plans").and_then(|c| c.as_array());
        own + children.map_or(0, |c| c.iter().map(lex_terms_reads).sum())
    }
    let reads = lex_terms_reads(&plan[0]["Plan"]);
    assert!(
        (1..=terms.len() as u64).contains(&reads),
        "lex_terms read {reads} times for {} terms: {plan}",
        terms.len()
    );
}
