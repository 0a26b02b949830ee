//! The `oro-mem` binary on a PostgreSQL store: the test server of
//! `oro_mem_store_postgres::testing` (`scripts/postgres`), a schema of its own per test.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use oro_mem_store_postgres::testing::TestServer;

const BIN: &str = env!("CARGO_BIN_EXE_oro-mem");

/// A schema of the test server (dropped with it) and a working directory.
struct Schema {
    url: String,
    dir: tempfile::TempDir,
    /// Holds the schema.
    _server: TestServer,
}

impl Schema {
    fn new() -> Option<Schema> {
        let mut server = TestServer::get()?;
        Some(Schema {
            url: server.fresh_url(),
            dir: tempfile::tempdir().expect("temp dir"),
            _server: server,
        })
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.current_dir(self.dir.path())
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"))
            .env("ORO_MEM_DB", &self.url)
            // A server only where a test starts one.
            .env("ORO_MEM_SERVER", "manual")
            .env_remove("ORO_MEM_CONFIG")
            .args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run oro-mem")
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(args)).expect("JSON")
    }

    /// Runs oro-mem on the SQLite file `db` instead.
    fn ok_on(&self, db: &Path, args: &[&str]) -> String {
        let out = self
            .cmd(args)
            .env("ORO_MEM_DB", db)
            .output()
            .expect("run oro-mem");
        assert!(
            out.status.success(),
            "{args:?} on {} failed: {}",
            db.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

#[test]
fn every_command_works_on_postgres_and_merges_go_both_ways() {
    let Some(pg) = Schema::new() else {
        return;
    };
    pg.ok(&[
        "remember",
        "SQLite WAL mode allows one writer at a time",
        "--type",
        "gotcha",
        "--tags",
        "db,sqlite",
    ]);
    pg.ok(&[
        "remember",
        "Use pgbouncer for Postgres connection pooling",
        "--type",
        "pattern",
        "--session",
        "s1",
    ]);
    assert_eq!(
        pg.ok(&[
            "remember",
            "SQLite WAL mode allows one writer at a time!",
            "--type",
            "gotcha"
        ]),
        "skipped: duplicate of id 1 \"SQLite WAL mode allows one writer at a time\" \
         (`--no-dedup` stores it anyway)\n"
    );
    let answer = pg.json(&["recall", "how many writers does WAL allow", "--json"]);
    assert_eq!(answer["results"][0]["memory"]["id"], 1, "{answer}");
    let listed = pg.ok(&["memories", "list", "--tag", "sqlite"]);
    assert!(listed.contains("SQLite WAL"), "{listed}");
    let stats = pg.json(&["stats", "--json"]);
    assert_eq!(stats["total"], 2);
    let store = stats["store"].as_str().expect("the store is named");
    assert!(
        store.starts_with("postgres://") && store.contains("oro_test_"),
        "{store}"
    );

    // A worker's SQLite file merged in twice: the second time copies nothing.
    let worker = pg.dir.path().join("worker.db");
    pg.ok_on(&worker, &["init"]);
    pg.ok_on(
        &worker,
        &[
            "remember",
            "Workers learn that retries need jitter",
            "--type",
            "lesson",
        ],
    );
    pg.ok_on(
        &worker,
        &[
            "remember",
            "Use pgbouncer for Postgres connection pooling",
            "--type",
            "pattern",
        ],
    );
    let first = pg.json(&["merge", worker.to_str().expect("utf-8"), "--json"]);
    let again = pg.json(&["merge", worker.to_str().expect("utf-8"), "--json"]);
    assert_eq!(
        pg.json(&["stats", "--json"])["total"],
        3,
        "{first} then {again}"
    );
    // And the team's store merged into a new file, twice.
    let copy = pg.dir.path().join("copy.db");
    pg.ok_on(&copy, &["init"]);
    pg.ok_on(&copy, &["merge", &pg.url]);
    pg.ok_on(&copy, &["merge", &pg.url]);
    let copied: serde_json::Value =
        serde_json::from_str(&pg.ok_on(&copy, &["stats", "--json"])).expect("JSON");
    assert_eq!(copied["total"], 3);

    // Export, forget everything, import: the same memories again.
    let exported = pg.ok(&["export"]);
    assert_eq!(exported.lines().count(), 3);
    for id in ["1", "2", "4"] {
        pg.ok(&["memories", "forget", id]);
    }
    assert_eq!(pg.json(&["stats", "--json"])["total"], 0);
    let file = pg.dir.path().join("export.jsonl");
    std::fs::write(&file, &exported).expect("write export");
    pg.ok(&["import", file.to_str().expect("utf-8")]);
    assert_eq!(pg.json(&["stats", "--json"])["total"], 3);
    let answer = pg.json(&["recall", "retries jitter", "--json"]);
    assert!(
        answer["results"][0]["memory"]["content"]
            .as_str()
            .is_some_and(|c| c.contains("jitter")),
        "{answer}"
    );
}

/// `init` on a PostgreSQL location prepares that database and writes nothing local: no file
/// or directory named after the URL, no `.oro/`.
#[test]
fn init_on_a_postgres_location_prepares_it_and_writes_nothing_here() {
    let Some(pg) = Schema::new() else {
        return;
    };
    let before: Vec<_> = std::fs::read_dir(pg.dir.path()).unwrap().collect();
    let out = pg.ok(&["init"]);
    assert!(out.starts_with("ready: postgres://"), "{out}");
    assert!(out.contains("nothing was written here"), "{out}");
    let after: Vec<_> = std::fs::read_dir(pg.dir.path()).unwrap().collect();
    assert_eq!(before.len(), after.len(), "init wrote here: {after:?}");
    let out = pg.ok(&["--db", &pg.url, "init"]);
    assert!(out.starts_with("ready: "), "{out}");
    assert!(!pg.dir.path().join("postgres:").exists());
    assert!(pg.ok(&["stats"]).contains("memories:   0"));
}

#[test]
fn a_password_never_shows_and_a_bad_server_is_a_clear_error() {
    let Some(pg) = Schema::new() else {
        return;
    };
    let out = pg
        .cmd(&["stats"])
        .env(
            "ORO_MEM_DB",
            "postgres://team:hunter2secret@127.0.0.1:1/memory",
        )
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect to postgres://team@127.0.0.1:1/memory"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    let config = pg.ok(&["config"]);
    assert!(!config.contains("hunter2"));

    // libpq's keyword/value form names the same store, and its password never shows either.
    let out = pg
        .cmd(&["stats"])
        .env(
            "ORO_MEM_DB",
            "host=127.0.0.1 port=1 dbname=memory user=team password='hunter2 secret'",
        )
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect to postgres://team@127.0.0.1:1/memory"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    // The test server's URL is postgres://USER@HOST:PORT/DB?options=-csearch_path%3DSCHEMA.
    let rest = pg
        .url
        .strip_prefix("postgres://")
        .expect("a postgres:// URL");
    let (user, rest) = rest.split_once('@').expect("a user");
    let (host_port, rest) = rest.split_once('/').expect("a database");
    let (host, port) = host_port.split_once(':').expect("a port");
    let (db, query) = rest.split_once("?options=").expect("the schema's options");
    let options = query.replace("%3D", "=");
    let keywords = format!(
        "host={host} port={port} dbname={db} user={user} password=hunter2 options='{options}'"
    );
    pg.ok(&[
        "remember",
        "Deploys go out on Tuesdays",
        "--type",
        "decision",
    ]);
    let shown = pg
        .cmd(&["stats"])
        .env("ORO_MEM_DB", &keywords)
        .output()
        .expect("run");
    let stats = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(stats.contains("memories:   1"), "{stats}");
    assert!(!stats.contains("hunter2"), "{stats}");
}

/// Writers spawned at once, each writing the same `n` memories in its own order (so that
/// duplicates race), with recallers asking meanwhile: every call succeeds, and each memory
/// is stored exactly once.
fn writers_race(pg: &Schema, writers: usize, n: usize, recallers: usize) {
    let content = |i: usize| format!("note{i} deploy{i} cache{i} rule{i}");
    let stop = Arc::new(AtomicBool::new(false));
    let asking: Vec<_> = (0..recallers)
        .map(|r| {
            let stop = stop.clone();
            let url = pg.url.clone();
            std::thread::spawn(move || {
                let mut asked = 0;
                let mut k = r;
                while !stop.load(Ordering::Relaxed) || asked == 0 {
                    let query = format!("deploy{} cache", k % 50);
                    let out = Command::new(BIN)
                        .env("ORO_MEM_DB", &url)
                        .env("ORO_MEM_SERVER", "manual")
                        .args(["recall", &query])
                        .output()
                        .expect("run");
                    assert!(
                        out.status.success(),
                        "recall failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    asked += 1;
                    k += 7;
                }
                asked
            })
        })
        .collect();
    let children: Vec<Child> = (0..writers)
        .map(|w| {
            // A script per writer: `n` calls, in an order of its own.
            let order: Vec<usize> = (0..n).map(|i| (i * (2 * w + 1) + w * 13) % n).collect();
            let calls: Vec<String> = order
                .iter()
                .map(|&i| {
                    format!(
                        "\"$BIN\" remember '{}' --type lesson --confidence 0.{} >/dev/null || exit 1",
                        content(i),
                        5 + w % 4
                    )
                })
                .collect();
            Command::new("sh")
                .current_dir(pg.dir.path())
                .env("BIN", BIN)
                .env("ORO_MEM_DB", &pg.url)
                .args(["-c", &calls.join("\n")])
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn a writer")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("writer");
        assert!(
            out.status.success(),
            "a writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, Ordering::Relaxed);
    for a in asking {
        assert!(a.join().expect("recaller") > 0);
    }
    let exported = pg.ok(&["export"]);
    let mut contents: Vec<String> = exported
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            v["content"].as_str().expect("content").to_string()
        })
        .collect();
    contents.sort();
    let mut expected: Vec<String> = (0..n).map(content).collect();
    expected.sort();
    assert_eq!(contents, expected, "each memory stored exactly once");
}

#[test]
fn concurrent_writers_and_readers_lose_nothing_and_store_no_duplicate() {
    let Some(pg) = Schema::new() else {
        return;
    };
    // 40 memories a writer here; `ORO_MEM_PG_RACE_WRITES=500` for the full run.
    let n = std::env::var("ORO_MEM_PG_RACE_WRITES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    writers_race(&pg, 8, n, 4);
}

#[test]
fn a_project_config_names_the_team_store() {
    let Some(pg) = Schema::new() else {
        return;
    };
    let project = pg.dir.path().join("project");
    std::fs::create_dir_all(project.join(".oro")).expect("mkdir");
    std::fs::write(
        project.join(".oro/config.toml"),
        format!("store = {:?}\nmode = \"fts\"\n", pg.url),
    )
    .expect("write config");
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .current_dir(project.join("."))
            .env("XDG_DATA_HOME", pg.dir.path().join("xdg-data"))
            .env_remove("ORO_MEM_DB")
            .env("ORO_MEM_SERVER", "manual")
            .env_remove("ORO_MEM_CONFIG")
            .args(args)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[
        "remember",
        "The team store is named by the project",
        "--type",
        "decision",
    ]);
    let stats: serde_json::Value = serde_json::from_str(&run(&["stats", "--json"])).expect("JSON");
    assert_eq!(stats["total"], 1);
    assert!(stats["store"]
        .as_str()
        .is_some_and(|s| s.starts_with("postgres://")));
    assert!(
        !project.join(".oro/state.db").exists(),
        "no file store was made"
    );
    // And the configuration beside it applies: `config` prints the effective settings.
    assert!(run(&["config"]).contains("mode = \"fts\""));
}

#[test]
fn a_warm_server_answers_for_a_postgres_store() {
    let Some(pg) = Schema::new() else {
        return;
    };
    pg.ok(&[
        "remember",
        "Rotate the team's API keys every quarter",
        "--type",
        "lesson",
    ]);
    let log = pg.dir.path().join("serve.log");
    let mut server = pg
        .cmd(&["serve"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("serve");
    let started = std::time::Instant::now();
    let text = || std::fs::read_to_string(&log).expect("log");
    while !text().contains("serving") {
        assert!(
            started.elapsed().as_secs() < 60,
            "the server did not start: {}",
            text()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(text().contains("serving postgres://"), "{}", text());
    let args = ["recall", "API keys", "--no-touch", "--json"];
    let warm = pg.ok(&args);
    assert_eq!(
        text().matches("oro-mem: recall in").count(),
        1,
        "the server answered"
    );
    let alone = pg
        .cmd(&args)
        .env("ORO_MEM_SERVER", "off")
        .output()
        .expect("run");
    assert_eq!(
        warm,
        String::from_utf8_lossy(&alone.stdout),
        "the same answer either way"
    );
    assert!(warm.contains("Rotate the team"), "{warm}");
    server.kill().expect("stop the server");
    let _ = server.wait();
}
