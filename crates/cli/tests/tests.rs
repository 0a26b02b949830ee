//! End-to-end tests of the `oro-mem` binary on temporary databases.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use oro_mem_engine::testing::{recall_cases, recall_fixture_dir, RecallCase};

const BIN: &str = env!("CARGO_BIN_EXE_oro-mem");

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env {
            dir: tempfile::tempdir().unwrap(),
        };
        let out = env.run(&["init"]);
        assert!(out.status.success(), "{}", stderr(&out));
        env
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join(".oro").join("state.db")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        self.cmd_of(Path::new(BIN), args)
    }

    /// [`Env::cmd`] with another copy of the binary.
    fn cmd_of(&self, bin: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(bin);
        c.current_dir(self.dir.path())
            // No user-level store but the test's own (`init --global`).
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"))
            .env_remove("ORO_MEM_DB")
            // A server only where a test starts one.
            .env("ORO_MEM_SERVER", "manual")
            .env_remove("ORO_MEM_CONFIG")
            .args(args);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        output_with_stdin(&mut self.cmd(args), input)
    }

    fn ok_stdin(&self, args: &[&str], input: &[u8]) -> String {
        let out = self.run_stdin(args, input);
        assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
        stdout(&out)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
        stdout(&out)
    }

    fn count(&self) -> i64 {
        let conn = rusqlite::Connection::open(self.db()).unwrap();
        conn.query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
            .unwrap()
    }

    fn eval_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["eval"];
        all.extend_from_slice(args);
        all.push("--json");
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    fn recall_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["recall"];
        all.extend_from_slice(args);
        all.push("--json");
        serde_json::from_str(&self.ok(&all)).unwrap()
    }
}

/// Runs `cmd` with `input` on its standard input (then closed), capturing its output. A
/// command may stop reading early (input past a limit): the rest is not written.
fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    match child.stdin.take().unwrap().write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Copies the oro-mem binary to `to`, to run from there. By `cp`, not `std::fs::copy`: while
/// this process holds the copy open for writing, a child another test's thread forks at that
/// moment inherits the open file until it execs, and running the copy then fails with
/// ETXTBSY ("Text file busy").
fn copy_binary(to: &Path) {
    let status = Command::new("cp").arg(BIN).arg(to).status().unwrap();
    assert!(status.success(), "cp {BIN} {}", to.display());
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn result_ids(v: &serde_json::Value) -> Vec<i64> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["memory"]["id"].as_i64().unwrap())
        .collect()
}

#[test]
fn memories_from_standard_input_that_are_not_utf8_are_refused() {
    let env = Env::new();
    let out = env.run_stdin(&["remember", "-"], b"caf\xE9 au lait is served at nine");
    assert!(!out.status.success());
    assert_eq!(
        stderr(&out),
        "error: standard input is not UTF-8: byte 0xe9 at offset 3 (convert it first, say with \
         `iconv -f latin1 -t utf-8`); nothing was stored\n"
    );
    assert_eq!(env.count(), 0);
    let out = env.run_stdin(&["extract", "-"], b"[MEMORY] caf\xE9 au lait at nine\n");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("standard input is not UTF-8: byte 0xe9 at offset 12"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.count(), 0);
    // A query with the same stray byte is still a query.
    env.ok_stdin(&["recall", "-"], b"caf\xE9");
    env.ok_stdin(&["remember", "-"], "café au lait".as_bytes());
    assert_eq!(env.count(), 1);
}

#[test]
fn remember_then_recall_with_explain() {
    let env = Env::new();
    assert_eq!(
        env.ok(&[
            "remember",
            "SQLite WAL mode allows one writer at a time",
            "--type",
            "gotcha"
        ]),
        "inserted as id 1\n"
    );
    env.ok(&[
        "remember",
        "Run cargo fmt before committing",
        "--type",
        "pattern",
    ]);
    let out = env.ok(&[
        "recall",
        "how many writers can sqlite have?",
        "--mode",
        "fts",
        "--explain",
    ]);
    assert!(out.starts_with("1. [gotcha] SQLite WAL mode"), "{out}");
    for list in ["bm25", "access"] {
        assert!(out.contains(list), "explain lacks {list}: {out}");
    }
    assert!(
        !out.contains("recency"),
        "weight 0 leaves recency out: {out}"
    );
    // Weighted score fusion: the best BM25 match normalizes to 1.
    assert!(
        out.contains("bm25     rank    1  weight 1    contribution 1.000000"),
        "{out}"
    );
    assert!(out.contains("x confidence 0.80 x decay"), "{out}");
    assert!(!out.contains("cargo fmt"));
    // The recall counted as a return, not a use; reading the memory in full is a use, and
    // it is shown as it is after that read.
    let shown = env.ok(&["memories", "show", "1", "--json"]);
    let m: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        (&m["return_count"], &m["access_count"]),
        (&1.into(), &1.into())
    );
    let shown = env.ok(&["memories", "show", "1", "--json", "--no-touch"]);
    let m: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        (&m["return_count"], &m["access_count"]),
        (&1.into(), &1.into())
    );
    assert!(m["last_accessed"].is_string(), "{m}");
    let text = env.ok(&["memories", "show", "1", "--no-touch"]);
    assert!(
        text.contains("returned:      1 times by recall\nused:          1 times, last "),
        "{text}"
    );
    // MCP's memory_get is a use too.
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_get", "arguments": {"id": 1}},
        })
        .to_string()],
    );
    assert_eq!(mcp_tool_text(&answers, 1)["id"], 1);
    let m: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "1", "--json", "--no-touch"])).unwrap();
    assert_eq!(m["access_count"], 2, "{m}");
}

#[test]
fn prompt_format_and_empty_results() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "ruff --fix must run before pyright",
        "--type",
        "gotcha",
        "--confidence",
        "0.9",
    ]);
    let out = env.ok(&["recall", "pyright errors", "--format", "prompt"]);
    assert_eq!(
        out,
        "## Relevant Memories\n- [gotcha] ruff --fix must run before pyright (confidence: 0.9, age: 0m)\n"
    );
    assert_eq!(env.ok(&["recall", "kubernetes", "--format", "prompt"]), "");
    assert_eq!(env.ok(&["recall", "kubernetes"]), "No relevant memories.\n");
}

#[test]
fn scores_are_normalized_and_raw_values_are_in_json() {
    let env = Env::new();
    env.ok(&["remember", "alpha beta gamma", "--confidence", "0.5"]);
    env.ok(&["remember", "alpha delta epsilon"]);
    let v = env.recall_json(&["alpha", "--no-touch"]);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["score"], 1.0);
    assert!(results[1]["score"].as_f64().unwrap() < 1.0);
    for r in results {
        let f = |k: &str| r[k].as_f64().unwrap();
        assert!((f("raw_score") - f("fused") * f("confidence") * f("decay")).abs() < 1e-12);
    }
    assert_ne!(
        results[0]["raw_score"], 1.0,
        "raw scores are not normalized"
    );
    assert_eq!(v["mode"], "fts");
}

#[test]
fn invalid_memories_are_refused_and_nothing_is_written() {
    let env = Env::new();
    for (args, needle) in [
        (vec!["remember", "   "], "empty"),
        (vec!["remember", "x", "--confidence", "1.5"], "confidence"),
        (vec!["remember", "x", "--confidence", "NaN"], "confidence"),
        (
            vec!["remember", "x", "--type", "insight"],
            "lesson, decision",
        ),
        (vec!["remember", "x", "--metadata", "[1]"], "JSON object"),
    ] {
        let out = env.run(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(env.count(), 0);
}

#[test]
fn duplicates_are_skipped_or_merged() {
    let env = Env::new();
    env.ok(&["remember", "Use connection pooling for Postgres"]);
    assert_eq!(
        env.ok(&["remember", "Always pin dependency versions in CI"]),
        "inserted as id 2\n"
    );
    // What it was taken for, and how to store it anyway.
    assert_eq!(
        env.ok(&["remember", "Always pin dependency versions in CI"]),
        "skipped: duplicate of id 2 \"Always pin dependency versions in CI\" (`--no-dedup` \
         stores it anyway)\n"
    );
    assert_eq!(
        env.ok(&[
            "remember",
            "always pin dependency versions in CI!",
            "--confidence",
            "0.9"
        ]),
        "merged into id 2 \"Always pin dependency versions in CI\" (confidence raised to 0.9)\n"
    );
    assert_eq!(env.count(), 2);
}

#[test]
fn a_negation_is_no_duplicate_and_strict_says_when_a_write_was_one() {
    let env = Env::new();
    env.ok(&["remember", "ruff --fix must run before pyright"]);
    // The rule reversed: a newer version, not a duplicate.
    let out = env.run(&[
        "remember",
        "ruff --fix must not run before pyright",
        "--strict",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let outcome: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(outcome["outcome"], "updated");
    assert_eq!(outcome["supersedes"], serde_json::json!([1]));
    let out = env.run(&[
        "remember",
        "ruff --fix must NOT run before pyright",
        "--strict",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "a duplicate under --strict: {}",
        stderr(&out)
    );
    let outcome: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(outcome["outcome"], "skipped");
    assert_eq!(outcome["duplicate_of"], 2);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    // Without --strict a duplicate is a success, as before.
    let out = env.run(&["remember", "ruff --fix must NOT run before pyright"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("skipped: duplicate of id 2"));
    assert_eq!(env.count(), 2);
}

#[test]
fn a_changed_value_is_no_duplicate_and_a_reworded_statement_still_is() {
    let env = Env::new();
    let outcome = |text: &str| -> serde_json::Value {
        serde_json::from_str(&env.ok(&["remember", text, "--type", "decision", "--json"])).unwrap()
    };
    // The issue's own example: the digits are no index terms, so the words alone matched.
    // The same statement with its value changed supersedes the old one, however short (two
    // words of three the same, the third a command). Neither is lost.
    for (old, new, became) in [
        (
            "The staging API runs on port 8080",
            "The staging API runs on port 9090",
            "updated",
        ),
        ("Deploys use pnpm 8", "Deploys use pnpm 9", "updated"),
        (
            "Format with `cargo +nightly fmt --all`",
            "Format with `cargo fmt --all`",
            "updated",
        ),
    ] {
        let first = outcome(old);
        assert_eq!(first["outcome"], "inserted", "{old}");
        let second = outcome(new);
        assert_eq!(second["outcome"], became, "{new} after {old}");
        if became == "updated" {
            assert_eq!(second["supersedes"], serde_json::json!([first["id"]]));
        }
    }
    // The same value reworded, or a value mentioned in passing dropped: still a duplicate.
    for text in ["the staging API runs on port 9090.", "Deploys use pnpm 9."] {
        assert_eq!(outcome(text)["outcome"], "skipped", "{text}");
    }
    assert_eq!(env.count(), 6);
    // Asked not to, a new value is stored beside the old one.
    let out = env.ok(&[
        "remember",
        "Deploys use pnpm 10",
        "--type",
        "decision",
        "--no-supersede",
        "--json",
    ]);
    assert!(out.contains(r#""outcome":"inserted""#), "{out}");
    assert_eq!(result_ids(&env.recall_json(&["deploys pnpm"])).len(), 2);
}

/// A short statement about a command, in a store where all its other words are common
/// (a project's name, "tests", "runs"), is no duplicate of a statement about something else
/// that holds those words: the command is what it is about. Taken for one, the fact was lost.
#[test]
fn a_statement_about_a_command_is_no_duplicate_of_one_without_it() {
    let env = Env::new();
    for line in [
        "Biome runs automated Prettier compatibility comparison tests for its formatter.",
        "Biome's linter rules live in crates/biome_js_analyze and each has tests.",
        "Snapshot tests for Biome rules run with insta; accept changes with cargo insta review.",
        "Biome's formatter tests compare against Prettier output.",
        "New Biome rules start in the nursery group.",
        "Run the Biome CLI tests after changing a command.",
        "Biome's parser tests live next to the grammar.",
        "Each Biome rule needs documentation with valid and invalid examples.",
        "Biome runs its benchmarks on CI for every pull request.",
        "The Biome LSP tests start a real server.",
    ] {
        assert!(env.ok(&["remember", line]).starts_with("inserted"));
    }
    let out = env.ok(&["remember", "`just test` runs all Biome tests.", "--json"]);
    assert!(out.contains("\"inserted\""), "{out}");
    // Said again with the command, it is one.
    let out = env.ok(&[
        "remember",
        "Run all Biome tests with `just test`.",
        "--json",
    ]);
    assert!(out.contains("\"skipped\""), "{out}");
}

#[test]
fn an_exact_copy_resolves_to_its_exact_twin() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "ruff --fix must run before pyright",
        "--tags",
        "python,lint",
    ]);
    env.ok(&[
        "remember",
        "ruff --fix has to run before pyright runs",
        "--no-dedup",
    ]);
    let out = env.ok(&["remember", "ruff --fix must run before pyright", "--json"]);
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["outcome"], "skipped", "{out}");
    assert_eq!(outcome["duplicate_of"], 1, "{out}");
    // What it was taken for, as MCP's `memory_remember` says it.
    assert_eq!(
        outcome["existing"], "ruff --fix must run before pyright",
        "{out}"
    );
    let out = env.ok(&[
        "remember",
        "ruff --fix has to run before pyright runs",
        "--json",
    ]);
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["duplicate_of"], 2, "{out}");
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "SQLite allows one writer at a time; set busy_timeout",
    ]);
    for args in [
        &["stats"][..],
        &["stats", "--json"],
        &["config"],
        &["memories", "list"],
        &["memories", "show", "1"],
        &["export", "--all"],
        &["recall", "sqlite writer"],
    ] {
        // The reader is gone before the command writes (`oro-mem stats | true`).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = env.cmd(args).stdout(writer).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn an_empty_store_or_config_variable_is_unset() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "SQLite allows one writer at a time; set busy_timeout",
    ]);
    for var in ["ORO_MEM_DB", "ORO_MEM_CONFIG"] {
        let out = env.cmd(&["stats", "--json"]).env(var, "").output().unwrap();
        assert!(out.status.success(), "{var}=: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v["active"], 1, "{var}= reads the project's store");
    }
    // A value, or the option given empty, is still what it says.
    let out = env
        .cmd(&["stats"])
        .env("ORO_MEM_DB", "/nonexistent/x.db")
        .output()
        .unwrap();
    assert!(stderr(&out).contains("/nonexistent"), "{}", stderr(&out));
    let out = env.run(&["--db", "", "stats"]);
    assert!(!out.status.success());
}

#[test]
fn forget_checks_every_id_first_and_acts_on_all_or_none() {
    let env = Env::new();
    for text in ["one memory", "another memory", "a third memory"] {
        env.ok(&["remember", text, "--no-dedup"]);
    }
    for args in [
        &["memories", "forget", "1", "999"][..],
        &["memories", "forget", "--archive", "3", "998", "999"],
    ] {
        let out = env.run(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains("no memory with id 99"),
            "{}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
    }
    let listed = env.ok(&["memories", "list", "--status", "active"]);
    assert_eq!(
        listed.lines().count(),
        3,
        "nothing forgotten or archived: {listed}"
    );
    assert_eq!(env.ok(&["memories", "forget", "2", "2"]), "forgot 2\n");
    assert_eq!(env.count(), 2);
}

#[test]
fn list_and_export_take_several_statuses_or_all() {
    let env = Env::new();
    for text in ["one memory", "another memory", "a third memory"] {
        env.ok(&["remember", text, "--no-dedup"]);
    }
    env.ok(&["memories", "forget", "--archive", "2"]);
    let ids = |out: String| -> Vec<i64> {
        out.lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect()
    };
    let list = |status: &str| {
        ids(env.ok(&[
            "memories", "list", "--json", "--sort", "oldest", "--status", status,
        ]))
    };
    assert_eq!(list("active"), [1, 3]);
    assert_eq!(list("archived"), [2]);
    assert_eq!(list("active,archived"), [1, 2, 3]);
    assert_eq!(list("archived, Active"), [1, 2, 3]);
    assert_eq!(list("all"), [1, 2, 3]);
    assert_eq!(list("merged,superseded"), Vec::<i64>::new());
    assert_eq!(
        ids(env.ok(&["export", "--status", "archived,active"])),
        [1, 3, 2],
        "active memories first"
    );
    let out = env.run(&["memories", "list", "--status", "active,gone"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(r#"unknown status "gone": expected one of active, archived"#),
        "{}",
        stderr(&out)
    );
}

#[test]
fn import_names_every_bad_line_refuses_unknown_fields_and_defaults_the_type() {
    let env = Env::new();
    let lines = [
        r#"{"content":"a good line"}"#,
        r#"{"content":"tags misspelt","tgas":["a"],"colour":1}"#,
        "not json",
        r#"{"content":"no such type","type":"nonsense"}"#,
        r#"{"type":"lesson"}"#,
    ];
    let out = env.run_stdin(&["import", "-"], lines.join("\n").as_bytes());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("4 bad lines, nothing was imported"), "{err}");
    for says in [
        "line 2: unknown fields \"colour\", \"tgas\"",
        "line 3: not JSON",
        "line 4: unknown variant `nonsense`",
        "line 5: missing field `content`",
    ] {
        assert!(err.contains(says), "{says}: {err}");
    }
    assert!(!err.contains("line 1:"), "{err}");
    assert_eq!(env.count(), 0);
    // Without `type`, a lesson, as `remember` stores it; an export imports as it is.
    env.ok_stdin(&["import", "-"], lines[0].as_bytes());
    let listed = env.ok(&["memories", "list"]);
    assert!(
        listed.contains("lesson") && listed.contains("a good line"),
        "{listed}"
    );
    let exported = env.ok(&["export", "--all"]);
    let other = Env::new();
    other.ok_stdin(&["import", "-"], exported.as_bytes());
    assert_eq!(other.count(), 1);
}

#[test]
fn a_memory_past_the_size_limit_is_refused_naming_the_key() {
    let env = Env::new();
    let big = "word ".repeat(14_000); // 70,000 bytes, past the default 65,536
    let out = env.run(&["remember", &big]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("70000 bytes, more than memory.max_bytes = 65536"),
        "{}",
        stderr(&out)
    );
    let lines = format!("{{\"content\":\"fine\"}}\n{{\"content\":\"{big}\"}}\n");
    let out = env.run_stdin(&["import", "-"], lines.as_bytes());
    assert!(
        stderr(&out).contains("line 2: memory content is 70000 bytes"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.count(), 0);
    // The limit is a setting.
    let config = env.dir.path().join(".oro").join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    // Uncommented, as a user sets it.
    text = text.replace("#max_bytes = 65536", "max_bytes = 100000");
    std::fs::write(&config, text).unwrap();
    env.ok(&["remember", &big]);
    assert_eq!(env.count(), 1);
}

#[test]
fn a_hook_call_never_exits_with_the_status_that_blocks_the_prompt() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "SQLite allows one writer at a time; set busy_timeout",
    ]);
    let prompt = r#"{"hook_event_name": "UserPromptSubmit", "prompt": "sqlite writer locked"}"#;
    // The agent's name in any case.
    for name in ["claude", "Claude", "CLAUDE"] {
        let out = env.run_stdin(&["inject", "--hook", name], prompt.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(stdout(&out).contains("busy_timeout"), "{name}");
    }
    let no_store = tempfile::tempdir().unwrap();
    for (args, input, dir) in [
        (&["inject", "--hook", "claude"][..], "{not json", None),
        (
            &["inject", "--hook", "claude"],
            r#"{"hook_event_name": "Stop"}"#,
            None,
        ),
        (&["inject", "--hook", "codex"], prompt, None),
        (
            &["inject", "--hook", "claude", "--mode", "psychic"],
            prompt,
            None,
        ),
        (&["inject", "--hook=claude", "--no-such-flag"], prompt, None),
        (
            &["inject", "--hook", "claude"],
            prompt,
            Some(no_store.path()),
        ),
    ] {
        let mut cmd = env.cmd(args);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        let out = output_with_stdin(&mut cmd, input.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?} {input}: {}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty(), "{args:?}: {}", stdout(&out));
        assert_eq!(
            stderr(&out).trim().lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Outside a hook, a usage error is still status 2, as for any command-line tool.
    assert_eq!(
        env.run(&["inject", "--task", "x", "--no-such-flag"])
            .status
            .code(),
        Some(2)
    );
}

/// A hook's input is read within bounds, with a warm server and without: a transcript that is
/// `/dev/zero` or a FIFO is refused without being read (neither ends, and opening the FIFO
/// would block the server for every other client), a prompt over 16 MiB is "too large", and
/// one with bytes that are not UTF-8 is read.
#[test]
fn a_hook_reads_its_input_within_bounds() {
    let env = Env::new();
    env.ok(&["remember", "The café menu is printed on Mondays"]);
    let fifo = env.dir.path().join("transcript.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let log = env.dir.path().join("serve.log");
    let mut server = start_server(&env, &log);
    for warm in [true, false] {
        let hook = |input: &[u8]| {
            let mut cmd = env.cmd(&["inject", "--hook", "claude", "--no-touch"]);
            if !warm {
                cmd.env("ORO_MEM_SERVER", "off");
            }
            output_with_stdin(&mut cmd, input)
        };
        for transcript in [Path::new("/dev/zero"), &fifo] {
            let input = serde_json::json!({
                "hook_event_name": "SessionStart", "transcript_path": transcript,
            });
            let out = hook(input.to_string().as_bytes());
            assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
            assert!(
                stderr(&out).contains("not a regular file"),
                "{}",
                stderr(&out)
            );
            assert!(stdout(&out).is_empty());
        }
        let mut big = br#"{"hook_event_name":"UserPromptSubmit","prompt":""#.to_vec();
        big.resize(24 << 20, b'a');
        big.extend_from_slice(b"\"}");
        let out = hook(&big);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("too large"), "{}", stderr(&out));
        let mut odd = br#"{"hook_event_name":"UserPromptSubmit","prompt":"caf"#.to_vec();
        odd.extend_from_slice(b"\xE9 menu on Mondays\"}");
        let out = hook(&odd);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(stdout(&out).contains("menu is printed"), "{}", stdout(&out));
    }
    // The server was never blocked: it still answers.
    let out = env.run(&["recall", "café menu", "--no-touch"]);
    assert!(stdout(&out).contains("menu is printed"), "{}", stdout(&out));
    server.kill().unwrap();
    server.wait().unwrap();
    let served = std::fs::read_to_string(&log).unwrap();
    assert!(served.contains("serving"), "{served}");
}

#[test]
fn a_negative_confidence_is_read_then_refused_and_remember_takes_tag() {
    let env = Env::new();
    for (args, says) in [
        (
            &["remember", "x", "--confidence", "-0.5"][..],
            "confidence must be a number between 0 and 1, got -0.5",
        ),
        (
            &["recall", "x", "--min-confidence", "-1"],
            "between 0 and 1, got -1",
        ),
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    env.ok(&["remember", "tagged with the singular flag", "--tag", "a,b"]);
    let listed = env.ok(&["memories", "list", "--tag", "b"]);
    assert!(listed.contains("tagged with the singular flag"), "{listed}");
}

#[test]
fn an_error_says_its_cause_once_and_stats_heads_the_types() {
    let env = Env::new();
    let garbage = env.dir.path().join("garbage.db");
    std::fs::write(
        &garbage,
        "not a database at all, but long enough to have a header",
    )
    .unwrap();
    let out = env.run(&["--db", garbage.to_str().unwrap(), "stats"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.matches("file is not a database").count(), 1, "{err}");
    env.ok(&["remember", "a gotcha", "--type", "gotcha"]);
    let stats = env.ok(&["stats"]);
    assert!(stats.contains("types:      1\n  gotcha"), "{stats}");
}

#[test]
fn the_funnel_says_when_the_minimum_confidence_hid_what_matched() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "The deploy script needs AWS_PROFILE set",
        "--confidence",
        "0.2",
    ]);
    let explained = env.ok(&["recall", "deploy script", "--explain"]);
    assert!(
        explained.contains("0 candidates (1 more below the minimum confidence 0.3)"),
        "{explained}"
    );
    let v = env.recall_json(&["deploy script"]);
    assert_eq!(v["abstained"]["reason"], "below_confidence", "{v}");
    assert_eq!(v["abstained"]["memories"], 1, "{v}");
    // Nothing matches at all: said as before.
    let v = env.recall_json(&["kubernetes helm chart"]);
    assert_eq!(v["abstained"]["reason"], "no_candidates", "{v}");
    // A lower minimum recalls it.
    let shown = env.ok(&["recall", "deploy script", "--min-confidence", "0.1"]);
    assert!(shown.contains("AWS_PROFILE"), "{shown}");
}

/// A query with nothing to search for is an error when blank, and says so when every word of
/// it is too common to search, rather than "No relevant memories." as if the store lacked them.
#[test]
fn a_blank_query_is_refused_and_one_of_common_words_says_so() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "SQLite allows one writer at a time; set busy_timeout",
    ]);
    for query in ["", "  \t"] {
        let out = env.run(&["recall", query]);
        assert!(!out.status.success(), "{query:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("the query is empty"),
            "{}",
            stderr(&out)
        );
    }
    let out = env.run_stdin(&["recall", "-"], b"\n");
    assert!(
        stderr(&out).contains("the query is empty"),
        "{}",
        stderr(&out)
    );
    let v = env.recall_json(&["is it the?"]);
    assert_eq!(v["abstained"]["reason"], "no_terms", "{v}");
    let out = env.run(&["recall", "is it the?"]);
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("no word to search for"),
        "{}",
        stderr(&out)
    );
    // A word the memory holds is searched, however short the question.
    let v = env.recall_json(&["is it the writer?"]);
    assert_eq!(v["results"][0]["memory"]["id"], 1, "{v}");
}

#[test]
fn exporting_then_importing_into_the_same_store_changes_nothing() {
    let env = Env::new();
    for text in ["one memory", "another, archived", "a third"] {
        env.ok(&["remember", text]);
    }
    env.ok(&["memories", "forget", "--archive", "2"]);
    let exported = env.ok(&["export", "--all"]);
    for _ in 0..2 {
        let out = env.ok_stdin(&["import", "-"], exported.as_bytes());
        assert_eq!(out, "imported: 0 inserted, 0 merged, 3 skipped\n");
    }
    assert_eq!(env.count(), 3);
    assert_eq!(env.ok(&["export", "--all"]), exported);
    // Into another store, the same lines are new.
    let other = Env::new();
    let out = other.ok_stdin(&["import", "-"], exported.as_bytes());
    assert_eq!(out, "imported: 3 inserted, 0 merged, 0 skipped\n");
}

#[test]
fn completions_and_the_manual_page_are_generated() {
    let env = Env::new();
    let bash = env.ok(&["completions", "bash"]);
    assert!(
        bash.contains("complete -F _oro__mem") && bash.contains("recall"),
        "{bash}"
    );
    // The script is one the shell reads.
    let out = output_with_stdin(Command::new("bash").arg("-n"), bash.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(env
        .ok(&["completions", "zsh"])
        .starts_with("#compdef oro-mem"));
    assert!(env
        .ok(&["completions", "fish"])
        .contains("complete -c oro-mem"));
    assert!(env.ok(&["completions", "powershell"]).contains("oro-mem"));
    let man = env.ok(&["man"]);
    assert!(
        man.contains(".TH oro-mem 1") && man.contains("remember"),
        "{man}"
    );
    let out = env.run(&["completions", "tcsh"]);
    assert!(!out.status.success());
}

#[test]
fn memories_show_reports_the_use_it_counts() {
    let env = Env::new();
    env.ok(&["remember", "a memory read in full"]);
    let uses = |args: &[&str]| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_str(&env.ok(args)).unwrap();
        v["access_count"].clone()
    };
    assert_eq!(uses(&["memories", "show", "1", "--json"]), 1);
    assert_eq!(uses(&["memories", "show", "1", "--json"]), 2);
    assert_eq!(uses(&["memories", "show", "1", "--json", "--no-touch"]), 2);
}

#[test]
fn hostile_queries_get_sensible_answers() {
    let env = Env::new();
    env.ok(&["remember", "quoted \"text\" AND NOT operators* here"]);
    env.ok(&["remember", "emoji 😀 and 数据库 text"]);
    let big = "lorem ipsum ".repeat(90_000); // ~1 MB
    let mut hostile: Vec<Vec<u8>> = [
        "\"",
        "\"unbalanced",
        "AND OR NOT",
        "NEAR(a b, 3)",
        "((((",
        "*",
        "col:value",
        "^",
        "😀",
        "数据库",
        "'; DROP TABLE memories; --",
        "{a b}: c",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    hostile.push(b"nul\0byte\0operators".to_vec());
    hostile.push(big.into_bytes());
    for q in hostile {
        let out = env.run_stdin(&["recall", "-", "--json"], &q);
        let err = stderr(&out);
        assert!(
            out.status.success(),
            "query {:?} failed: {err}",
            String::from_utf8_lossy(&q[..q.len().min(40)])
        );
        for bad in ["fts5", "syntax error", "SQL", "sqlite"] {
            assert!(!err.to_lowercase().contains(&bad.to_lowercase()), "{err}");
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["results"].is_array());
    }
    let v: serde_json::Value = serde_json::from_slice(
        &env.run_stdin(&["recall", "-", "--json"], "数据库".as_bytes())
            .stdout,
    )
    .unwrap();
    assert_eq!(result_ids(&v), [2]);
    assert_eq!(env.count(), 2);
}

#[test]
fn filters_apply_to_recall_and_list() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "cache keys need a version",
        "--type",
        "lesson",
        "--tags",
        "cache,rust",
        "--metadata",
        r#"{"priority": 3}"#,
    ]);
    env.ok(&[
        "remember",
        "cache eviction is LRU",
        "--type",
        "decision",
        "--namespace",
        "svc",
    ]);
    let ids = |args: &[&str]| {
        let mut a = vec!["cache", "--no-touch"];
        a.extend_from_slice(args);
        result_ids(&env.recall_json(&a))
    };
    assert_eq!(ids(&["--type", "decision"]), [2]);
    assert_eq!(ids(&["--namespace", "svc"]), [2]);
    assert_eq!(ids(&["--tags", "rust"]), [1]);
    assert_eq!(ids(&["--where", r#"{"priority": {"$gt": 2}}"#]), [1]);
    assert_eq!(ids(&["--since", "1d"]).len(), 2);
    assert!(ids(&["--until", "1d"]).is_empty());
    let out = env.run(&[
        "recall",
        "cache",
        "--where",
        r#"{"priority": {"$regex": 1}}"#,
    ]);
    assert!(stderr(&out).contains("$regex"), "{}", stderr(&out));
    let listed = env.ok(&["memories", "list", "--type", "lesson"]);
    assert_eq!(listed.lines().count(), 1);
}

#[test]
fn a_session_is_listed_in_time_order_and_lends_its_turns_context() {
    let env = Env::new();
    // 1: no session; 2-4: one session's turns; 5: a work item's.
    env.ok(&["remember", "A single writer lock blocked the deploy"]);
    let turns = [
        "Which database did we pick for the job queue?",
        "Postgres, because SQLite allows a single writer",
        "And the workers poll it every second",
    ];
    for turn in turns {
        env.ok(&[
            "remember",
            turn,
            "--session",
            "standup-3",
            "--worker-id",
            "w1",
        ]);
    }
    env.ok(&[
        "remember",
        "The job queue dashboard is slow",
        "--bead-id",
        "b-9",
    ]);
    let listed: Vec<serde_json::Value> = env
        .ok(&["memories", "list", "--session", "standup-3", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let contents: Vec<&str> = listed
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        contents, turns,
        "a session lists as its episode, oldest first"
    );
    assert_eq!(listed[0]["session"], "standup-3");
    let show = env.ok(&["memories", "show", "2"]);
    assert!(show.contains("session:       standup-3"), "{show}");
    // recall "*" replays the session as it was written, not ranked.
    let replay = env.recall_json(&["*", "--session", "standup-3"]);
    let replayed: Vec<&str> = replay["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(replayed, turns, "{replay}");
    let prompt = env.ok(&[
        "recall",
        "*",
        "--session",
        "standup-3",
        "--format",
        "prompt",
    ]);
    assert_eq!(prompt.lines().count(), 4, "{prompt}");
    let out = env.run(&["recall", "*"]);
    assert!(
        stderr(&out).contains("add --session ID"),
        "{}",
        stderr(&out)
    );
    let ids = |args: &[&str]| {
        let mut a = vec!["job queue", "--no-touch"];
        a.extend_from_slice(args);
        result_ids(&env.recall_json(&a))
    };
    assert_eq!(ids(&["--session", "standup-3"]), [2]);
    assert_eq!(ids(&["--bead-id", "b-9"]), [5]);
    assert_eq!(ids(&["--worker-id", "w1"]), [2]);

    // The answer (3) and the memory of no session (1) match the query's last words alike;
    // the answer comes first on the strength of the question next to it (2), which
    // --explain shows. Without session context they tie, and the older (1) comes first. (No
    // relevance bar: the order is the point, and 1 is estimated below the default one.)
    let query = [
        "which database for the queue: a single writer?",
        "--no-touch",
        "--explain",
        "--min-relevance",
        "0",
    ];
    let order = |v: &serde_json::Value| -> Vec<i64> {
        result_ids(v)
            .into_iter()
            .filter(|&id| id == 1 || id == 3)
            .collect()
    };
    let lent = |v: &serde_json::Value, id: i64| -> f64 {
        let results = v["results"].as_array().unwrap();
        let r = results.iter().find(|r| r["memory"]["id"] == id).unwrap();
        let lists = r["lists"].as_array().unwrap();
        lists
            .iter()
            .find(|l| l["name"] == "session")
            .map_or(0.0, |l| l["contribution"].as_f64().unwrap())
    };
    let v = env.recall_json(&query);
    assert_eq!(order(&v), [3, 1], "{v}");
    assert!(lent(&v, 3) > 0.0 && lent(&v, 1) == 0.0, "{v}");
    let config = env.dir.path().join(".oro").join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let off = text.replace("#session_context = 0.2", "session_context = 0.0");
    assert_ne!(off, text, "the template shows session_context");
    std::fs::write(&config, off).unwrap();
    let v = env.recall_json(&query);
    assert_eq!(order(&v), [1, 3], "{v}");
    assert_eq!(lent(&v, 3), 0.0, "{v}");
}

/// Runs `cmd` (an `oro-mem mcp` command) over `requests`, after the MCP handshake, until its
/// input ends: the process's output, and every line it wrote, parsed.
fn mcp_session(mut cmd: Command, requests: &[String]) -> (Output, Vec<serde_json::Value>) {
    const HANDSHAKE: [&str; 2] = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ];
    let input: Vec<&str> = HANDSHAKE
        .into_iter()
        .chain(requests.iter().map(String::as_str))
        .collect();
    let out = output_with_stdin(&mut cmd, input.join("\n").as_bytes());
    let answers = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, answers)
}

/// A `tools/call` of `memory_search` with `arguments`.
fn mcp_search(id: i64, arguments: serde_json::Value) -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "memory_search", "arguments": arguments},
    })
    .to_string()
}

/// The JSON text of the answer to request `id`, a tool result.
fn mcp_tool_text(answers: &[serde_json::Value], id: i64) -> serde_json::Value {
    let answer = answers
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"));
    serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap()
}

/// Every request sent to `oro-mem mcp` gets exactly one answer carrying its id, whatever its
/// bytes: a lone surrogate (a JavaScript client cutting a string mid-emoji), broken JSON, deep
/// nesting, a line over the size limit, a well-formed message of the wrong shape, a line
/// ending in a backslash.
#[test]
fn the_mcp_server_answers_every_request_it_cannot_decode() {
    let env = Env::new();
    let search =
        |id: i64, query: &str| mcp_search(id, serde_json::json!({"query": query, "mode": "fts"}));
    let too_long = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"memory_remember","arguments":{{"content":"{}"}}}}}}"#,
        "x".repeat(17 << 20)
    );
    let lines = [
        // A lone surrogate as a JavaScript client writes it: the escape, not a character.
        search(1, "cut mid-emoji \u{FFFD}").replace('\u{FFFD}', r"\ud83d"),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"#.to_string(),
        format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}"#.to_string(),
        too_long,
        // A line ending in a backslash: nothing after it to escape.
        r"x\".to_string(),
        search(6, "still serving"),
    ];
    let (out, answers) = mcp_session(env.cmd(&["mcp"]), &lines);
    assert!(out.status.success(), "{}", stderr(&out));
    let answer = |id: serde_json::Value| {
        let found: Vec<_> = answers.iter().filter(|a| a["id"] == id).collect();
        assert_eq!(found.len(), 1, "answers to id {id}: {answers:?}");
        found[0].clone()
    };
    for id in [1, 6] {
        let text = answer(id.into())["result"]["content"][0]["text"].clone();
        assert!(text.as_str().unwrap().contains("\"results\""), "{text}");
    }
    assert_eq!(answer(2.into())["error"]["code"], -32700);
    assert_eq!(answer(4.into())["error"]["code"], -32600);
    let long = answer(5.into());
    assert_eq!(long["error"]["code"], -32700);
    assert!(long["error"]["message"]
        .as_str()
        .unwrap()
        .contains("longer than"));
    // The nested arrays and the backslash have no id to read: their answers have a null one.
    let unread: Vec<_> = answers.iter().filter(|a| a["id"].is_null()).collect();
    assert_eq!(unread.len(), 2, "{answers:?}");
    assert!(unread.iter().all(|a| a["error"]["code"] == -32700));
    assert_eq!(env.count(), 0, "the oversized memory must not be stored");
}

/// A store is its owner's alone: `.oro/` is made 0700 and the database 0600 whatever the umask
/// (and SQLite's side files take the database's mode), exports and the global store too; when
/// the tests run as root, `nobody` is shown to read nothing.
#[test]
fn a_store_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let env = Env::new();
    env.ok(&["remember", "the signing key lives in vault/prod"]);
    let oro = env.dir.path().join(".oro");
    assert_eq!(mode(&oro), 0o700);
    for entry in std::fs::read_dir(&oro).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("state.db") {
            assert_eq!(mode(&path), 0o600, "{name}");
        }
    }
    env.ok(&["export", "--all", "--output", "all.jsonl"]);
    assert_eq!(mode(&env.dir.path().join("all.jsonl")), 0o600);
    let home = env.dir.path().join("home");
    let out = env
        .cmd(&["init", "--global"])
        .env_remove("XDG_DATA_HOME")
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let global = home.join(".local/share/oro-mem");
    assert_eq!(mode(&global), 0o700);
    assert_eq!(mode(&global.join("state.db")), 0o600);

    // Another user, where permissions stop one (root is not stopped by them).
    std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let privileged = is_root();
    if privileged {
        let bin = env.dir.path().join("oro-mem");
        copy_binary(&bin);
        let db = env.db();
        let out = env
            .cmd_of(&bin, &["--db", db.to_str().unwrap(), "export", "--all"])
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        assert!(!out.status.success(), "another user read the store");
        assert!(!stdout(&out).contains("vault"), "{}", stdout(&out));
    }
}

/// Whether this process runs as root (uid 0), read from /proc: no crate for one number.
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

/// A store where the process may not write (a read-only directory and file): the commands
/// that read work, recall says once that it cannot count the access, writes fail saying why,
/// and the file is left exactly as it was. Run as `nobody` when the tests run as root, whom
/// permissions do not stop.
#[test]
fn a_store_in_a_read_only_location_is_read_and_not_written() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;

    let env = Env::new();
    env.ok(&["remember", "pyright needs the venv activated"]);
    env.ok(&["remember", "ruff --fix runs before pyright"]);
    let oro = env.dir.path().join(".oro");
    let before = std::fs::read(env.db()).unwrap();
    // The binary is run from the test's directory, which every user may enter.
    let bin = env.dir.path().join("oro-mem");
    copy_binary(&bin);
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    mode(env.dir.path(), 0o755);
    for file in std::fs::read_dir(&oro).unwrap() {
        mode(&file.unwrap().path(), 0o444);
    }
    mode(&oro, 0o555);
    let privileged = std::fs::write(oro.join("probe"), b"").is_ok();
    let _ = std::fs::remove_file(oro.join("probe"));
    let run = |args: &[&str]| {
        let mut c = env.cmd_of(&bin, args);
        if privileged {
            c.uid(65534).gid(65534);
        }
        c.output().unwrap()
    };

    let out = run(&["recall", "pyright"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("pyright needs the venv"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        stderr(&out).matches("read-only").count(),
        1,
        "one line says the access is not counted: {}",
        stderr(&out)
    );
    let out = run(&["recall", "pyright", "--no-touch"]);
    assert!(
        out.status.success() && stderr(&out).is_empty(),
        "{}",
        stderr(&out)
    );
    for args in [
        &["export"][..],
        &["stats"],
        &["memories", "list"],
        &["memories", "show", "1"],
        &["inject", "--task", "set up pyright"],
    ] {
        let out = run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(stdout(&run(&["export"])).lines().count(), 2);
    for args in [&["remember", "a new lesson"][..], &["memories", "pin", "1"]] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?} wrote to a read-only store");
        assert!(
            stderr(&out).contains("read-only"),
            "{args:?}: {}",
            stderr(&out)
        );
    }

    mode(&oro, 0o755);
    assert_eq!(
        std::fs::read(env.db()).unwrap(),
        before,
        "the store is unchanged"
    );
    let left: Vec<_> = std::fs::read_dir(&oro)
        .unwrap()
        .map(|f| f.unwrap().file_name().into_string().unwrap())
        .filter(|name| !["state.db", "config.toml", ".gitignore"].contains(&name.as_str()))
        .collect();
    assert!(
        left.is_empty(),
        "nothing created next to the store: {left:?}"
    );
}

#[test]
fn oversized_filters_and_foreign_databases_get_short_clear_errors_without_sql() {
    let env = Env::new();
    env.ok(&["remember", "pyright reads pyproject.toml"]);
    let tags: Vec<String> = (0..1_000).map(|i| format!("t{i}")).collect();
    let tags = tags.join(",");
    let conditions: serde_json::Map<String, serde_json::Value> =
        (0..1_000).map(|i| (format!("k{i}"), 1.into())).collect();
    let conditions = serde_json::Value::Object(conditions).to_string();
    for args in [
        &["recall", "pyright", "--all-tags", &tags][..],
        &["recall", "pyright", "--tags", &tags],
        &["recall", "pyright", "--where", &conditions],
        &["memories", "list", "--where", &conditions],
    ] {
        let out = env.run(args);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains("at most 100"), "{err}");
        assert!(err.len() < 200, "{err}");
    }

    // Over MCP, 40,000 tags: a short tool error.
    let tags: Vec<String> = (0..40_000).map(|i| format!("t{i}")).collect();
    let call = mcp_search(1, serde_json::json!({"query": "pyright", "tags": tags}));
    let (_, answers) = mcp_session(env.cmd(&["mcp"]), &[call]);
    let answer = answers
        .iter()
        .find(|a| a["id"] == 1)
        .expect("an answer to the search");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("at most 100") && text.len() < 200, "{text}");

    // Another application's table named memories: refused, untouched, no SQL shown.
    let foreign = env.dir.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE memories (note TEXT); INSERT INTO memories VALUES ('x');")
        .unwrap();
    let before = std::fs::read(&foreign).unwrap();
    for args in [&["stats"][..], &["remember", "a lesson"]] {
        let mut all = vec!["--db", foreign.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = env.run(&all);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains("not an oro-mem database"), "{err}");
        assert!(!err.contains("CREATE"), "{err}");
    }
    assert_eq!(std::fs::read(&foreign).unwrap(), before);
}

#[test]
fn invisible_content_unreadable_metadata_and_endless_config_are_clear_errors() {
    let env = Env::new();
    for text in ["\u{200B}", "\u{FEFF}", " \u{200D}\u{2060}\n"] {
        let out = env.run(&["remember", text]);
        assert!(!out.status.success(), "{text:?} was stored");
        assert!(stderr(&out).contains("invisible"), "{}", stderr(&out));
    }
    let out = env.run_stdin(
        &["import", "-"],
        "{\"content\":\"fine\",\"type\":\"lesson\"}\n{\"content\":\"\u{200B}\",\"type\":\"lesson\"}\n"
            .as_bytes(),
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
    assert_eq!(env.count(), 0);

    let deep = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    for (metadata, cause) in [
        (&deep[..], "recursion limit"),
        ("{\"n\": 1e400}", "out of range"),
    ] {
        let out = env.run(&["remember", "a lesson", "--metadata", metadata]);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(cause), "{}", stderr(&out));
    }

    let out = env
        .cmd(&["stats"])
        .env("ORO_MEM_CONFIG", "/dev/zero")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("larger than"), "{}", stderr(&out));
}

/// MCP search takes `tags: [""]` and `budget: 0` as the command line takes `--tags ""` and
/// `--budget 0`: blank tags restrict nothing, a budget of 0 is an error.
#[test]
fn mcp_search_reads_blank_tags_and_a_zero_budget_as_the_command_line_does() {
    let env = Env::new();
    env.ok(&["remember", "pyright reads pyproject.toml"]);
    assert_eq!(
        result_ids(&env.recall_json(&["pyright", "--tags", ""])),
        [1]
    );
    let cli_budget = env.run(&["recall", "pyright", "--budget", "0"]);
    assert!(!cli_budget.status.success());
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[
            mcp_search(1, serde_json::json!({"query": "pyright", "tags": [""]})),
            mcp_search(2, serde_json::json!({"query": "pyright", "budget": 0})),
        ],
    );
    let result = |id: i64| answers.iter().find(|a| a["id"] == id).unwrap()["result"].clone();
    let found = mcp_tool_text(&answers, 1);
    assert_eq!(found["results"][0]["id"], 1, "{found}");
    assert_eq!(result(2)["isError"], true);
    assert_eq!(
        result(2)["content"][0]["text"].as_str().unwrap(),
        stderr(&cli_budget).trim().trim_start_matches("error: ")
    );
}

/// A damaged model: recall answers FTS-only, and the line that says so gives the cause and
/// the fix, on stderr and in MCP search's warnings.
#[test]
fn a_damaged_model_is_reported_with_its_cause_and_fix() {
    let env = Env::new();
    env.ok(&["remember", "pyright reads pyproject.toml"]);
    let real = oro_mem_rank_vector::ModelFiles::locate().unwrap();
    let models = env.dir.path().join("models");
    let damaged = models.join("all-minilm-l6-v2");
    std::fs::create_dir_all(&damaged).unwrap();
    std::fs::create_dir_all(models.join("onnxruntime")).unwrap();
    std::os::unix::fs::symlink(
        &real.ort_dylib,
        models
            .join("onnxruntime")
            .join(real.ort_dylib.file_name().unwrap()),
    )
    .unwrap();
    for entry in std::fs::read_dir(&real.model_dir).unwrap() {
        let path = entry.unwrap().path();
        let to = damaged.join(path.file_name().unwrap());
        if path.extension().is_some_and(|e| e == "onnx") {
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&to, &bytes[..bytes.len() / 10]).unwrap(); // cut short
        } else {
            std::os::unix::fs::symlink(&path, &to).unwrap();
        }
    }
    let out = env
        .cmd(&["recall", "pyright", "--mode", "hybrid"])
        .env("ORO_MEM_MODEL_DIR", &models)
        .env_remove("ORO_MEM_ORT_DYLIB")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("pyright reads"), "FTS still answers");
    let err = stderr(&out);
    assert!(err.contains("answering FTS-only"), "{err}");
    assert!(err.contains("protobuf"), "the cause: {err}");
    assert!(
        err.contains("scripts/fetch-model --force"),
        "the fix: {err}"
    );

    let mut mcp = env.cmd(&["mcp"]);
    mcp.env("ORO_MEM_MODEL_DIR", &models)
        .env_remove("ORO_MEM_ORT_DYLIB");
    let (_, answers) = mcp_session(
        mcp,
        &[mcp_search(
            1,
            serde_json::json!({"query": "pyright", "mode": "hybrid"}),
        )],
    );
    let text = mcp_tool_text(&answers, 1);
    let warnings = text["warnings"].to_string();
    assert!(warnings.contains("fetch-model --force"), "{text}");
    assert_eq!(text["results"][0]["id"], 1);
}

#[test]
fn forget_pin_and_archive() {
    let env = Env::new();
    env.ok(&["remember", "first memory about pinning"]);
    env.ok(&["remember", "second memory about archiving"]);
    env.ok(&["memories", "pin", "1"]);
    let v = env.recall_json(&["pinning", "--explain"]);
    assert!(v["results"][0]["memory"]["pinned"].as_bool().unwrap());
    env.ok(&["memories", "forget", "2", "--archive"]);
    assert!(result_ids(&env.recall_json(&["archiving"])).is_empty());
    env.ok(&["memories", "forget", "1"]);
    assert_eq!(env.count(), 1);
    let out = env.run(&["memories", "forget", "1"]);
    assert!(stderr(&out).contains("no memory with id 1"));
}

#[test]
fn database_is_found_by_walking_up() {
    let env = Env::new();
    env.ok(&["remember", "found from a subdirectory"]);
    let sub = env.dir.path().join("a").join("b");
    std::fs::create_dir_all(&sub).unwrap();
    let out = Command::new(BIN)
        .current_dir(&sub)
        .env_remove("ORO_MEM_DB")
        // A server only where a test starts one.
        .env("ORO_MEM_SERVER", "manual")
        .args(["recall", "subdirectory"])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("found from a subdirectory"),
        "{}",
        stderr(&out)
    );

    let lonely = tempfile::tempdir().unwrap();
    let data = lonely.path().join("data");
    let in_lonely = |args: &[&str]| {
        Command::new(BIN)
            .current_dir(lonely.path())
            .env_remove("ORO_MEM_DB")
            // A server only where a test starts one.
            .env("ORO_MEM_SERVER", "manual")
            .env_remove("ORO_MEM_CONFIG")
            .env("XDG_DATA_HOME", &data)
            .args(args)
            .output()
            .unwrap()
    };
    let out = in_lonely(&["recall", "x"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("oro-mem init"), "{}", stderr(&out));

    // A user-level store answers where no project store is found.
    let out = in_lonely(&["init", "--global"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let global = data.join("oro-mem").join("state.db");
    assert!(global.is_file() && data.join("oro-mem/config.toml").is_file());
    assert!(in_lonely(&["remember", "kept for every project"])
        .status
        .success());
    let out = in_lonely(&["recall", "every project"]);
    assert!(
        stdout(&out).contains("kept for every project"),
        "{}",
        stderr(&out)
    );
    let stats = stdout(&in_lonely(&["stats"]));
    assert!(
        stats.starts_with(&format!("store:      {}\n", global.display())),
        "{stats}"
    );
    // ... and a project store, where there is one, comes first.
    let out = Command::new(BIN)
        .current_dir(&sub)
        .env_remove("ORO_MEM_DB")
        // A server only where a test starts one.
        .env("ORO_MEM_SERVER", "manual")
        .env("XDG_DATA_HOME", &data)
        .args(["recall", "every project"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "No relevant memories.\n", "{}", stderr(&out));
}

#[test]
fn init_keeps_the_database_out_of_git_and_mcp_and_stats_name_the_store() {
    let env = Env::new();
    let ignore = std::fs::read_to_string(env.dir.path().join(".oro").join(".gitignore")).unwrap();
    let ignored: Vec<&str> = ignore.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        ignored,
        [
            "state.db",
            "state.db-*",
            "*.sock",
            "*.serve.lock",
            "*.serve.log",
            "*.watch.json",
            "*.watch.json.tmp"
        ]
    );
    // Kept when init runs again.
    std::fs::write(env.dir.path().join(".oro").join(".gitignore"), "mine\n").unwrap();
    env.ok(&["init"]);
    assert_eq!(
        std::fs::read_to_string(env.dir.path().join(".oro").join(".gitignore")).unwrap(),
        "mine\n"
    );
    let v: serde_json::Value = serde_json::from_str(&env.ok(&["stats", "--json"])).unwrap();
    assert_eq!(v["store"], env.db().display().to_string());
    let (out, _) = mcp_session(env.cmd(&["mcp"]), &[]);
    assert!(
        stderr(&out).contains(&format!("MCP server on stdio for {}", env.db().display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hybrid_mode_falls_back_to_fts_and_says_so() {
    let env = Env::new();
    env.ok(&["remember", "hybrid fallback memory"]);
    let missing = env.dir.path().join("no-model-here");
    let out = env
        .cmd(&["recall", "fallback", "--mode", "hybrid", "--json"])
        .env("ORO_MEM_MODEL_DIR", &missing)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("FTS-only"));
    assert!(stderr(&out).contains("fetch-model"), "says how to fix it");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["requested_mode"].as_str(), v["mode"].as_str()),
        (Some("hybrid"), Some("fts"))
    );
    assert_eq!(result_ids(&v), [1]);
}

/// A store made when `init` wrote every default uncommented keeps them; `config` names those
/// since changed, `config --upgrade` comments them out, and recall then follows today's
/// defaults, while a key the user set stays.
#[test]
fn config_upgrade_lets_a_store_made_earlier_follow_todays_defaults() {
    let env = Env::new();
    let config = env.dir.path().join(".oro").join("config.toml");
    let fresh = env.ok(&["config"]);
    let template = std::fs::read_to_string(&config).unwrap();
    // The template with its settings uncommented, as earlier versions wrote it, with the
    // defaults of then: `recall.rrf_k` 60 and no relevance model for FTS mode; and `depth`,
    // the user's own.
    let mut earlier: String = template
        .lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '[') => rest,
            _ => l,
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let model = earlier.find("[recall.calibration.fts]").unwrap();
    let end = model + earlier[model..].find("\n\n").unwrap();
    earlier.replace_range(model..end, "[recall.calibration.fts]");
    let earlier = earlier
        .replace("rrf_k = 20.0", "rrf_k = 60.0")
        .replace("\ndepth = 50 ", "\ndepth = 80 ");
    std::fs::write(&config, &earlier).unwrap();
    env.ok(&["remember", "Always run migrations inside a transaction"]);
    env.ok(&["remember", "Gradle caches live in ~/.gradle"]);
    let task = ["write a schema migration for the users table"];
    // No model: nothing is estimated, so nothing is withheld either.
    assert!(env.recall_json(&task)["results"][0]["relevance"].is_null());

    let out = env.run(&["config"]);
    assert!(out.status.success());
    let note = stderr(&out);
    assert!(
        note.contains("sets recall.calibration.fts, recall.rrf_k to what an earlier oro-mem")
            && note.contains("oro-mem config --upgrade"),
        "{note}"
    );
    let said = env.ok(&["config", "--upgrade"]);
    assert!(
        said.contains("commented out recall.calibration.fts, recall.rrf_k"),
        "{said}"
    );
    let out = env.run(&["config"]);
    assert_eq!(stderr(&out), "");
    assert_eq!(
        stdout(&out),
        fresh.replace("\ndepth = 50\n", "\ndepth = 80\n")
    );
    assert!(env.recall_json(&task)["results"][0]["relevance"].is_f64());
    assert!(env
        .ok(&["config", "--upgrade"])
        .contains("no setting holds an earlier default"));
}

#[test]
fn config_file_is_read_and_errors_name_the_key() {
    let env = Env::new();
    let config = env.dir.path().join(".oro").join("config.toml");
    std::fs::write(&config, "[recall]\nmax_results = 1\n").unwrap();
    env.ok(&["remember", "apple pie recipe"]);
    env.ok(&["remember", "apple crumble notes"]);
    assert_eq!(result_ids(&env.recall_json(&["apple"])).len(), 1);
    assert!(env.ok(&["config"]).contains("max_results = 1"));
    std::fs::write(&config, "[recall]\nmax_resluts = 1\n").unwrap();
    let out = env.run(&["recall", "apple"]);
    assert!(stderr(&out).contains("max_resluts"), "{}", stderr(&out));
    std::fs::write(&config, "[recall.weights]\nbm25 = -1\n").unwrap();
    let out = env.run(&["recall", "apple"]);
    assert!(
        stderr(&out).contains("recall.weights.bm25"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn recall_estimates_relevance_and_abstains_with_a_reason() {
    let env = Env::new();
    let config = env.dir.path().join(".oro").join("config.toml");
    std::fs::write(
        &config,
        "[recall]\nmin_relevance = 0.5\n[recall.calibration.fts]\nintercept = -4.0\n\
         coverage = 6.0\n",
    )
    .unwrap();
    env.ok(&["remember", "the login test is flaky on CI"]);
    env.ok(&["remember", "login page colours are blue"]);

    let v = env.recall_json(&["flaky login test", "--no-touch"]);
    assert_eq!(result_ids(&v), [1], "{v}");
    let p = v["results"][0]["relevance"].as_f64().unwrap();
    assert!(p > 0.5 && p <= 1.0, "{v}");
    assert_eq!(v["results"][0]["features"]["coverage"], 1.0);
    assert!(v["abstained"].is_null(), "{v}");

    // Matches a word, but covers two of five: below the bar, and it says so.
    let weak = "login colours for the payments dashboard migration";
    let v = env.recall_json(&[weak, "--no-touch"]);
    assert_eq!(result_ids(&v), Vec::<i64>::new());
    assert_eq!(v["abstained"]["reason"], "below_relevance", "{v}");
    assert_eq!(v["abstained"]["min_relevance"], 0.5, "{v}");
    let out = env.run(&["recall", weak, "--explain", "--no-touch"]);
    assert_eq!(stdout(&out).lines().next(), Some("No relevant memories."));
    assert!(
        stdout(&out).contains("2 below the relevance bar"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("nothing recalled: no memory is likely relevant"),
        "{}",
        stderr(&out)
    );
    // Without --explain, the text says nothing but "No relevant memories.", so what the bar
    // withheld is said on standard error, with how to see it; a prompt stays empty and quiet
    // (a hook injects it).
    let out = env.run(&["recall", weak, "--no-touch"]);
    assert_eq!(stdout(&out), "No relevant memories.\n");
    let said = stderr(&out);
    assert!(
        said.starts_with("oro-mem: nothing recalled: no memory is likely relevant")
            && said.ends_with("(--min-relevance 0 shows the best matches)\n"),
        "{said}"
    );
    let out = env.run(&["recall", weak, "--no-touch", "--format", "prompt"]);
    assert_eq!((stdout(&out), stderr(&out)), (String::new(), String::new()));
    // Nothing matches at all: nothing to show, and nothing more to say.
    let v = env.recall_json(&["kubernetes", "--no-touch"]);
    assert_eq!(v["abstained"]["reason"], "no_candidates", "{v}");
    let out = env.run(&["recall", "kubernetes", "--no-touch"]);
    assert_eq!(stderr(&out), "");
    // The bar of one call: --min-relevance.
    let v = env.recall_json(&[weak, "--no-touch", "--min-relevance", "0"]);
    assert_eq!(result_ids(&v).len(), 2, "{v}");
    for bad in ["1.5", "-0.1", "high"] {
        let out = env.run(&["recall", weak, &format!("--min-relevance={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("--min-relevance"), "{}", stderr(&out));
    }
    // And of one MCP search.
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[
            mcp_search(1, serde_json::json!({"query": weak})),
            mcp_search(2, serde_json::json!({"query": weak, "min_relevance": 0})),
            mcp_search(3, serde_json::json!({"query": weak, "min_relevance": 1.5})),
        ],
    );
    let found = |id| {
        mcp_tool_text(&answers, id)["results"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!((found(1), found(2)), (0, 2));
    let bad = answers.iter().find(|a| a["id"] == 3).unwrap()["result"].clone();
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains(r#"min_relevance must be a number between 0 and 1, got "1.5""#),
        "{bad}"
    );

    // A misspelt feature is an error that names it and what exists.
    std::fs::write(&config, "[recall.calibration.fts]\nlexcial = 1.0\n").unwrap();
    let err = stderr(&env.run(&["recall", "login"]));
    assert!(
        err.contains("recall.calibration.fts.lexcial") && err.contains("lexical_share"),
        "{err}"
    );
}

#[test]
fn with_a_relevance_bar_the_shipped_model_answers_an_unrelated_task_with_nothing() {
    let env = Env::new();
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "[recall]\nmin_relevance = 0.15\n",
    )
    .unwrap();
    for m in [
        "Sourdough needs a ripe starter and a long cold proof",
        "Rye flour absorbs more water than wheat flour",
        "Bake bread at 250 degrees with steam for the first 20 minutes",
    ] {
        env.ok(&["remember", m]);
    }
    // One incidental word in common ("bread").
    let task = "fix the borrow checker error in the bread parser module";
    let v = env.recall_json(&[task, "--no-touch"]);
    assert_eq!(result_ids(&v), Vec::<i64>::new(), "{v}");
    assert_eq!(v["abstained"]["reason"], "below_relevance", "{v}");
    assert_eq!(env.ok(&["inject", "--task", task, "--no-touch"]), "");
    // What the store does know is still recalled, with its estimate.
    let v = env.recall_json(&["how long should sourdough proof", "--no-touch"]);
    assert_eq!(result_ids(&v), [1], "{v}");
    assert!(
        v["results"][0]["relevance"].as_f64().unwrap() >= 0.15,
        "{v}"
    );
}

#[test]
fn export_import_round_trip_and_bad_lines() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "exported lesson one",
        "--tags",
        "a,b",
        "--confidence",
        "0.7",
        "--session",
        "run-7",
    ]);
    env.ok(&["remember", "exported decision two", "--type", "decision"]);
    env.ok(&["memories", "forget", "2", "--archive"]);
    let file = env.dir.path().join("out.jsonl");
    env.ok(&["export", "--all", "-o", file.to_str().unwrap()]);
    let other = Env::new();
    assert_eq!(
        other.ok(&["import", file.to_str().unwrap()]),
        "imported: 2 inserted, 0 merged, 0 skipped\n"
    );
    let a: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let again = other.dir.path().join("again.jsonl");
    other.ok(&["export", "--all", "-o", again.to_str().unwrap()]);
    let b: Vec<serde_json::Value> = std::fs::read_to_string(&again)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for key in [
        "content",
        "type",
        "tags",
        "confidence",
        "status",
        "created_at",
        "source",
        "session",
    ] {
        let ka: Vec<_> = a.iter().map(|m| &m[key]).collect();
        let kb: Vec<_> = b.iter().map(|m| &m[key]).collect();
        assert_eq!(ka, kb, "{key}");
    }

    let bad = env.dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"content\": \"good\", \"type\": \"lesson\"}\n{\"content\": \"\", \"type\": \"lesson\"}\n").unwrap();
    let third = Env::new();
    let out = third.run(&["import", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
    assert_eq!(third.count(), 0, "a bad line imports nothing");
}

#[test]
fn four_processes_write_250_memories_each() {
    let env = Env::new();
    let mut children = Vec::new();
    for w in 0..4 {
        let file = env.dir.path().join(format!("w{w}.jsonl"));
        let lines: String = (0..250)
            .map(|i| {
                format!(
                    "{{\"content\": \"worker{w} memory{i} token{w}x{i}\", \"type\": \"lesson\"}}\n"
                )
            })
            .collect();
        std::fs::write(&file, lines).unwrap();
        children.push(
            env.cmd(&[
                "import",
                file.to_str().unwrap(),
                "--batch-size",
                "1",
                "--no-dedup",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        );
    }
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(env.count(), 1000);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

#[test]
fn access_counts_are_bounded_saturate_and_a_bad_row_is_repaired() {
    let env = Env::new();
    let file = env.dir.path().join("counts.jsonl");
    // i64::MAX: refused, naming the line and the field; nothing written.
    std::fs::write(
        &file,
        "{\"content\":\"fine\",\"type\":\"lesson\"}\n\
         {\"content\":\"overflow zebra\",\"type\":\"lesson\",\"access_count\":9223372036854775807}\n",
    )
    .unwrap();
    let out = env.run(&["import", file.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("line 2") && err.contains("access_count"),
        "{err}"
    );
    assert_eq!(env.count(), 0);

    // The maximum itself is accepted, and recall saturates there instead of overflowing.
    let max: u64 = 1 << 53;
    std::fs::write(
        &file,
        format!("{{\"content\":\"overflow zebra\",\"type\":\"lesson\",\"access_count\":{max}}}\n"),
    )
    .unwrap();
    env.ok(&["import", file.to_str().unwrap()]);
    for _ in 0..2 {
        assert_eq!(result_ids(&env.recall_json(&["zebra"])), [1]);
    }
    let shown: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "1", "--json"])).unwrap();
    assert_eq!(shown["access_count"], max);

    // A row an older version broke (an overflowed count stored as REAL, in a schema-3
    // database) reads again, and opening the store repairs it.
    {
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        conn.execute("UPDATE memories SET access_count = 9.3e18", [])
            .unwrap();
        conn.pragma_update(None, "user_version", 3).unwrap();
    }
    env.ok(&["export"]);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let (kind, count): (String, i64) = conn
        .query_row(
            "SELECT typeof(access_count), access_count FROM memories",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((kind.as_str(), count), ("integer", max as i64));
}

#[test]
fn text_starting_with_a_hyphen_is_text_not_an_option() {
    let env = Env::new();
    assert_eq!(
        env.ok(&["remember", "-v flag breaks the build"]),
        "inserted as id 1\n"
    );
    env.ok(&[
        "remember",
        "--type",
        "gotcha",
        "- fix the flaky login test first",
    ]);
    let v = env.recall_json(&["-v flag", "--no-touch"]);
    assert_eq!(result_ids(&v), [1], "{v}");
    let injected = env.ok(&[
        "inject",
        "--task",
        "- fix the flaky login test",
        "--no-touch",
    ]);
    assert!(
        injected.contains("- fix the flaky login test first"),
        "{injected}"
    );
    // Options before and after the text still count as options.
    let out = env.ok(&["recall", "--mode", "fts", "-x", "--format", "prompt"]);
    assert_eq!(out, "");
}

#[test]
fn import_from_standard_input_writes_nothing_when_a_late_line_is_bad() {
    let env = Env::new();
    let mut input = String::new();
    for i in 0..1200 {
        input.push_str(&format!(
            "{{\"content\":\"lesson number {i}\",\"type\":\"lesson\"}}\n"
        ));
    }
    input.push_str("{\"content\":\"\",\"type\":\"lesson\"}\n");
    let out = env.run_stdin(&["import", "-", "--batch-size", "100"], input.as_bytes());
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("standard input: 1 bad line, nothing was imported")
            && err.contains("line 1201: memory content is empty"),
        "{err}"
    );
    assert_eq!(env.count(), 0);
    // Without the bad line, all of it.
    let good = &input[..input.rfind("{\"content\":\"\"").unwrap()];
    let out = env.run_stdin(&["import", "-", "--no-dedup"], good.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.count(), 1200);
}

/// A disk that fills up mid-import (here a file-size limit, which makes each write past it
/// fail as a full disk does): the batches committed before stay, the error names the lines
/// left out, and importing the file again adds just those.
#[test]
fn an_import_that_runs_out_of_disk_names_what_it_left_out() {
    let env = Env::new();
    let file = env.dir.path().join("many.jsonl");
    let (total, batch) = (3000, 200);
    let lines: String = (0..total)
        .map(|i| {
            format!(
                "{{\"content\": \"Lesson {i}: topic{} needs care with w{}\", \"type\": \"lesson\"}}\n",
                i % 97,
                i * 7919 % 100_003
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    // sh: SIGXFSZ ignored (so a write past the limit fails instead of killing), the limit in
    // 512-byte blocks, then the binary in its place, with the environment `Env::cmd` gives.
    let limited = |blocks: u32, args: &[&str]| {
        let template = env.cmd(&[]);
        Command::new("sh")
            .current_dir(env.dir.path())
            .envs(template.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .env_remove("ORO_MEM_DB")
            .env_remove("ORO_MEM_CONFIG")
            .arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\""
            ))
            .arg(BIN)
            .args(args)
            .output()
            .unwrap()
    };
    let out = limited(
        600,
        &[
            "import",
            file.to_str().unwrap(),
            "--batch-size",
            &batch.to_string(),
        ],
    );
    assert!(!out.status.success(), "the limit was not reached");
    let n = env.count();
    assert!(n > 0 && n < total, "{n}");
    assert_eq!(n % batch, 0, "only whole batches are committed");
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "lines {}-{} and after were not imported; the {n} lines before them were",
            n + 1,
            n + batch
        )),
        "{err}"
    );
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let again = env.ok(&["import", file.to_str().unwrap()]);
    assert!(
        again.contains(&format!("{} inserted, 0 merged, {n} skipped", total - n)),
        "{again}"
    );
    assert_eq!(env.count(), total);
    // Not a byte more: the store is said not to open for the disk, not to be damaged.
    let out = limited(0, &["recall", "topic5"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("cannot be opened: the disk it is on failed to read or write")
            && !err.contains("not a usable SQLite database"),
        "{err}"
    );
}

#[test]
fn killed_import_leaves_a_sound_database_with_whole_batches() {
    let env = Env::new();
    let file = env.dir.path().join("big.jsonl");
    let batch = 500;
    let lines: String = (0..400_000)
        .map(|i| {
            format!(
                "{{\"content\": \"bulk memory number {i} about topic{}\", \"type\": \"lesson\"}}\n",
                i % 97
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    let mut child = env
        .cmd(&[
            "import",
            file.to_str().unwrap(),
            "--batch-size",
            &batch.to_string(),
            "--no-dedup",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        let n: i64 = conn
            .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
            .unwrap();
        if n >= 2 * batch {
            break;
        }
        assert!(start.elapsed().as_secs() < 120, "import made no progress");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(conn);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let n: i64 = conn
        .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))
        .unwrap();
    assert!(n >= 2 * batch && n < 400_000, "{n}");
    assert_eq!(n % batch, 0, "only whole batches are committed");
    // Every committed memory is one of the first n lines, in order.
    let last: String = conn
        .query_row(
            "SELECT content FROM memories ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        last.starts_with(&format!("bulk memory number {} ", n - 1)),
        "{last}"
    );
    drop(conn);
    // The store opens and searches fine afterwards.
    assert!(env
        .ok(&["recall", "topic5", "--no-touch"])
        .contains("topic5"));
}

#[test]
fn forgetting_the_newest_version_says_the_older_stays_superseded() {
    let env = Env::new();
    env.ok(&["remember", "Use Node 18", "--type", "fact"]);
    env.ok(&["remember", "Use Node 20", "--type", "fact"]);
    env.ok(&[
        "remember",
        "Run the tests before a push",
        "--type",
        "pattern",
    ]);
    assert_eq!(
        env.ok(&["memories", "forget", "2", "3"]),
        "forgot 2; 1, the version it superseded, stays superseded \
         (`oro-mem memories restore 1` makes it current again)\nforgot 3\n"
    );
    // Nothing current about the fact, until the older version is restored.
    assert_eq!(
        result_ids(&env.recall_json(&["node version", "--min-relevance", "0"])),
        Vec::<i64>::new()
    );
    env.ok(&["memories", "restore", "1"]);
    assert_eq!(
        result_ids(&env.recall_json(&["node version", "--min-relevance", "0"])),
        [1]
    );
}

/// A user says that a fact changed rather than restating it: the write path reads it as the
/// newer version, and recall returns it alone.
#[test]
fn a_change_said_in_words_supersedes_and_is_what_recall_returns() {
    let env = Env::new();
    env.ok(&["remember", "We use Jest for tests", "--type", "fact"]);
    env.ok(&["remember", "Run `make test` before pushing"]);
    for (text, old) in [
        ("We switched from Jest to Vitest for tests", 1),
        ("Run `just test` before pushing instead of `make test`", 2),
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&env.ok(&["remember", text, "--json", "--strict"])).unwrap();
        assert_eq!(v["outcome"], "updated", "{text}: {v}");
        assert_eq!(v["supersedes"], serde_json::json!([old]), "{text}: {v}");
    }
    let found = env.recall_json(&["do we use Jest for tests"]);
    assert_eq!(result_ids(&found), [3], "{found}");
    let injected = env.ok(&["inject", "--task", "run the tests before pushing"]);
    assert!(
        injected.contains("just test") && !injected.contains("We use Jest"),
        "{injected}"
    );
}

#[test]
fn a_newer_version_supersedes_the_old_one_which_is_kept_and_restorable() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "The staging API runs on port 8080",
        "--type",
        "fact",
    ]);
    let v: serde_json::Value = serde_json::from_str(&env.ok(&[
        "remember",
        "The staging API runs on port 9090",
        "--type",
        "fact",
        "--supersedes",
        "1",
        "--json",
        "--strict",
    ]))
    .unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "outcome": "updated",
            "id": 2,
            "supersedes": [1],
            "superseded": [{"id": 1, "content": "The staging API runs on port 8080"}],
        })
    );
    assert_eq!(
        env.ok(&[
            "remember",
            "The staging API runs on port 7070",
            "--supersedes=2"
        ]),
        "inserted as id 3, superseding id 2 \"The staging API runs on port 9090\" (`oro-mem \
         memories restore 2` undoes it)\n"
    );
    // Recall and inject find the newest only.
    let found = env.recall_json(&["staging API port"]);
    assert_eq!(result_ids(&found), [3]);
    let injected = env.ok(&["inject", "--task", "which port does the staging API use"]);
    assert!(
        injected.contains("7070") && !injected.contains("8080"),
        "{injected}"
    );
    let all = env.recall_json(&["staging API port", "--include-superseded"]);
    let mut ids = result_ids(&all);
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3], "{all}");
    // Shown, an older version says it is one, so that neither a reader nor an agent takes
    // it for the current fact.
    let listed = env.ok(&["recall", "staging API port", "--include-superseded"]);
    assert!(
        listed.contains("8080  (score") && listed.contains(", id 1, superseded by 2)"),
        "{listed}"
    );
    let prompt = env.ok(&[
        "recall",
        "staging API port",
        "--include-superseded",
        "--format",
        "prompt",
    ]);
    // The current version first, then the older ones, each marked.
    assert!(
        prompt.starts_with(
            "## Relevant Memories\n- [lesson] The staging API runs on port 7070 (confidence"
        ) && prompt.contains("- [fact; superseded by 2] The staging API runs on port 8080"),
        "{prompt}"
    );
    let superseded = env.ok(&["memories", "list", "--status", "superseded"]);
    assert!(
        superseded.contains("8080  (superseded by 2)") && superseded.contains("9090"),
        "{superseded}"
    );

    // The chain, oldest first, from any version.
    let shown = env.ok(&["memories", "show", "2", "--no-touch"]);
    assert!(shown.contains("superseded by: 3 on "), "{shown}");
    let chain: Vec<&str> = shown
        .lines()
        .skip_while(|l| !l.starts_with("versions:"))
        .skip(1)
        .collect();
    assert_eq!(chain.len(), 3, "{shown}");
    for (line, (id, status, port)) in chain.iter().zip([
        ("1", "superseded", "8080"),
        ("2", "superseded", "9090"),
        ("3", "active", "7070"),
    ]) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = usize::from(words[0] == "*");
        assert_eq!((words[at], words[at + 2]), (id, status), "{line}");
        assert!(line.ends_with(port), "{line}");
        assert_eq!(at == 1, id == "2", "the shown one is marked: {line}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "3", "--json"])).unwrap();
    assert_eq!(json["supersedes"], serde_json::json!([2]));
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "1", "--json"])).unwrap();
    assert_eq!(json["superseded_by"], 2);

    // What cannot be superseded fails and stores nothing.
    for (args, says) in [
        (
            vec!["--supersedes", "1"],
            "memory 1 is already superseded by memory 2",
        ),
        (vec!["--supersedes", "3,99"], "no memory with id 99"),
        (
            vec!["--supersedes", "3", "--namespace", "other"],
            "namespace",
        ),
    ] {
        let mut all = vec!["remember", "The staging API runs on port 6060"];
        all.extend(args);
        let out = env.run(&all);
        assert_eq!(out.status.code(), Some(1), "{all:?}");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
    assert_eq!(env.count(), 3);
    let stats = env.ok(&["stats"]);
    assert!(
        stats.contains("1 active, 0 archived, 0 merged, 2 superseded"),
        "{stats}"
    );

    // Restored, a version is recalled again and superseded by nothing.
    assert_eq!(
        env.ok(&["memories", "restore", "2"]),
        "restored 2 (was superseded by 3)\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "2", "--json"])).unwrap();
    assert_eq!(
        (json["status"].as_str(), json.get("superseded_by")),
        (Some("active"), None)
    );
    let found = env.recall_json(&["staging API port"]);
    assert_eq!(result_ids(&found).len(), 2);

    // An export carries the links: imported elsewhere, the versions are linked by the new
    // ids, and importing it again adds and links nothing.
    let exported = env.ok(&["export", "--all"]);
    let other = Env::new();
    other.ok(&["remember", "unrelated, so that the ids differ"]);
    let imported = other.ok_stdin(&["import", "-"], exported.as_bytes());
    assert_eq!(
        imported,
        "imported: 3 inserted, 0 merged, 0 skipped; 1 superseded by newer versions\n"
    );
    let status = |env: &Env, content: &str| -> (String, Option<String>) {
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        conn.query_row(
            "SELECT m.status, s.content FROM memories m \
             LEFT JOIN memories s ON s.id = m.superseded_by WHERE m.content = ?1",
            [content],
            |r| Ok((r.get(0).unwrap(), r.get(1).unwrap())),
        )
        .unwrap()
    };
    assert_eq!(
        status(&other, "The staging API runs on port 8080"),
        (
            "superseded".to_string(),
            Some("The staging API runs on port 9090".to_string())
        )
    );
    assert_eq!(
        other.ok_stdin(&["import", "-"], exported.as_bytes()),
        "imported: 0 inserted, 0 merged, 3 skipped\n"
    );
    assert_eq!(other.count(), 4);

    // A merge lets a worker's newer version supersede the older one here, never the reverse.
    let ours = Env::new();
    ours.ok(&[
        "remember",
        "The staging API runs on port 8080",
        "--type",
        "fact",
    ]);
    ours.ok(&["remember", "Deploys use pnpm 9", "--type", "fact"]);
    let worker = Env::new();
    worker.ok(&["remember", "Deploys use pnpm 8", "--type", "fact"]);
    worker.ok(&[
        "remember",
        "Deploys use pnpm 9",
        "--type",
        "fact",
        "--supersedes",
        "1",
    ]);
    worker.ok(&[
        "remember",
        "The staging API runs on port 8080",
        "--type",
        "fact",
    ]);
    worker.ok(&[
        "remember",
        "The staging API runs on port 9090",
        "--type",
        "fact",
        "--supersedes",
        "3",
    ]);
    let merged = ours.ok(&["merge", worker.db().to_str().unwrap()]);
    assert!(
        merged.contains("2 superseded here by newer versions"),
        "{merged}"
    );
    assert_eq!(
        status(&ours, "The staging API runs on port 8080"),
        (
            "superseded".to_string(),
            Some("The staging API runs on port 9090".to_string())
        )
    );
    // Their older pnpm version is copied as it was there, superseded; ours stays current.
    assert_eq!(status(&ours, "Deploys use pnpm 9").0, "active");
    assert_eq!(status(&ours, "Deploys use pnpm 8").0, "superseded");
    // The worker, merging ours back, does not bring back what it superseded.
    let back = worker.ok(&["merge", ours.db().to_str().unwrap()]);
    assert!(back.contains("already here; copied 0"), "{back}");
    assert_eq!(
        result_ids(&worker.recall_json(&["staging API port"])),
        [4],
        "the newest only"
    );
}

#[test]
fn consolidate_finds_the_states_of_a_fact_stored_apart_and_supersedes_the_older() {
    let env = Env::new();
    for text in [
        "Nightly builds run on the shared runner",
        "The staging API listens on port 8080 behind the proxy",
        "Migrations run inside a transaction",
        "The docs site deploys from the main branch",
        "Run the linter before every commit",
        "Release notes list every breaking change",
    ] {
        env.ok(&["remember", text]);
    }
    // Stored apart, as before updates were detected on write.
    env.ok(&[
        "remember",
        "The staging API listens on port 9090 behind the proxy",
        "--no-supersede",
    ]);
    let dry = env.ok(&["consolidate", "--dry-run"]);
    assert!(
        dry.contains("would supersede 2 by 7 (its value changed)"),
        "{dry}"
    );
    assert!(
        dry.ends_with("dry run: 0 merged, 1 superseded, 0 archived\n"),
        "{dry}"
    );
    assert_eq!(env.ok(&["memories"]).lines().count(), 7, "nothing changed");
    let done = env.ok(&["consolidate"]);
    assert!(done.contains("superseded 2 by 7"), "{done}");
    assert_eq!(result_ids(&env.recall_json(&["staging API port"])), [7]);
    let shown = env.ok(&["memories", "show", "2", "--no-touch"]);
    assert!(shown.contains("superseded by: 7"), "{shown}");
    assert!(env
        .ok(&["consolidate", "--dry-run"])
        .contains("0 superseded"));
}

#[test]
fn consolidate_dry_run_then_for_real() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "run cargo fmt before every commit",
        "--no-dedup",
    ]);
    env.ok(&[
        "remember",
        "Run cargo fmt before every commit!",
        "--no-dedup",
        "--confidence",
        "0.9",
    ]);
    let dry = env.ok(&["consolidate", "--dry-run"]);
    assert!(dry.contains("would merge 1 into 2"), "{dry}");
    assert_eq!(env.count(), 2);
    let done = env.ok(&["consolidate"]);
    assert!(done.contains("merged 1 into 2"), "{done}");
    // Kept, merged: not recalled, shown with what it went into, and restorable.
    assert_eq!(env.count(), 2, "nothing is deleted");
    let found = env.ok(&["recall", "cargo fmt commit", "--json", "--no-touch"]);
    let v: serde_json::Value = serde_json::from_str(&found).unwrap();
    assert_eq!(result_ids(&v), [2], "{v:#}");
    let shown = env.ok(&["memories", "show", "1", "--no-touch"]);
    assert!(shown.contains("status:        merged"), "{shown}");
    assert!(shown.contains("merged into:   2"), "{shown}");
    let merged = env.ok(&["memories", "list", "--status", "merged", "--json"]);
    assert_eq!(merged.lines().count(), 1, "{merged}");
    assert!(env.ok(&["stats"]).contains("1 merged"));
    // Export then import into the same store: nothing changes, whatever the statuses.
    let export = env.dir.path().join("all.jsonl");
    env.ok(&["export", "--all", "--output", export.to_str().unwrap()]);
    env.ok(&["import", export.to_str().unwrap()]);
    assert_eq!(env.count(), 2);
    let restored = env.ok(&["memories", "restore", "1"]);
    assert_eq!(restored, "restored 1 (was merged into 2)\n");
    let again = env.ok(&["memories", "show", "1", "--json", "--no-touch"]);
    let m: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        (m["status"].as_str(), m.get("merged_into")),
        (Some("active"), None)
    );
    assert_eq!(env.ok(&["memories", "restore", "1"]), "1: already active\n");
    let err = env.run(&["memories", "restore", "1", "99"]);
    assert!(!err.status.success());
    assert!(stderr(&err).contains("no memory with id 99: nothing restored"));
}

#[test]
fn stats_reports_counts() {
    let env = Env::new();
    env.ok(&["remember", "one", "--type", "gotcha"]);
    let v: serde_json::Value = serde_json::from_str(&env.ok(&["stats", "--json"])).unwrap();
    assert_eq!(v["total"], 1);
    assert_eq!(v["by_type"][0][0], "gotcha");
}

fn fixture_cases() -> Vec<(PathBuf, RecallCase)> {
    let cases = recall_cases(&recall_fixture_dir());
    assert!(cases.len() >= 5);
    // The cases about FTS mode, the mode these tests run (a paraphrase that shares no word
    // with its memory is about hybrid mode).
    cases
        .into_iter()
        .filter(|(_, c)| c.modes.contains(&oro_mem_core::Mode::Fts))
        .collect()
}

#[test]
fn fixtures_pass_in_fts_mode_and_simple_scoring() {
    for (path, case) in fixture_cases() {
        let env = Env::new();
        for m in &case.memories {
            let mut args = vec![
                "remember",
                m.content.as_str(),
                "--type",
                m.memory_type.as_str(),
                "--no-dedup",
            ];
            let tags = m.tags.join(",");
            let files = m.files.join(",");
            let entities = m.entities.join(",");
            for (flag, value) in [
                ("--tags", &tags),
                ("--files", &files),
                ("--entities", &entities),
            ] {
                if !value.is_empty() {
                    args.extend([flag, value.as_str()]);
                }
            }
            if let Some(summary) = &m.summary {
                args.extend(["--summary", summary.as_str()]);
            }
            let supersedes: Vec<String> = m.supersedes.iter().map(i64::to_string).collect();
            let supersedes = supersedes.join(",");
            if !supersedes.is_empty() {
                args.extend(["--supersedes", supersedes.as_str()]);
            }
            env.ok(&args);
        }
        // The cases check ranking, not the absolute threshold of simple scoring, which BM25
        // on a three-document corpus rarely clears.
        std::fs::write(
            env.dir.path().join(".oro/config.toml"),
            "[recall]\nsimple_min_score = 0.0\n",
        )
        .unwrap();
        for scoring in ["fused", "simple"] {
            // What FTS mode gets wrong with the shipped relevance bar, the engine's fixture
            // test holds to failing; simple scoring has no such bar.
            if scoring == "fused" && case.known_failures.contains(&oro_mem_core::Mode::Fts) {
                continue;
            }
            let v = env.recall_json(&[
                case.query.as_str(),
                "--mode",
                "fts",
                "--scoring",
                scoring,
                "--no-touch",
            ]);
            let ids = result_ids(&v);
            assert!(
                case.holds(&ids),
                "{} ({scoring}): {} — got {ids:?}",
                path.display(),
                case.description
            );
        }
    }
}

#[test]
fn fixtures_pass_with_the_in_memory_bm25_index() {
    for (path, case) in fixture_cases() {
        let mut index = oro_mem_rank_bm25::Bm25Index::new();
        let superseded: Vec<i64> = case
            .memories
            .iter()
            .flat_map(|m| m.supersedes.iter().copied())
            .collect();
        for (i, m) in case.memories.iter().enumerate() {
            if superseded.contains(&(i as i64 + 1)) {
                // Not searched, as in a store.
                continue;
            }
            // The index has one field: files and entities written twice for their weight.
            let about = format!("{} {}", m.files.join(" "), m.entities.join(" "));
            let text = format!(
                "{} {} {} {about} {about}",
                m.content,
                m.tags.join(" "),
                m.summary.as_deref().unwrap_or_default()
            );
            index.insert(i as i64 + 1, &text);
        }
        let ids: Vec<i64> = index
            .search(&case.query, 10)
            .hits()
            .iter()
            .map(|h| h.id)
            .collect();
        assert!(
            case.holds(&ids),
            "{}: {} — got {ids:?}",
            path.display(),
            case.description
        );
    }
}

// ---- hybrid mode on the real model (scripts/fetch-model installs it; scripts/test runs it) ----

/// A store whose configuration asks for hybrid mode.
fn hybrid_env() -> Env {
    let env = Env::new();
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "mode = \"hybrid\"\n",
    )
    .unwrap();
    env
}

fn embedded(env: &Env) -> i64 {
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.query_row(
        "SELECT count(*) FROM memories WHERE embedding IS NOT NULL",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

/// In hybrid mode the model has a say in what the words alone call a duplicate: a short
/// statement all of whose few words a longer one holds, but which says something else
/// (anthropic's CLAUDE.md says both), is kept; with `dedup.min_cosine = 0` it is lost as
/// FTS mode loses it. A rewording is still a duplicate.
#[test]
fn hybrid_keeps_what_its_words_alone_call_a_duplicate() {
    for (config, outcome) in [
        ("mode = \"hybrid\"\n", "inserted"),
        ("mode = \"hybrid\"\n[dedup]\nmin_cosine = 0.0\n", "skipped"),
        ("mode = \"fts\"\n", "skipped"),
    ] {
        let env = Env::new();
        std::fs::write(env.dir.path().join(".oro").join("config.toml"), config).unwrap();
        env.ok(&["remember", "Read and write exact bytes."]);
        let out = env.ok(&["remember", "Until then, write them.", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["outcome"], outcome, "{config}: {out}");
        let out = env.ok(&["remember", "Read and write the exact bytes.", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["outcome"], "skipped", "{config}: {out}");
    }
}

#[test]
fn hybrid_finds_the_semantic_match_fts_misses() {
    let env = hybrid_env();
    for (text, ty) in [
        (
            "SQLite lock contention: a second writer waits for the first to commit",
            "gotcha",
        ),
        ("Run rustfmt before committing Rust code", "pattern"),
        (
            "Makefiles need tabs, not spaces, before recipe lines",
            "gotcha",
        ),
    ] {
        env.ok(&["remember", text, "--type", ty]);
    }
    assert_eq!(embedded(&env), 3, "hybrid mode embeds on remember");
    let stats: serde_json::Value = serde_json::from_str(&env.ok(&["stats", "--json"])).unwrap();
    assert_eq!(
        stats["embedded_by_model"],
        serde_json::json!([["all-MiniLM-L6-v2/onnx-int8", 3]]),
        "{stats:#}"
    );

    // No word of the query is in the memory: full-text search cannot find it.
    let fts = env.recall_json(&["database timeout", "--mode", "fts", "--no-touch"]);
    assert_eq!(result_ids(&fts), Vec::<i64>::new());
    assert_eq!(fts["abstained"]["reason"], "no_candidates", "{fts:#}");
    // FTS mode's answerable model reads words and the store's size: a query a memory of a
    // store of three holds whole is one the store knows about.
    let fts = env.recall_json(&["rustfmt", "--mode", "fts", "--no-touch"]);
    assert_eq!(result_ids(&fts), [2], "{fts:#}");
    assert!(fts["answerable"].as_f64().unwrap() > 0.99, "{fts:#}");

    // Hybrid mode finds it by meaning. A match by meaning alone at a cosine of 0.37 is
    // estimated below the default relevance bar (`recall.min_relevance`), but no other
    // memory comes near the query: kept for standing apart (`recall.keep_similar`).
    let found = env.recall_json(&["database timeout", "--no-touch"]);
    assert_eq!(result_ids(&found), [1], "{found:#}");
    assert!(
        found["results"][0]["relevance"].as_f64().unwrap() < 0.02,
        "{found:#}"
    );
    assert!(found["results"][0]["similar_next"].is_number(), "{found:#}");
    // Hybrid mode's answerable model judges the store unlikely to know about the query:
    // a factor of every estimate, reported.
    let answerable = found["answerable"].as_f64().unwrap();
    assert!(answerable < 0.5, "{found:#}");
    // A query the store knows about passes it: the memory it names is returned.
    let known = env.recall_json(&["Makefiles need tabs before recipe lines", "--no-touch"]);
    assert_eq!(result_ids(&known), [3], "{known:#}");
    assert!(known["answerable"].as_f64().unwrap() > 0.5, "{known:#}");
    // MCP search shows it with `explain`, and the estimate it scales.
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[
            mcp_search(
                1,
                serde_json::json!({"query": "database timeout", "explain": true}),
            ),
            mcp_search(2, serde_json::json!({"query": "database timeout"})),
        ],
    );
    let explained = mcp_tool_text(&answers, 1);
    let a = explained["answerable"].as_f64().unwrap();
    assert!((a - answerable).abs() < 1e-3, "{explained:#}");
    assert!(
        explained["results"][0]["similar"].is_number(),
        "{explained:#}"
    );
    assert_eq!(mcp_tool_text(&answers, 2).get("answerable"), None);
    // Without `keep_similar`, the bar withholds it, and says so.
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "mode = \"hybrid\"\n[recall]\nkeep_similar = false\n",
    )
    .unwrap();
    let withheld = env.recall_json(&["database timeout", "--no-touch"]);
    assert_eq!(result_ids(&withheld), Vec::<i64>::new());
    assert_eq!(
        (
            &withheld["abstained"]["reason"],
            &withheld["below_relevance"]
        ),
        (&"below_relevance".into(), &1.into()),
        "{withheld:#}"
    );
    // A task unrelated to every memory injects nothing: hybrid mode's gate on cosine
    // (`recall.hybrid_min_similarity`, 0.1) lets weak matches through, and the relevance
    // estimate withholds them.
    let out = env.run(&["inject", "--task", "Bake sourdough bread with rye flour"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Without the bar, and with hybrid mode's gate near vector mode's (0.3), it is recalled,
    // and the gate alone keeps the others out.
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "mode = \"hybrid\"\n[recall]\nmin_relevance = 0.0\nhybrid_min_similarity = 0.25\n",
    )
    .unwrap();
    let out = env.run(&["recall", "database timeout", "--json", "--no-touch"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hybrid: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Hybrid mode, in which the vector list answered alone, and says why.
    assert_eq!(
        (&hybrid["mode"], &hybrid["answered_by"]),
        (&"hybrid".into(), &"vec_only".into())
    );
    let why = "no memory matches a word of the query: the vector list answered alone (vec_only)";
    assert_eq!(hybrid["warnings"], serde_json::json!([why]));
    assert_eq!(stderr(&out), format!("oro-mem: {why}\n"));
    // Found, first by meaning, and so first (with the default weights: recency off, and no
    // memory accessed yet).
    assert_eq!(result_ids(&hybrid)[0], 1, "{hybrid:#}");
    let lists = hybrid["results"][0]["lists"].as_array().unwrap();
    let vector = lists.iter().find(|l| l["name"] == "vector").unwrap();
    assert_eq!(vector["rank"], 1);
    assert!(vector["score"].as_f64().unwrap() > 0.2, "{vector}");
    let bm25 = lists.iter().find(|l| l["name"] == "bm25").unwrap();
    assert_eq!(bm25["rank"], serde_json::Value::Null);

    // The other two share no word with the query and are not similar enough
    // (`hybrid_min_similarity`): dropped before ranking, not recalled as "the nearest there is".
    assert_eq!(result_ids(&hybrid), [1], "{hybrid:#}");
    assert_eq!(hybrid["dissimilar"], 2, "{hybrid:#}");

    // Vector-only mode: meaning alone, no BM25 list. Every memory is a vector candidate;
    // only the similar one is recalled.
    let vector = env.recall_json(&["database timeout", "--mode", "vector", "--no-touch"]);
    assert_eq!(vector["mode"], "vector");
    assert_eq!(
        (vector["candidates"].as_i64(), vector["dissimilar"].as_i64()),
        (Some(3), Some(2))
    );
    assert_eq!(result_ids(&vector), [1], "{vector:#}");
    let lists = vector["results"][0]["lists"].as_array().unwrap();
    assert!(lists.iter().all(|l| l["name"] != "bm25"), "{lists:?}");

    // A task unrelated to every memory injects nothing by the gate alone either.
    let out = env.run(&["inject", "--task", "Bake sourdough bread with rye flour"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");

    // --explain names every list with a weight (recency is 0 by default).
    let explained = env.ok(&["recall", "database timeout", "--explain", "--no-touch"]);
    for list in ["bm25", "vector", "access"] {
        assert!(explained.contains(list), "{explained}");
    }
    assert!(!explained.contains("recency"), "{explained}");
    // ... and ends with what each stage kept (the chance is the shipped model's), with the
    // gate of the mode that answered (hybrid's, not vector mode's `min_similarity`).
    let last = explained.lines().last().unwrap();
    assert!(
        last.starts_with(
            "3 candidates, 2 dropped (no query word, cosine < 0.25), 1 above the minimum \
             score, 0.0"
        ) && last.ends_with(
            " estimated chance the store holds anything about the query (recall.answerable), \
             1 shown (count, budget, near-duplicates); answered by vec_only"
        ),
        "{explained}"
    );
    // An empty answer says why too.
    let explained = env.ok(&["recall", "sourdough rye flour", "--explain", "--no-touch"]);
    assert!(
        explained.starts_with("No relevant memories.\n"),
        "{explained}"
    );
    assert!(
        explained.contains("3 dropped (no query word"),
        "{explained}"
    );

    // Both lists answer when the words match too; the BM25 list alone when no memory has
    // an embedding to compare (here: removed from the store and its index).
    let both = env.recall_json(&["rustfmt before committing code", "--no-touch"]);
    assert_eq!(both["answered_by"], "hybrid", "{both:#}");
    assert_eq!(both["warnings"], serde_json::json!([]));
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.execute_batch(
        "UPDATE memories SET embedding = NULL, embedding_model = NULL, embedding_dim = NULL; \
         DELETE FROM vector_bits; DELETE FROM vector_chunks;",
    )
    .unwrap();
    let alone = env.recall_json(&["rustfmt before committing code", "--no-touch"]);
    assert_eq!(alone["answered_by"], "bm25_only", "{alone:#}");
    let warnings = alone["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().contains(
            "3 memories have no embedding from all-MiniLM-L6-v2/onnx-int8 and are found by \
             full-text search only; run `oro-mem embed` (about a second for short memories"
        )),
        "{alone:#}"
    );
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("the BM25 list answered alone (bm25_only)")),
        "{alone:#}"
    );
    assert_eq!(result_ids(&alone)[0], 2);
}

#[test]
fn hybrid_returns_the_nearest_memory_by_meaning_in_a_small_store() {
    // The README's store, asked in other words: no word in common, a cosine of about 0.42,
    // an estimated relevance below the bar. Nearer than what an unrelated memory comes in a
    // store of one (`recall.keep_similar`), so returned, and `--explain` says why.
    let env = hybrid_env();
    env.ok(&[
        "remember",
        "SQLite allows one writer at a time; set busy_timeout",
        "--type",
        "gotcha",
    ]);
    let query = "why is the database locked when two agents write?";
    let r = env.recall_json(&[query, "--no-touch"]);
    assert_eq!(result_ids(&r), [1], "{r:#}");
    let similar = r["results"][0]["similar"].as_f64().unwrap();
    assert!((0.36..0.5).contains(&similar), "{r:#}");
    assert!(
        r["results"][0]["relevance"].as_f64().unwrap() < 0.02,
        "{r:#}"
    );
    let explained = env.ok(&["recall", query, "--explain", "--no-touch"]);
    assert!(
        explained.contains("the nearest in meaning (cosine 0.4"),
        "{explained}"
    );
    // A task about something else is answered with nothing, as before.
    let out = env.run(&["inject", "--task", "Bake sourdough bread with rye flour"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Off, the paraphrase is withheld.
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "mode = \"hybrid\"\n[recall]\nkeep_similar = false\n",
    )
    .unwrap();
    let r = env.recall_json(&[query, "--no-touch"]);
    assert_eq!(r["abstained"]["reason"], "below_relevance", "{r:#}");
}

#[test]
fn hybrid_returns_the_memory_far_nearer_than_the_others_to_a_short_query() {
    // Four unrelated project memories asked "database timeout": a cosine of about 0.37 to
    // the SQLite one, below the bar for a store of four (0.40), but the others come no
    // nearer than 0.1, so it stands apart (`recall.keep_similar`).
    let env = hybrid_env();
    for (text, kind) in [
        (
            "SQLite lock contention: a second writer waits for the first to commit",
            "gotcha",
        ),
        (
            "pnpm install fails behind the corporate proxy; set strict-ssl false",
            "gotcha",
        ),
        (
            "The robot arm must be homed before each calibration run",
            "lesson",
        ),
        (
            "Makefiles need tabs, not spaces, before recipe lines",
            "gotcha",
        ),
    ] {
        env.ok(&["remember", text, "--type", kind]);
    }
    let r = env.recall_json(&["database timeout", "--no-touch"]);
    assert_eq!(result_ids(&r), [1], "{r:#}");
    let result = &r["results"][0];
    let (similar, next) = (
        result["similar"].as_f64().unwrap(),
        result["similar_next"].as_f64().unwrap(),
    );
    assert!(similar < 0.40 && similar - next >= 0.25, "{r:#}");
    let explained = env.ok(&["recall", "database timeout", "--explain", "--no-touch"]);
    assert!(
        explained.contains("far nearer than any other"),
        "{explained}"
    );
    // A task about none of them is answered with nothing.
    let out = env.run(&["inject", "--task", "Bake sourdough bread with rye flour"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn without_the_model_hybrid_stores_and_answers_then_embed_catches_up() {
    let env = hybrid_env();
    let missing = env.dir.path().join("removed-model-dir");
    let no_model = |args: &[&str]| {
        env.cmd(args)
            .env("ORO_MEM_MODEL_DIR", &missing)
            .output()
            .unwrap()
    };

    let out = no_model(&[
        "remember",
        "Connection pool exhaustion shows up as request timeouts",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("storing without embeddings"),
        "{}",
        stderr(&out)
    );
    assert_eq!(embedded(&env), 0);

    let out = no_model(&["recall", "request timeouts", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["requested_mode"].as_str(), v["mode"].as_str()),
        (Some("hybrid"), Some("fts"))
    );
    assert_eq!(result_ids(&v), [1]);

    let out = no_model(&["embed"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("fetch-model"), "{}", stderr(&out));

    // A corrupt model file is a clear error too, and recall still answers.
    let corrupt = env.dir.path().join("corrupt");
    std::fs::create_dir_all(corrupt.join("all-minilm-l6-v2")).unwrap();
    std::fs::create_dir_all(corrupt.join("onnxruntime")).unwrap();
    std::fs::write(
        corrupt.join("onnxruntime").join("libonnxruntime.so"),
        b"not a library",
    )
    .unwrap();
    let out = env
        .cmd(&["recall", "request timeouts", "--json"])
        .env("ORO_MEM_MODEL_DIR", &corrupt)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot load ONNX Runtime"),
        "{}",
        stderr(&out)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "fts");

    // With the model back, hybrid says what it cannot search by meaning ...
    let out = env.run(&["recall", "request timeouts", "--no-touch"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 memories have no embedding"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("oro-mem embed"), "{}", stderr(&out));
    // Its relevance is estimated by its words alone, as in FTS mode: a missing embedding is
    // no evidence against it.
    let v = env.recall_json(&["request timeouts", "--no-touch"]);
    assert_eq!(
        (v["mode"].as_str(), result_ids(&v)),
        (Some("hybrid"), vec![1])
    );
    let features = v["results"][0]["features"].as_object().unwrap();
    assert!(
        !features.contains_key("vector") && features.contains_key("coverage"),
        "{v:#}"
    );
    // ... and `embed` adds what is missing: a query sharing no word with the memory finds it
    // by meaning (and withholds it: a cosine of 0.28 alone is below the relevance bar).
    let by_meaning = ["the service got slow under load", "--no-touch"];
    let v = env.recall_json(&by_meaning);
    assert_eq!(v["abstained"]["reason"], "no_candidates", "{v:#}");
    assert!(env.ok(&["embed"]).contains("embedded 1 memories"));
    assert_eq!(embedded(&env), 1);
    let v = env.recall_json(&by_meaning);
    assert_eq!(v["mode"], "hybrid");
    assert_eq!(
        (&v["candidates"], &v["below_relevance"]),
        (&1.into(), &1.into()),
        "{v:#}"
    );
}

#[test]
fn embed_10k_shows_progress_and_resumes_after_a_kill() {
    let env = Env::new(); // FTS mode: the import stores no embeddings
    let file = env.dir.path().join("10k.jsonl");
    let lines: String = (0..10_000)
        .map(|i| {
            format!(
                "{{\"content\": \"memory {i} on topic{} for the agents\", \"type\": \"lesson\"}}\n",
                i % 89
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    env.ok(&["import", file.to_str().unwrap(), "--no-dedup"]);
    assert_eq!(embedded(&env), 0);

    let batch = 250;
    let mut child = env
        .cmd(&["embed", "--batch-size", &batch.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while embedded(&env) < 2 * batch {
        assert!(start.elapsed().as_secs() < 300, "embed made no progress");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let done = embedded(&env);
    assert!(done < 10_000, "killed too late to test resuming ({done})");
    assert_eq!(done % batch, 0, "only whole batches are committed");
    let indexed: i64 = conn
        .query_row("SELECT coalesce(sum(len), 0) FROM vector_chunks", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(
        indexed, done,
        "the vector index holds exactly the embedded rows"
    );
    drop(conn);

    let out = env.run(&["embed", "--batch-size", &batch.to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let progress = stderr(&out);
    assert!(
        progress.lines().count() >= 10,
        "a line per tenth: {progress}"
    );
    assert!(
        progress.contains(&format!("embedding: {}/{}", 10_000 - done, 10_000 - done)),
        "{progress}"
    );
    assert!(stdout(&out).contains(&format!("embedded {} memories", 10_000 - done)));
    assert_eq!(embedded(&env), 10_000);
    assert!(
        env.ok(&["embed"]).contains("embedded 0 memories"),
        "nothing left to do"
    );
}

#[test]
fn two_embed_runs_at_once_share_the_work() {
    let env = Env::new();
    let file = env.dir.path().join("m.jsonl");
    let lines: String = (0..1_500)
        .map(|i| {
            format!(
                "{{\"content\": \"note {i} about part{}\", \"type\": \"lesson\"}}\n",
                i % 41
            )
        })
        .collect();
    std::fs::write(&file, lines).unwrap();
    env.ok(&["import", file.to_str().unwrap(), "--no-dedup"]);

    let runs: Vec<_> = (0..2)
        .map(|_| {
            env.cmd(&["embed", "--batch-size", "32", "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut embedded_by_each = Vec::new();
    for run in runs {
        let out = run.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        embedded_by_each.push(report["embedded"].as_i64().unwrap());
    }
    assert_eq!(
        embedded_by_each.iter().sum::<i64>(),
        1_500,
        "each memory embedded by one run: {embedded_by_each:?}"
    );
    assert_eq!(embedded(&env), 1_500);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let indexed: i64 = conn
        .query_row("SELECT sum(len) FROM vector_chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(indexed, 1_500, "the index holds each memory once");
    let claims: i64 = conn
        .query_row("SELECT count(*) FROM embed_claims", [], |r| r.get(0))
        .unwrap();
    assert_eq!(claims, 0, "every claim ended with its embeddings");
}

#[test]
fn inject_prints_the_prompt_section_or_nothing() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "ruff --fix must run before pyright",
        "--type",
        "gotcha",
        "--tags",
        "python",
    ]);
    env.ok(&[
        "remember",
        "Use uv to create the Python virtual environment",
        "--tags",
        "python",
    ]);
    env.ok(&[
        "remember",
        "Cargo workspaces share one lock file",
        "--tags",
        "rust",
    ]);

    let task = "Set up ruff and pyright linting for the Python service";
    let injected = env.ok(&["inject", "--task", task, "--no-touch"]);
    let recalled = env.ok(&["recall", task, "--format", "prompt", "--no-touch"]);
    assert!(injected.starts_with("## Relevant Memories\n"), "{injected}");
    assert!(injected.contains("ruff --fix must run before pyright"));
    assert_eq!(
        injected, recalled,
        "the same renderer and settings as recall --format prompt"
    );

    // Filters apply; the task can come from standard input.
    let out = env.run_stdin(
        &["inject", "--task", "-", "--tags", "rust", "--no-touch"],
        b"ruff pyright lock file",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("ruff"), "{}", stdout(&out));

    // Nothing relevant: no output at all, success.
    let out = env.run(&["inject", "--task", "Bake sourdough bread with rye flour"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Injection counts as a return unless --no-touch.
    env.ok(&["inject", "--task", task]);
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let counts: (i64, i64) = conn
        .query_row(
            "SELECT return_count, access_count FROM memories WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(counts, (1, 0));
}

// ---- eval ----

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

#[test]
fn eval_scores_fts_by_hand_and_breaks_down_by_category() {
    let env = Env::new();
    let dataset = fixture("eval-mini");
    let report = env.eval_json(&["--dataset", dataset.to_str().unwrap(), "--set", "decay=off"]);
    // The unjudged query is left out.
    assert_eq!(report["queries"], 3);
    assert_eq!(report["documents"], 6);
    let run = &report["runs"][0];
    assert_eq!(run["mode"], "fts");
    // q-wal and q-ruff find their one relevant document first; q-pet shares no word with its
    // answer. So every metric is 2/3, and category 1 scores 1, category 2 scores 0.
    for metric in ["ndcg_10", "recall_5", "recall_10", "recall_100", "mrr_10"] {
        let v = run[metric].as_f64().unwrap();
        assert!((v - 2.0 / 3.0).abs() < 1e-9, "{metric} = {v}");
    }
    assert_eq!(run["by_category"]["1"]["recall_10"], 1.0);
    assert_eq!(run["by_category"]["2"]["recall_10"], 0.0);
    assert_eq!(run["by_category"]["2"]["queries"], 1);
    assert!(run["latency_p95_ms"].as_f64().unwrap() >= run["latency_p50_ms"].as_f64().unwrap());
    assert_eq!(report["depth"], 100, "--depth's default");

    // As recalled (threshold, count and budget as configured): in namespace a each of q-wal
    // and q-ruff matches only its own document; q-pet matches only "paint", which is not its
    // answer and holds one of its four terms, but that one is a name ("Melanie"), which few
    // documents use (`weighted_coverage`): it is returned. So one result for each query, two
    // of the three relevant, and no empty answer.
    let as_recalled = [
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--set",
        "decay=off",
    ];
    let report = env.eval_json(&as_recalled);
    assert_eq!(report["as_recalled"], true);
    let run = &report["runs"][0];
    assert_eq!(run["returned"], 1.0, "{run}");
    for metric in ["relevant_returned", "success"] {
        let v = run[metric].as_f64().unwrap();
        assert!((v - 2.0 / 3.0).abs() < 1e-9, "{metric} = {v}");
    }
    assert_eq!(run["empty"], 0.0, "{run}");
    // q-bread is marked no_relevant: it is not among the judged queries, and shares no word
    // with any memory of its namespace, so it is answered with nothing.
    assert_eq!(report["no_relevant"], 1);
    assert_eq!(run["no_relevant_empty"], 1.0);
    // A query counts for recall-any when one of its documents is returned; each has one.
    assert_eq!(run["recall_any_10"], run["recall_all_10"]);
    assert!((run["recall_any_10"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    // Without category 2 (q-pet, which full-text search cannot answer), every answer is
    // useful.
    let report = env.eval_json(&[&as_recalled[..], &["--skip-category", "2"]].concat());
    assert_eq!(report["queries"], 2);
    assert_eq!(report["runs"][0]["success"], 1.0);
    let text = env.ok(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
    ]);
    assert!(
        text.contains("as recalled") && text.contains("precision"),
        "{text}"
    );
    let out = env.run(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--depth",
        "5",
    ]);
    assert!(!out.status.success(), "--depth is for ranking only");

    // --set depth overrides --depth.
    let report = env.eval_json(&[
        "--dataset",
        dataset.to_str().unwrap(),
        "--depth",
        "30",
        "--set",
        "depth=7",
    ]);
    assert_eq!(report["depth"], 7);

    // The text table has a row per configuration and the category table.
    let text = env.ok(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--grid",
        "k=20,60",
        "--grid",
        "decay=on,off",
    ]);
    for row in [
        "k=20 decay=on",
        "k=20 decay=off",
        "k=60 decay=on",
        "k=60 decay=off",
        "Recall@10 by category",
        "any@5   all@5",
    ] {
        assert!(text.contains(row), "{row} missing from\n{text}");
    }
}

/// The examples `oro-mem eval --features FILE` wrote, one JSON object a line.
fn examples_in(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn eval_fits_a_relevance_model_and_scores_it_on_held_out_namespaces() {
    let env = Env::new();
    let dataset = fixture("eval-mini");
    let features = env.dir.path().join("examples.jsonl");
    let report = env.eval_json(&[
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--set",
        "decay=off",
        "--fit-calibration",
        "--cross-validate",
        "--fit-without",
        "query_terms",
        "--features",
        features.to_str().unwrap(),
    ]);
    let run = &report["runs"][0];
    assert_eq!(
        run["queries"], 3,
        "every query scored once, by a model fitted without it"
    );
    let fitted = &run["fitted"];
    assert!(
        fitted["method"].as_str().unwrap().contains("namespace out"),
        "{fitted}"
    );
    let model = fitted["calibration"].as_object().unwrap();
    assert!(
        model.contains_key("intercept") && model.contains_key("coverage"),
        "{fitted}"
    );
    assert!(!model.contains_key("query_terms"), "left out: {fitted}");
    // The number of memories searched, a feature of the query, is left to the answerable
    // model unless the relevance model is told to read it too.
    assert!(!model.contains_key("memories"), "{fitted}");
    let fit_with = |feature| {
        [
            "--dataset",
            dataset.to_str().unwrap(),
            "--as-recalled",
            "--fit-calibration",
            "--fit-relevance-with",
            feature,
        ]
    };
    let with = env.eval_json(&fit_with("memories"));
    let fitted_with = &with["runs"][0]["fitted"];
    assert!(
        fitted_with["calibration"]
            .as_object()
            .unwrap()
            .contains_key("memories"),
        "{fitted_with}"
    );
    // A name that is no feature of the query is an error, not a model that ignores it.
    let out = env.run(&[&["eval"][..], &fit_with("memory")].concat());
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--fit-relevance-with memory: not a feature of the query"),
        "{}",
        stderr(&out)
    );
    // The examples written are those fitted on: a candidate each, labelled by the qrels.
    let lines = examples_in(&features);
    assert_eq!(fitted["examples"], lines.len(), "{fitted}");
    assert!(lines.iter().any(|e| e["relevant"] == true));
    assert!(lines
        .iter()
        .all(|e| e["group"].as_str().unwrap().ends_with("/a")
            || e["group"].as_str().unwrap().ends_with("/b")));

    // As text: the model fitted on everything, ready for the configuration file, which
    // takes it back.
    let text = env.ok(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--fit-calibration",
    ]);
    let section = &text[text.find("[recall.calibration.fts]").expect(&text)..];
    let section = &section[..section.find("\n\n").unwrap_or(section.len())];
    std::fs::write(env.dir.path().join(".oro").join("config.toml"), section).unwrap();
    assert!(env.ok(&["config"]).contains("[recall.calibration.fts]"));
    env.ok(&["recall", "anything", "--no-touch"]);
}

#[test]
fn eval_scores_settings_out_of_sample() {
    let env = Env::new();
    let dataset = fixture("eval-mini");
    let d = dataset.to_str().unwrap();
    // Leave one conversation (namespace) out: each of a and b is scored by the setting best
    // on the other. With one setting per mode, that is the in-sample figure, each query once.
    let report = env.eval_json(&["--dataset", d, "--set", "decay=off", "--cross-validate"]);
    let oos = report["out_of_sample"].as_array().unwrap();
    assert_eq!(oos.len(), 1);
    assert_eq!(oos[0]["mode"], "fts");
    assert_eq!(oos[0]["metric"], "ndcg@10");
    assert_eq!(oos[0]["queries"], 3);
    assert_eq!(oos[0]["ndcg_10"], report["runs"][0]["ndcg_10"]);
    let held: Vec<&str> = oos[0]["chosen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["held_out"].as_str().unwrap())
        .collect();
    assert_eq!(held, ["a", "b"]);

    // A grid: one choice per fold among the mode's settings, named in the text table.
    let text = env.ok(&[
        "eval",
        "--dataset",
        d,
        "--grid",
        "fusion=rrf",
        "--grid",
        "k=20,60",
        "--cross-validate",
        "--tune-metric",
        "recall@10",
    ]);
    assert!(
        text.contains("Out of sample") && text.contains("by recall@10"),
        "{text}"
    );
    assert!(
        text.contains("mode=fts (leave one namespace out)"),
        "{text}"
    );
    // One line per fold, or one for both when both chose the same setting.
    let per_fold = text.contains("    a: fusion=rrf k=") && text.contains("    b: fusion=rrf k=");
    assert!(
        per_fold || text.contains("    each of 2: fusion=rrf k="),
        "{text}"
    );

    // Train -> test: the table shows the tuning split, the out-of-sample row the split asked.
    let report = env.eval_json(&["--dataset", d, "--grid", "k=20,60", "--tune-on", "test"]);
    let oos = &report["out_of_sample"][0];
    assert_eq!(oos["method"], "chosen on test");
    assert_eq!(
        oos["chosen"][0]["label"], "k=20",
        "the first of equal settings"
    );
    assert_eq!(oos["ndcg_10"], report["runs"][0]["ndcg_10"]);

    for (args, says) in [
        (vec!["--tune-on", "train"], "train"),
        (vec!["--tune-metric", "speed"], "unknown metric"),
        (
            vec!["--cross-validate", "--tune-on", "test"],
            "cannot be used with",
        ),
    ] {
        let mut all = vec!["eval", "--dataset", d];
        all.extend(args);
        let out = env.run(&all);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(says), "{all:?}: {}", stderr(&out));
    }
}

#[test]
fn eval_counts_unrelated_queries_answered_with_nothing() {
    let env = Env::new();
    let dataset = fixture("eval-mini");
    // Another "dataset" about gardening: one question shares no word with eval-mini's
    // corpus, one shares "cargo" (one word of four, and the word a memory is about), one
    // "ruff" and "fix" with the memory on ruff.
    let other = env.dir.path().join("garden");
    std::fs::create_dir_all(other.join("qrels")).unwrap();
    std::fs::write(
        other.join("corpus.jsonl"),
        "{\"_id\": \"d1\", \"text\": \"Prune roses in late winter.\"}\n",
    )
    .unwrap();
    std::fs::write(
        other.join("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"when should roses be pruned\"}\n\
         {\"_id\": \"q2\", \"text\": \"cargo of compost for roses\"}\n\
         {\"_id\": \"q3\", \"text\": \"ruff fix for the compost sensor scripts\"}\n",
    )
    .unwrap();
    std::fs::write(
        other.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td1\t1\nq3\td1\t1\n",
    )
    .unwrap();
    let report = env.eval_json(&[
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--unrelated",
        other.to_str().unwrap(),
    ]);
    // The first two are answered with nothing, the third gets the memory on ruff.
    assert_eq!(report["unrelated"][1], 3);
    let empty = report["runs"][0]["unrelated_empty"].as_f64().unwrap();
    assert!((empty - 2.0 / 3.0).abs() < 1e-9, "{report}");
    // Fitted on as unrelated: each question's candidates, none relevant, none answerable;
    // checked on the same questions, which have no namespace to leave out, it says so.
    let features = env.dir.path().join("examples.jsonl");
    let out = env.run(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--as-recalled",
        "--fit-calibration",
        "--fit-unrelated",
        other.to_str().unwrap(),
        "--unrelated",
        other.to_str().unwrap(),
        "--features",
        features.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("in sample"), "{}", stderr(&out));
    let unrelated: Vec<serde_json::Value> = examples_in(&features)
        .into_iter()
        .filter(|e| e["group"] == "unrelated")
        .collect();
    assert!(
        unrelated.iter().any(|e| e["query"] == "q2"),
        "the question sharing \"cargo\" has candidates: {unrelated:?}"
    );
    assert!(unrelated
        .iter()
        .all(|e| e["relevant"] == false && e["answerable"] == false));
    // Ranking only returns 100 whatever the query: the check needs --as-recalled.
    let out = env.run(&[
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--unrelated",
        other.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--as-recalled"), "{}", stderr(&out));
}

#[test]
fn eval_refuses_bad_datasets_and_settings_clearly() {
    let env = Env::new();
    let dir = env.dir.path().join("broken");
    std::fs::create_dir_all(dir.join("qrels")).unwrap();
    std::fs::write(
        dir.join("corpus.jsonl"),
        "{\"_id\": \"d\", \"text\": \"x\"}\n{oops\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        "{\"_id\": \"q\", \"text\": \"x\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("qrels/test.tsv"), "q\td\t1\n").unwrap();
    let d = dir.to_str().unwrap();
    let mini = fixture("eval-mini");
    let mini = mini.to_str().unwrap();
    for (args, says) in [
        (vec!["eval", "--dataset", d], "corpus.jsonl:2"),
        (
            vec!["eval", "--dataset", d, "--split", "dev"],
            "corpus.jsonl:2",
        ),
        (
            vec!["eval", "--dataset", "/nonexistent"],
            "cannot read /nonexistent/corpus.jsonl",
        ),
        (vec!["eval", "--dataset", mini, "--split", "dev"], "dev.tsv"),
        (
            vec!["eval", "--dataset", mini, "--grid", "k=fast"],
            "number",
        ),
        (
            vec!["eval", "--dataset", mini, "--set", "colour=blue"],
            "unknown setting",
        ),
        (
            vec!["eval", "--dataset", mini, "--mode", "psychic"],
            "unknown mode",
        ),
    ] {
        let out = env.run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn eval_replays_edits_through_the_write_path_and_scores_its_decisions() {
    let env = Env::new();
    let pairs = env.dir.path().join("pairs.jsonl");
    let line = |id: &str, old: &str, new: &str, label: Option<&str>| {
        let mut v = serde_json::json!({"id": id, "old": old, "new": new, "repo": "r/r"});
        if let Some(label) = label {
            v["label"] = label.into();
        }
        v.to_string()
    };
    let judged = [
        line(
            "port",
            "The staging API runs on port 8080",
            "The staging API runs on port 9090",
            Some("update"),
        ),
        line(
            "typo",
            "Synchronize with the offical repository before coding",
            "Synchronize with the official repository before coding",
            Some("duplicate"),
        ),
        line(
            "other",
            "Deploys use pnpm workspaces",
            "The robot arm must be homed before each calibration run",
            Some("distinct"),
        ),
    ];
    std::fs::write(&pairs, judged.join("\n")).unwrap();
    let file = pairs.to_str().unwrap();
    let v = env.eval_json(&["--updates", file]);
    let decisions_of = |v: &serde_json::Value| -> Vec<(String, String)> {
        v["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["id"].as_str().unwrap().to_string(),
                    p["decision"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let decisions = decisions_of(&v);
    // What `remember` does with the same statements, one namespace a pair, in `user`.
    let remembered = |user: &Env, l: &str| -> (String, String) {
        let p: serde_json::Value = serde_json::from_str(l).unwrap();
        let id = p["id"].as_str().unwrap();
        let ns = ["--namespace", id];
        user.ok(&[&["remember", p["old"].as_str().unwrap()][..], &ns].concat());
        let out = user.ok(&[&["remember", p["new"].as_str().unwrap(), "--json"][..], &ns].concat());
        let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
        let decision = match outcome["outcome"].as_str().unwrap() {
            "inserted" => "distinct",
            "updated" => "update",
            "skipped" | "merged" => "duplicate",
            other => panic!("outcome {other}"),
        };
        (id.to_string(), decision.to_string())
    };
    let user = Env::new();
    let expected: Vec<(String, String)> = judged.iter().map(|l| remembered(&user, l)).collect();
    assert_eq!(decisions, expected);
    // Each pair in a store of its own: what `remember` does in a fresh store.
    let apart = env.eval_json(&["--updates", file, "--store-per-pair"]);
    assert_eq!(apart["store_per_pair"], true);
    assert_eq!(v["store_per_pair"], false);
    let fresh: Vec<(String, String)> = judged.iter().map(|l| remembered(&Env::new(), l)).collect();
    assert_eq!(decisions_of(&apart), fresh);
    // The new port supersedes the old (the same statement, its value changed), and the
    // unrelated statement is left alone.
    assert_eq!(decisions[0].1, "update");
    assert_eq!(decisions[2].1, "distinct");
    let share = |label: &str, decision: &str| {
        let of: Vec<_> = decisions
            .iter()
            .zip(["update", "duplicate", "distinct"])
            .filter(|(_, l)| *l == label)
            .collect();
        of.iter().filter(|((_, d), _)| *d == decision).count() as f64 / of.len() as f64
    };
    assert_eq!(v["by_label"]["update"]["update"], 1);
    assert_eq!(v["update_recall"], 1.0);
    assert_eq!(v["update_precision"], 1.0);
    assert_eq!(v["duplicates_caught"], share("duplicate", "duplicate"));
    assert_eq!(v["distinct_left_alone"], 1.0);
    let table = env.ok(&["eval", "--updates", file]);
    assert!(table.contains("3 pairs replayed, fts mode"), "{table}");
    assert!(table.contains("update recall 1.00"), "{table}");
    // The replay writes in a scratch store, not the project's.
    assert_eq!(env.count(), 0);

    // Unjudged pairs are replayed and counted.
    let unjudged = env.dir.path().join("unjudged.jsonl");
    std::fs::write(
        &unjudged,
        line("a", "Use tabs", "Use spaces for YAML files", None),
    )
    .unwrap();
    let v = env.eval_json(&["--updates", unjudged.to_str().unwrap()]);
    assert_eq!(v["pairs"][0]["label"], serde_json::Value::Null);
    assert!(v["update_recall"].is_null());

    // Bad input says where.
    let bad = env.dir.path().join("bad.jsonl");
    for (text, says) in [
        (
            format!("{}\n{{\"id\": \"b\", \"old\": \"x\"}}", judged[0]),
            "bad.jsonl:2",
        ),
        (
            format!("{}\n{}", judged[0], judged[0]),
            "\"port\" appears twice",
        ),
        (line("e", " ", "x", None), "empty statement"),
        (line("l", "x", "y", Some("rewrite")), "bad.jsonl:1"),
    ] {
        std::fs::write(&bad, text).unwrap();
        let out = env.run(&["eval", "--updates", bad.to_str().unwrap()]);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(says), "{says}: {}", stderr(&out));
    }
    let out = env.run(&["eval", "--updates", file, "--dataset", file]);
    assert!(
        !out.status.success(),
        "--updates and --dataset are one or the other"
    );
}

#[test]
fn eval_vector_and_hybrid_on_the_real_model_with_a_disk_cache() {
    let env = Env::new();
    let dataset = fixture("eval-mini");
    let cache = env.dir.path().join("cache").join("embeddings.sqlite");
    let args = [
        "eval",
        "--dataset",
        dataset.to_str().unwrap(),
        "--grid",
        "mode=fts,vector,hybrid",
        "--set",
        "decay=off",
        "--cache",
        cache.to_str().unwrap(),
        "--json",
    ];
    let first = env.run(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("(0 from cache, 6 by the model)"),
        "{}",
        stderr(&first)
    );
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let modes: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["fts", "vector", "hybrid"]);
    let pet = |run: usize, metric: &str| report["runs"][run]["by_category"]["2"][metric].clone();
    // The puppy is what the question means: the nearest by meaning, and found by hybrid,
    // where full-text search finds nothing.
    assert_eq!(pet(0, "recall_10"), 0.0);
    assert_eq!(pet(1, "mrr_10"), 1.0);
    assert_eq!(pet(2, "recall_10"), 1.0);

    let second = env.run(&args);
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("(6 from cache, 0 by the model)"),
        "{}",
        stderr(&second)
    );
    let again: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    for run in 0..3 {
        assert_eq!(
            again["runs"][run]["ndcg_10"], report["runs"][run]["ndcg_10"],
            "cached vectors give the same scores"
        );
    }
}

// ---- extract and merge ----

#[test]
fn extract_stores_markers_reports_malformed_ones_and_dedups_on_rerun() {
    let env = Env::new();
    let output = env.dir.path().join("agent.txt");
    std::fs::write(
        &output,
        "Fixed the lint job.\n\
         - [MEMORY] type=gotcha tags=python: ruff --fix must run before pyright\n\
         [MEMORY] type=bogus: this has an unknown type\n\
         [MEMORY] type=decision no colon\n\
         [MEMORY] type=pattern confidence=0.9: pin the toolchain in rust-toolchain.toml\n\
         Note: phrases are kept beside the markers.\n",
    )
    .unwrap();
    let file = output.to_str().unwrap();

    // --dry-run writes nothing.
    let dry = env.ok(&["extract", file, "--dry-run"]);
    assert!(dry.contains("found 3, rejected 2"), "{dry}");
    assert_eq!(env.count(), 0);

    // --strict refuses the whole output.
    let out = env.run(&["extract", file, "--strict"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("2 malformed [MEMORY] lines; nothing was stored"));
    assert_eq!(env.count(), 0);

    let out = env.run(&["extract", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("stored 3, merged 0, skipped 0, rejected 2"));
    let err = stderr(&out);
    assert!(
        err.contains("line 3: [MEMORY] not stored: unknown memory type \"bogus\""),
        "{err}"
    );
    assert!(
        err.contains("line 4: [MEMORY] not stored: expected ':'"),
        "{err}"
    );
    let list: Vec<serde_json::Value> = env
        .ok(&["memories", "list", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stored: Vec<(&str, &str, &str)> = list
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap(),
                m["source"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(stored.contains(&(
        "gotcha",
        "self_report",
        "ruff --fix must run before pyright"
    )));
    assert!(stored.contains(&(
        "pattern",
        "self_report",
        "pin the toolchain in rust-toolchain.toml"
    )));
    assert!(stored.contains(&(
        "lesson",
        "daemon_extracted",
        "phrases are kept beside the markers."
    )));

    // The same output again: everything is a duplicate.
    let again: serde_json::Value =
        serde_json::from_str(&env.ok(&["extract", file, "--json"])).unwrap();
    assert_eq!(
        (again["stored"].as_u64(), again["skipped"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(env.count(), 3);

    // Phrases, from standard input.
    let out = env.run_stdin(
        &["extract", "--tags", "ci"],
        b"I learned that the cache key must include Cargo.lock. Then lunch.\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let shown: serde_json::Value =
        serde_json::from_str(&env.ok(&["memories", "show", "4", "--json"])).unwrap();
    assert_eq!(shown["content"], "the cache key must include Cargo.lock.");
    assert_eq!(shown["source"], "daemon_extracted");
    assert_eq!(shown["confidence"], 0.5);
    assert_eq!(shown["tags"], serde_json::json!(["ci"]));

    let out = env.run(&["extract", "no-such-file.txt"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("cannot read no-such-file.txt"),
        "{}",
        stderr(&out)
    );
}

/// Memory `id`'s embedding in `env`'s store, as floats.
fn vector_of(env: &Env, id: i64) -> Vec<f32> {
    let blob: Vec<u8> = rusqlite::Connection::open(env.db())
        .unwrap()
        .query_row("SELECT embedding FROM memories WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    blob.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn forgetting_or_archiving_a_memory_reembeds_the_next_of_its_session() {
    let run = [
        "ruff --fix must run before pyright, or pyright reports the unused imports",
        "PostgreSQL refuses to run as root: create a user for the server",
        "the deploy script waits for the lint job",
    ];
    let env = hybrid_env();
    for text in run {
        env.ok(&["remember", text, "--session", "run1"]);
    }
    // The vectors the last memory should have: written after the first alone, or alone.
    let after_first = hybrid_env();
    for text in [run[0], run[2]] {
        after_first.ok(&["remember", text, "--session", "run1"]);
    }
    let alone = hybrid_env();
    alone.ok(&["remember", run[2], "--session", "run1"]);
    let was = vector_of(&env, 3);
    assert!(cosine(&was, &vector_of(&after_first, 2)) < 0.999);

    assert_eq!(env.ok(&["memories", "forget", "2"]), "forgot 2\n");
    assert_eq!(embedded(&env), 2, "every memory left has its vector");
    let now = vector_of(&env, 3);
    assert!(
        cosine(&now, &vector_of(&after_first, 2)) > 0.9999,
        "the last memory is embedded after the first: {}",
        cosine(&now, &vector_of(&after_first, 2))
    );

    let out = env.run(&["memories", "forget", "--archive", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "nothing is left for `oro-mem embed`");
    assert!(cosine(&vector_of(&env, 3), &vector_of(&alone, 1)) > 0.9999);

    // In FTS mode the memory waits for `oro-mem embed`, which gives it the same vector.
    let fts = hybrid_env();
    for text in run {
        fts.ok(&["remember", text, "--session", "run1"]);
    }
    std::fs::write(
        fts.dir.path().join(".oro").join("config.toml"),
        "mode = \"fts\"\n",
    )
    .unwrap();
    fts.ok(&["memories", "forget", "2"]);
    assert_eq!(embedded(&fts), 1, "the last memory's vector is dropped");
    fts.ok(&["embed"]);
    assert_eq!(embedded(&fts), 2);
    assert!(cosine(&vector_of(&fts, 3), &vector_of(&after_first, 2)) > 0.9999);
}

#[test]
fn merge_between_hybrid_stores_reuses_the_workers_embeddings() {
    let worker = hybrid_env();
    for text in [
        "SQLite lock contention: a second writer waits for the first to commit",
        "Makefiles need tabs, not spaces, before recipe lines",
    ] {
        worker.ok(&["remember", text]);
    }
    // Negate the first memory's vector in the worker: the merged store can then only hold
    // the negated one if it copied it (the model would make the original).
    let w = worker.db();
    let conn = rusqlite::Connection::open(&w).unwrap();
    let blob: Vec<u8> = conn
        .query_row("SELECT embedding FROM memories WHERE id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    let negated: Vec<u8> = blob
        .chunks_exact(4)
        .flat_map(|c| (-f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_le_bytes())
        .collect();
    conn.execute(
        "UPDATE memories SET embedding = ?1 WHERE id = 1",
        [&negated],
    )
    .unwrap();
    drop(conn);

    let main = hybrid_env();
    main.ok(&["remember", "Run rustfmt before committing Rust code"]);
    let out: serde_json::Value =
        serde_json::from_str(&main.ok(&["merge", w.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        (out["copied"].as_i64(), out["embeddings_reused"].as_i64()),
        (Some(2), Some(2))
    );
    assert_eq!(
        out["reembedded"], 0,
        "no sessions: no memory follows another"
    );
    let vector = |db: &Path, content: &str| -> Vec<u8> {
        rusqlite::Connection::open(db)
            .unwrap()
            .query_row(
                "SELECT embedding FROM memories WHERE content LIKE ?1 || '%'",
                [content],
                |r| r.get(0),
            )
            .unwrap()
    };
    assert_eq!(vector(&main.db(), "SQLite lock"), negated);
    assert_eq!(vector(&main.db(), "Makefiles"), vector(&w, "Makefiles"));
}

#[test]
fn merged_memories_of_a_session_get_the_vectors_of_a_store_written_in_order() {
    let line = |text: &str, at: &str| {
        format!(
            "{{\"content\": \"{text}\", \"type\": \"lesson\", \"session\": \"run1\", \
             \"created_at\": \"{at}\"}}\n"
        )
    };
    let a = line(
        "ruff --fix must run before pyright, or pyright reports the unused imports",
        "2026-01-01T10:00:00Z",
    );
    let c = line(
        "PostgreSQL refuses to run as root: create a user for the server",
        "2026-01-01T11:00:00Z",
    );
    let b = line(
        "the deploy script waits for the lint job",
        "2026-01-01T12:00:00Z",
    );
    let import = |env: &Env, lines: &[&str]| {
        let path = env.dir.path().join("memories.jsonl");
        std::fs::write(&path, lines.concat()).unwrap();
        env.ok(&["import", path.to_str().unwrap()]);
    };
    // The worker wrote the first and the last of the run, this store the middle one.
    let worker = hybrid_env();
    import(&worker, &[&a, &b]);
    let main = hybrid_env();
    import(&main, &[&c]);
    let in_order = hybrid_env();
    import(&in_order, &[&a, &c, &b]);

    let out: serde_json::Value =
        serde_json::from_str(&main.ok(&["merge", worker.db().to_str().unwrap(), "--json"]))
            .unwrap();
    assert_eq!(
        (out["copied"].as_i64(), out["embeddings_reused"].as_i64()),
        (Some(2), Some(2))
    );
    // The stored memory now follows a copied one; the last copied one follows both.
    assert_eq!(out["reembedded"], 2, "{out}");
    assert_eq!(embedded(&main), 3);
    for (here, there, what) in [(1, 2, "the middle"), (3, 3, "the last")] {
        let cos = cosine(&vector_of(&main, here), &vector_of(&in_order, there));
        assert!(cos > 0.9999, "{what} memory: cosine {cos}");
    }
    assert!(
        cosine(&vector_of(&worker, 2), &vector_of(&in_order, 3)) < 0.999,
        "the worker's vector of the last memory was made with other memories before it"
    );
}

#[test]
fn merge_copies_what_is_missing_once_even_from_an_older_schema() {
    let main = Env::new();
    main.ok(&[
        "remember",
        "shared lesson about retries",
        "--type",
        "lesson",
    ]);

    // A worker store at schema version 1 (before the full-text index), written by hand.
    let worker = main.dir.path().join("worker.db");
    {
        let conn = rusqlite::Connection::open(&worker).unwrap();
        conn.execute_batch(
            "CREATE TABLE memories (
                id INTEGER PRIMARY KEY, content TEXT NOT NULL, type TEXT NOT NULL,
                tags TEXT NOT NULL DEFAULT '[]', source TEXT NOT NULL DEFAULT 'manual',
                bead_id TEXT, worker_id TEXT, namespace TEXT NOT NULL DEFAULT 'default',
                metadata TEXT NOT NULL DEFAULT '{}', confidence REAL NOT NULL DEFAULT 0.8,
                pinned INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'active',
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                access_count INTEGER NOT NULL DEFAULT 0, last_accessed INTEGER,
                fts_text TEXT, embedding BLOB, embedding_model TEXT, embedding_dim INTEGER);
             PRAGMA user_version = 1;
             INSERT INTO memories (content, type, worker_id, metadata, confidence, created_at,
                 updated_at, access_count, last_accessed)
             VALUES ('tokio tasks must not block the runtime thread', 'gotcha', 'w1',
                 '{\"repo\": \"api\"}', 0.65, 1700000000, 1700000000, 4, 1700000100),
                ('shared lesson about retries', 'lesson', 'w1', '{}', 0.8, 1700000000,
                 1700000000, 0, NULL);",
        )
        .unwrap();
    }
    let w = worker.to_str().unwrap();
    let dry: serde_json::Value =
        serde_json::from_str(&main.ok(&["merge", w, "--dry-run", "--json"])).unwrap();
    assert_eq!(dry["would_add"], 1);
    assert_eq!(main.count(), 1);

    let first: serde_json::Value = serde_json::from_str(&main.ok(&["merge", w, "--json"])).unwrap();
    assert_eq!(first["read"], 2);
    assert_eq!(first["already_present"], 1);
    assert_eq!(first["copied"], 1);
    assert_eq!(main.count(), 2);
    // Without counting this read: what the merge copied.
    let m: serde_json::Value =
        serde_json::from_str(&main.ok(&["memories", "show", "2", "--json", "--no-touch"])).unwrap();
    assert_eq!(
        m["content"],
        "tokio tasks must not block the runtime thread"
    );
    assert_eq!(m["created_at"], "2023-11-14T22:13:20Z");
    assert_eq!(m["confidence"], 0.65);
    assert_eq!(m["access_count"], 4);
    assert_eq!(m["worker_id"], "w1");
    assert_eq!(m["metadata"]["repo"], "api");

    // Again: nothing new, even with dedup off.
    std::fs::write(
        main.dir.path().join(".oro").join("config.toml"),
        "[dedup]\nenabled = false\n",
    )
    .unwrap();
    let second: serde_json::Value =
        serde_json::from_str(&main.ok(&["merge", w, "--json"])).unwrap();
    assert_eq!(second["already_present"], 2);
    assert_eq!(second["copied"], 0);
    assert_eq!(main.count(), 2);

    // The worker store was only read.
    let conn = rusqlite::Connection::open(&worker).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 1);

    for (args, says) in [
        (vec!["merge", "missing.db"], "no database at missing.db"),
        (vec!["merge", ".oro/state.db"], "is this store"),
    ] {
        let out = main.run(&args);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

/// Starts `oro-mem serve` for `env`'s store, its log in `log`, and waits for its socket.
fn start_server(env: &Env, log: &Path) -> std::process::Child {
    let socket = env.dir.path().join(".oro").join("state.db.sock");
    let child = env
        .cmd(&["serve"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(log).unwrap().contains("serving") {
        assert!(
            started.elapsed().as_secs() < 60,
            "the server did not start: {}",
            std::fs::read_to_string(log).unwrap()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(socket.exists());
    child
}

#[test]
fn a_warm_server_answers_recall_and_inject_as_they_would_and_steps_aside_when_gone() {
    let env = Env::new();
    for text in [
        "ruff --fix must run before pyright",
        "pyright needs the venv activated",
        "the deploy script waits for the lint job",
    ] {
        env.ok(&["remember", text]);
    }
    let log = env.dir.path().join("serve.log");
    let served = |log: &Path, what: &str| {
        std::fs::read_to_string(log)
            .unwrap()
            .matches(&format!("oro-mem: {what} in"))
            .count()
    };
    let mut server = start_server(&env, &log);
    let args = ["recall", "venv lint", "--no-touch", "--json"];
    let warm = env.ok(&args);
    assert_eq!(served(&log, "recall"), 1, "the server answered");
    let alone = stdout(
        &env.cmd(&args)
            .env("ORO_MEM_SERVER", "off")
            .output()
            .unwrap(),
    );
    assert_eq!(
        served(&log, "recall"),
        1,
        "ORO_MEM_SERVER=off answers alone"
    );
    assert_eq!(warm, alone, "the same answer either way");
    assert_eq!(result_ids(&serde_json::from_str(&warm).unwrap()).len(), 2);

    // Standard input is handed over, and so are the exit status and stderr of an error.
    let out = env.run_stdin(&["inject", "--task", "-", "--no-touch"], b"pyright venv");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("## Relevant Memories"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("venv"));
    assert_eq!(served(&log, "inject"), 1);
    let out = env.run(&["recall", "x", "--since", "yesterday-ish"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    assert_eq!(served(&log, "recall"), 2);

    // A changed configuration file is read again; another one is not the server's.
    let config = env.dir.path().join(".oro").join("config.toml");
    std::fs::write(&config, "[recall]\nmax_results = 1\n").unwrap();
    let v: serde_json::Value = serde_json::from_str(&env.ok(&args)).unwrap();
    assert_eq!(result_ids(&v).len(), 1, "{v}");
    let other = env.dir.path().join("other.toml");
    std::fs::write(&other, "[recall]\nmax_results = 3\n").unwrap();
    let mut with_other = args.to_vec();
    with_other.extend(["--config", other.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&env.ok(&with_other)).unwrap();
    assert_eq!(
        result_ids(&v).len(),
        2,
        "answered here with its own configuration: {v}"
    );
    assert!(std::fs::read_to_string(&log).unwrap().contains("declined"));

    // One server per store.
    let out = env.run(&["serve"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("already serves"), "{}", stderr(&out));

    // Stopped, it removes its socket; killed, it leaves one nobody answers on, which
    // clients pass over and the next server replaces.
    let socket = env.dir.path().join(".oro").join("state.db.sock");
    let killed = Command::new("kill")
        .arg(server.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    server.wait().unwrap();
    assert!(!socket.exists(), "SIGTERM removes the socket");
    let mut server = start_server(&env, &log);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(socket.exists(), "SIGKILL leaves the socket");
    let v: serde_json::Value = serde_json::from_str(&env.ok(&args)).unwrap();
    assert_eq!(result_ids(&v).len(), 1, "answered here: {v}");
    let mut server = start_server(&env, &log);
    env.ok(&args);
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn a_warm_server_serves_eight_clients_at_once_and_outlives_a_broken_one() {
    const NAMES: [&str; 8] = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    // Eight statements, none a rewording of another: in a store this small each word weighs
    // alike, and two that differ only by a name are duplicates.
    const LEARNED: [&str; 8] = [
        "the release needs a signed tag",
        "flaky tests retry twice on CI",
        "the cache lives under target/tmp",
        "migrations run inside one transaction",
        "docs deploy from the main branch",
        "fixtures are regenerated with make fixtures",
        "the API listens on port 4000",
        "logs rotate every night at midnight",
    ];
    let env = Env::new();
    env.ok(&["remember", "ruff --fix must run before pyright"]);
    let log = env.dir.path().join("serve.log");
    let mut server = start_server(&env, &log);
    // A client that dies halfway through its request, and one that sends garbage.
    let socket = env.dir.path().join(".oro").join("state.db.sock");
    {
        let mut half = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        half.write_all(br#"{"db": "/x", "args": ["rec"#).unwrap();
    }
    {
        let mut junk = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        junk.write_all(b"not json\n").unwrap();
    }
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let env = &env;
        let handles: Vec<_> = NAMES
            .iter()
            .zip(LEARNED)
            .map(|(name, learned)| {
                scope.spawn(move || {
                    let text = format!("client {name} learned that {learned}");
                    let stored = env.run(&["remember", &text, "--type", "lesson"]);
                    let found = env.run(&["recall", name, "--no-touch"]);
                    (stored, found)
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                let (a, b) = h.join().unwrap();
                [a, b]
            })
            .collect()
    });
    for out in &outputs {
        assert!(out.status.success(), "{}", stderr(out));
    }
    for (i, name) in NAMES.iter().enumerate() {
        let found = stdout(&outputs[2 * i + 1]);
        assert!(found.contains(&format!("client {name}")), "{found}");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches("oro-mem: remember in").count(), 8, "{text}");
    assert_eq!(text.matches("oro-mem: recall in").count(), 8, "{text}");
    assert_eq!(env.ok(&["memories"]).lines().count(), 9);
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn an_idle_server_stops_and_removes_its_socket() {
    let env = Env::new();
    env.ok(&["remember", "ruff --fix must run before pyright"]);
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "[serve]\nidle_minutes = 0.02\n",
    )
    .unwrap();
    let log = env.dir.path().join("serve.log");
    let mut server = start_server(&env, &log);
    let started = std::time::Instant::now();
    // A request keeps it up a while longer.
    env.ok(&["recall", "ruff", "--no-touch"]);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed().as_secs() < 30, "the server did not stop");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    assert!(
        started.elapsed().as_secs_f64() >= 1.2,
        "{:?}",
        started.elapsed()
    );
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("oro-mem: recall in"), "{text}");
    assert!(text.contains("serve.idle_minutes"), "{text}");
    assert!(!env.dir.path().join(".oro").join("state.db.sock").exists());
    // The commands answer alone again.
    assert!(env.ok(&["recall", "ruff", "--no-touch"]).contains("ruff"));
}

/// On a full disk, reading still works: counting the access is a write, and its failure is
/// said once on stderr, not the read's failure; a command whose stderr is on the full disk
/// does not panic. Run on a 1 MiB tmpfs in a mount namespace of its own (`unshare -m`, which
/// needs root or user namespaces: skipped, saying so, where neither is there).
#[test]
fn a_full_disk_does_not_stop_a_read() {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    let script = r#"
        set -u
        mount -t tmpfs -o size=1m tmpfs "$2" || exit 77
        cd "$2"
        "$1" init >/dev/null && "$1" remember "SQLite busy_timeout avoids database is locked" >/dev/null || exit 78
        # Full, but for room for SQLite's shared-memory index (32 KiB), as when the disk
        # filled up while the store was in use.
        dd if=/dev/zero of=fill bs=4k 2>/dev/null
        truncate -s -32K fill
        "$1" recall "busy timeout"; echo "recall: $?"
        "$1" inject --task "busy timeout"; echo "inject: $?"
        "$1" memories show 1 >/dev/null; echo "show: $?"
        "$1" recall "busy timeout" 2>stderr-on-the-full-disk >/dev/null; echo "stderr full: $?"
    "#;
    let out = Command::new("unshare")
        .args(["-m", "sh", "-c", script, "sh", BIN, disk.to_str().unwrap()])
        .output();
    let out = match out {
        Ok(out) if matches!(out.status.code(), Some(77)) || !out.status.success() => {
            let why = String::from_utf8_lossy(&out.stderr);
            assert_ne!(
                out.status.code(),
                Some(78),
                "setting up the store failed: {why}"
            );
            eprintln!("a_full_disk_does_not_stop_a_read: skipped, no mount namespace: {why}");
            return;
        }
        Ok(out) => out,
        Err(e) => {
            eprintln!("a_full_disk_does_not_stop_a_read: skipped, no unshare: {e}");
            return;
        }
    };
    let (said, err) = (stdout(&out), stderr(&out));
    for line in ["recall: 0", "inject: 0", "show: 0", "stderr full: 0"] {
        assert!(said.contains(line), "{line}: {said}\n{err}");
    }
    assert_eq!(said.matches("busy_timeout avoids").count(), 2, "{said}");
    assert_eq!(
        err.matches("access counts are not updated").count(),
        2,
        "once per read: {err}"
    );
    assert!(err.contains("the use is not counted"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A store file replaced under a running server (`mv new.db .oro/state.db`) is the one served
/// from then on: the server notices the path names another file and opens it, and nothing
/// written after the move goes to the old one. Removed, the server stops, and the commands
/// answer by themselves.
#[test]
fn a_server_serves_the_file_its_path_names_now() {
    let env = Env::new();
    env.ok(&["remember", "old store: first memory"]);
    let log = env.dir.path().join("serve.log");
    let mut server = start_server(&env, &log);
    env.ok(&["remember", "old store: second memory, through the server"]);
    let other = Env::new();
    other.ok(&["remember", "new store: its own memory"]);
    std::fs::rename(other.db(), env.db()).unwrap();
    let out = env.run(&["remember", "new store: written after the move"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let served = std::fs::read_to_string(&log).unwrap();
    assert!(
        served.contains("was replaced; serving the new file"),
        "{served}"
    );
    let alone = |args: &[&str]| {
        let out = env.cmd(args).env("ORO_MEM_SERVER", "off").output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let listed = alone(&["memories", "list"]);
    assert!(listed.contains("written after the move"), "{listed}");
    assert!(listed.contains("its own memory"), "{listed}");
    assert!(!listed.contains("old store"), "{listed}");
    // Recall through the server reads the new file too.
    let found = env.ok(&["recall", "written after the move", "--no-touch"]);
    assert!(found.contains("new store"), "{found}");
    // Nothing of the old file's write-ahead log was read into the new one.
    let check: String = rusqlite::Connection::open(env.db())
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");

    // Removed: the server stops, and the next command answers by itself.
    std::fs::remove_file(env.db()).unwrap();
    let out = env.run(&["recall", "memory"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no store at"), "{}", stderr(&out));
    let stopped = server.wait().unwrap();
    assert!(stopped.success());
    let served = std::fs::read_to_string(&log).unwrap();
    assert!(served.contains("cannot be served"), "{served}");
}

/// A stalled server never runs a request its client gave up on: the client answers by itself
/// (saying the server did not take it in time), and the server, resumed, finds no `go` and
/// drops the request it finally reads. Each memory is stored once.
#[test]
fn a_stalled_server_never_runs_a_request_twice() {
    let env = Env::new();
    let log = env.dir.path().join("serve.log");
    let mut server = start_server(&env, &log);
    let signal = |name: &str| {
        let sent = Command::new("kill")
            .args([name, &server.id().to_string()])
            .status();
        assert!(sent.is_ok_and(|s| s.success()), "kill {name}");
    };
    signal("-STOP");
    let out = env
        .cmd(&[
            "remember",
            "kq1 stored while the server slept",
            "--no-dedup",
        ])
        .env("ORO_MEM_SERVER_TIMEOUT", "0.5")
        .output()
        .unwrap();
    signal("-CONT");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("inserted"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("did not take the request (no answer within 0.5 s)"),
        "{}",
        stderr(&out)
    );
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap()
        .contains("gave up on was not run")
    {
        assert!(
            started.elapsed().as_secs() < 30,
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The server serves the next request as usual, and the memory is there once.
    let out = env.run(&["remember", "kq2 stored by the server", "--no-dedup"]);
    assert!(
        out.status.success() && stderr(&out).is_empty(),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.count(), 2);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("remember in"));
}

/// The servers started in the background for `env`'s store: their process ids (a server
/// started by a command runs where the command ran, and is named `oro-mem serve --auto`).
fn background_servers(env: &Env) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
            cmdline.ends_with(b"serve\0--auto\0") && cwd.as_deref() == Some(env.dir.path())
        })
        .collect()
}

/// Whether process `pid` runs: not gone, and not a zombie whose parent has yet to reap it
/// (a server outlives the command that started it, and is then the init process's child).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.starts_with(" Z"))
    })
}

/// Waits up to 30 s for server `pid` of `env`'s store to end: not running, and its files
/// closed (the store's lock free: the last of its threads may close them after the process
/// shows as a zombie).
#[track_caller]
fn wait_for_end(env: &Env, pid: u32) {
    let lock = env.dir.path().join(".oro").join("state.db.serve.lock");
    let started = std::time::Instant::now();
    while running(pid) || std::fs::File::open(&lock).unwrap().try_lock().is_err() {
        assert!(started.elapsed().as_secs() < 30, "server {pid} did not end");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits up to 60 s for `env`'s store to have its socket and exactly `n` background servers
/// (a server that lost the race for the store's lock ends at once).
#[track_caller]
fn wait_for_servers(env: &Env, n: usize) -> Vec<u32> {
    let socket = env.dir.path().join(".oro").join("state.db.sock");
    let started = std::time::Instant::now();
    loop {
        let servers = background_servers(env);
        if servers.len() == n && (n == 0 || socket.exists()) {
            return servers;
        }
        assert!(
            started.elapsed().as_secs() < 60,
            "{} background servers, not {n}; socket {}; log: {}",
            servers.len(),
            socket.exists(),
            std::fs::read_to_string(env.dir.path().join(".oro").join("state.db.serve.log"))
                .unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_hybrid_command_starts_one_server_in_the_background() {
    let env = hybrid_env();
    for text in [
        "SQLite lock contention: a second writer waits for the first to commit",
        "Run rustfmt before committing Rust code",
        "Makefiles need tabs, not spaces, before recipe lines",
    ] {
        env.ok(&["remember", text, "--type", "gotcha"]);
    }
    assert!(background_servers(&env).is_empty(), "manual: none started");
    let args = ["recall", "database writers waiting", "--no-touch", "--json"];
    let alone = stdout(
        &env.cmd(&args)
            .env("ORO_MEM_SERVER", "off")
            .output()
            .unwrap(),
    );
    assert!(alone.contains("SQLite"), "{alone}");
    let auto = |bin: &Path| {
        let out = env
            .cmd_of(bin, &args)
            .env_remove("ORO_MEM_SERVER")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        eprintln!("{}", stderr(&out));
        stdout(&out)
    };

    // Two first calls at once answer by themselves and leave one server.
    let firsts: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| auto(Path::new(BIN))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for first in &firsts {
        assert_eq!(first, &alone);
    }
    let server = wait_for_servers(&env, 1)[0];
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert_eq!(background_servers(&env), [server], "one server");
    let log = env.dir.path().join(".oro").join("state.db.serve.log");
    let logged = || std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged().matches("model loaded").count(), 1, "{}", logged());

    // The next call is the server's, with the same answer.
    assert_eq!(auto(Path::new(BIN)), alone);
    assert_eq!(
        logged().matches("oro-mem: recall in").count(),
        1,
        "{}",
        logged()
    );
    let out = env.run(&["serve"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("already serves"), "{}", stderr(&out));

    // Another build of oro-mem is declined and stops the server; its next call starts one of
    // its own build.
    let copy = env.dir.path().join("oro-mem-copy");
    copy_binary(&copy);
    assert_eq!(auto(&copy), alone);
    wait_for_end(&env, server);
    assert_eq!(
        logged().matches("oro-mem: recall in").count(),
        1,
        "declined"
    );
    assert_eq!(auto(&copy), alone);
    let server = wait_for_servers(&env, 1)[0];
    assert_eq!(
        std::fs::read_link(format!("/proc/{server}/exe")).unwrap(),
        copy.canonicalize().unwrap()
    );
    assert!(logged().contains("started by a command"), "{}", logged());

    // A server killed costs the next call nothing but the time to answer it here.
    let killed = Command::new("kill")
        .args(["-KILL", &server.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    wait_for_end(&env, server);
    assert_eq!(auto(Path::new(BIN)), alone);
    let server = wait_for_servers(&env, 1)[0];
    assert_eq!(auto(Path::new(BIN)), alone);

    // Gone with its store.
    std::fs::remove_file(env.db()).unwrap();
    wait_for_end(&env, server);
}

#[test]
fn no_server_is_started_in_fts_mode_or_when_turned_off() {
    let env = Env::new();
    env.ok(&["remember", "Run rustfmt before committing Rust code"]);
    let config = env.dir.path().join(".oro").join("config.toml");
    for (config_text, switch) in [
        ("mode = \"fts\"\n", None),
        ("mode = \"hybrid\"\n[serve]\nauto_start = false\n", None),
        ("mode = \"hybrid\"\n", Some("off")),
        ("mode = \"hybrid\"\n", Some("MANUAL")),
    ] {
        std::fs::write(&config, config_text).unwrap();
        let mut cmd = env.cmd(&["recall", "rustfmt"]);
        match switch {
            Some(value) => cmd.env("ORO_MEM_SERVER", value),
            None => cmd.env_remove("ORO_MEM_SERVER"),
        };
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains("rustfmt"));
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            background_servers(&env).is_empty(),
            "{config_text} {switch:?}"
        );
    }
}

#[test]
fn a_warm_server_writes_as_the_commands_would() {
    // The same commands in two stores, one with a server, one without: the same output, the
    // same exit status, the same memories.
    let served = Env::new();
    let alone = Env::new();
    let log = served.dir.path().join("serve.log");
    let mut server = start_server(&served, &log);
    let notes = "did some work\n[MEMORY] type=gotcha: pyright needs the venv activated\n";
    for env in [&served, &alone] {
        std::fs::write(env.dir.path().join("notes.txt"), notes).unwrap();
    }
    type Step<'a> = (&'a [&'a str], Option<&'a [u8]>);
    let steps: &[Step<'_>] = &[
        (
            &[
                "remember",
                "ruff --fix must run before pyright",
                "--type",
                "lesson",
            ],
            None,
        ),
        (
            &["remember", "ruff --fix must run before pyright", "--strict"],
            None,
        ),
        (
            &["remember", "-", "--json"],
            Some(b"the deploy script waits for the lint job\n"),
        ),
        (&["remember", "", "--type", "lesson"], None),
        (&["extract", "notes.txt"], None),
        (
            &["extract", "-", "--dry-run"],
            Some(b"[MEMORY] type=lesson: cache keys carry the schema\n"),
        ),
        (&["extract", "missing.txt"], None),
        (&["memories"], None),
        (&["memories", "pin", "1"], None),
        (&["memories", "forget", "2", "--archive"], None),
        (&["memories", "list", "--json", "--sort", "oldest"], None),
        (&["memories", "show", "99"], None),
        (&["memories", "consolidate", "--dry-run"], None),
    ];
    for (args, input) in steps {
        let [a, b] = [&served, &alone].map(|env| {
            let mut c = env.cmd(args);
            if std::ptr::eq(env, &alone) {
                c.env("ORO_MEM_SERVER", "off");
            }
            output_with_stdin(&mut c, input.unwrap_or_default())
        });
        // Timestamps in --json lists differ by when each store was written.
        let same = |o: &Output| -> (Option<i32>, String, String) {
            let out = stdout(o)
                .lines()
                .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
                    Ok(serde_json::Value::Object(mut m)) => {
                        for k in ["created_at", "updated_at", "last_accessed"] {
                            m.remove(k);
                        }
                        serde_json::Value::Object(m).to_string()
                    }
                    _ => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n");
            (o.status.code(), out, stderr(o))
        };
        assert_eq!(same(&a), same(&b), "{args:?}");
    }
    // A relative file is read from the client's directory, not the server's.
    let sub = served.dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(
        sub.join("more.txt"),
        "[MEMORY] type=lesson: lint before deploy\n",
    )
    .unwrap();
    let out = served
        .cmd(&["extract", "more.txt"])
        .current_dir(&sub)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("stored 1"), "{}", stdout(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    for (what, n) in [("remember", 4), ("extract", 4), ("memories", 6)] {
        assert_eq!(
            text.matches(&format!("oro-mem: {what} in")).count(),
            n,
            "{what}: {text}"
        );
    }
    // Both stores hold the same memories.
    std::fs::create_dir(alone.dir.path().join("sub")).unwrap();
    std::fs::write(
        alone.dir.path().join("sub").join("more.txt"),
        "[MEMORY] type=lesson: lint before deploy\n",
    )
    .unwrap();
    alone.ok(&["extract", "sub/more.txt"]);
    for status in ["active", "archived"] {
        let list = |env: &Env| env.ok(&["memories", "--sort", "oldest", "--status", status]);
        assert_eq!(list(&served), list(&alone), "{status}");
        assert!(!list(&alone).is_empty(), "{status}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn a_limit_out_of_range_is_refused_naming_the_flag_or_key() {
    let env = Env::new();
    env.ok(&["remember", "the WAL file grows until a checkpoint"]);
    for bad in ["0", "101", "500"] {
        let out = env.run(&["recall", "wal", "--limit", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = stderr(&out);
        assert!(err.contains("--limit") && err.contains("1..=100"), "{err}");
    }
    assert_eq!(
        result_ids(&env.recall_json(&["wal", "--limit", "100"])),
        [1]
    );
    std::fs::write(
        env.dir.path().join(".oro").join("config.toml"),
        "[recall]\nmax_results = 500\n",
    )
    .unwrap();
    let out = env.run(&["recall", "wal"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("recall.max_results must be a whole number from 1 to 100"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_design_notes_spellings_work() {
    let env = Env::new();
    let two_years_ago = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 2 * 365 * 86_400) as i64;
    let old = oro_mem_core::Timestamp(two_years_ago).to_string();
    let file = env.dir.path().join("m.jsonl");
    std::fs::write(
        &file,
        format!(
            "{{\"content\": \"bump the cache key version\", \"type\": \"lesson\", \"tags\": [\"cache\"], \"created_at\": \"{old}\"}}\n\
             {{\"content\": \"bump the cache key version when the schema of cached rows changes\", \"type\": \"lesson\"}}\n"
        ),
    )
    .unwrap();
    env.ok(&["import", file.to_str().unwrap(), "--no-dedup"]);
    // Bare `memories` lists; `--tag` is `--tags`; `memories consolidate` is `consolidate`.
    assert_eq!(env.ok(&["memories"]).lines().count(), 2);
    let tagged = env.ok(&["memories", "--tag", "cache"]);
    assert!(
        tagged.lines().count() == 1 && tagged.contains(" 2y "),
        "{tagged}"
    );
    assert!(env
        .ok(&["memories", "consolidate", "--dry-run"])
        .contains("dry run"));
    // The shorter, older memory is first, unless older memories count less: after 24
    // half-lives of 30 days, it is under the minimum score.
    let query = ["cache key version", "--no-touch"];
    assert_eq!(result_ids(&env.recall_json(&query)), [1, 2]);
    for decay in [&["--decay"][..], &["--decay-half-life", "30"]] {
        let mut decayed = query.to_vec();
        decayed.extend(decay);
        assert_eq!(result_ids(&env.recall_json(&decayed)), [2], "{decay:?}");
    }
    let mut slow = query.to_vec();
    slow.extend(["--decay-half-life", "36500"]);
    let v = env.recall_json(&slow);
    assert_eq!(result_ids(&v), [1, 2], "{v}");
    assert!(v["results"][0]["decay"].as_f64().unwrap() < 1.0, "{v}");
    let out = env.run(&["recall", "cache", "--decay-half-life", "0"]);
    assert!(
        stderr(&out).contains("--decay-half-life"),
        "{}",
        stderr(&out)
    );
    // MCP search takes decay and mode.
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[mcp_search(
            1,
            serde_json::json!({"query": "cache key version", "decay": true, "mode": "fts"}),
        )],
    );
    let found = mcp_tool_text(&answers, 1);
    assert_eq!(found["mode"], "fts", "{found}");
    assert_eq!(found["results"][0]["id"], 2, "{found}");
}

#[test]
fn memories_below_the_minimum_confidence_are_not_recalled_unless_asked_for() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "flaky: retry the upload twice",
        "--confidence",
        "0.2",
    ]);
    env.ok(&["remember", "the upload needs a token"]);
    assert_eq!(result_ids(&env.recall_json(&["upload", "--no-touch"])), [2]);
    let all = env.recall_json(&["upload", "--no-touch", "--min-confidence", "0"]);
    assert_eq!(result_ids(&all).len(), 2);
    assert_eq!(
        env.ok(&["memories", "list"]).lines().count(),
        2,
        "a filter of recall's"
    );
    let out = env.run(&["recall", "upload", "--min-confidence", "2"]);
    assert!(
        stderr(&out).contains("minimum confidence must be a number between 0 and 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn only_init_or_create_makes_a_store() {
    let env = Env::new();
    let typo = env.dir.path().join("stat.db");
    let typo_arg = typo.to_str().unwrap();
    let import = env.dir.path().join("one.jsonl");
    std::fs::write(&import, "{\"content\":\"imported\"}\n").unwrap();
    for args in [
        &["stats", "--db", typo_arg][..],
        &["recall", "x", "--db", typo_arg],
        &["memories", "list", "--db", typo_arg],
        &["inject", "--task", "x", "--db", typo_arg],
        &["remember", "a first memory", "--db", typo_arg],
        &["import", import.to_str().unwrap(), "--db", typo_arg],
        &["embed", "--db", typo_arg],
    ] {
        let out = env.run(args);
        assert!(!out.status.success(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("no store at {typo_arg}"))
                && err.contains("oro-mem init")
                && err.contains("--create"),
            "{err}"
        );
        assert!(!typo.exists(), "{args:?} made a store");
    }
    // The MCP server starts without one, and every call says how to make it.
    let (out, answers) = mcp_session(
        env.cmd(&["mcp", "--db", typo_arg]),
        &[serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_remember", "arguments": {"content": "stored by MCP"}},
        })
        .to_string()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no store at"), "{}", stderr(&out));
    let answer = answers.iter().find(|a| a["id"] == 1).expect("an answer");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("no store at") && text.contains("oro-mem init"),
        "{text}"
    );
    assert!(!typo.exists(), "the MCP server made a store");
    // --create makes one, where asked.
    env.ok(&["remember", "a first memory", "--db", typo_arg, "--create"]);
    assert!(typo.is_file());
    env.ok(&["remember", "a second memory", "--db", typo_arg]);
}

/// `init` below a project that has a store says so instead of hiding it with a nested one,
/// unless asked (`--nested`); in the project itself it finds the store it has.
#[test]
fn init_inside_a_project_does_not_hide_its_store() {
    let env = Env::new();
    env.ok(&["remember", "the project's own memory"]);
    let sub = env.dir.path().join("src").join("deep");
    std::fs::create_dir_all(&sub).unwrap();
    let out = env.cmd(&["init"]).current_dir(&sub).output().unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("already holds this project's store") && err.contains("--nested"),
        "{err}"
    );
    assert!(!sub.join(".oro").exists());
    // Below, the project's store still answers.
    let out = env
        .cmd(&["memories", "list"])
        .current_dir(&sub)
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("the project's own memory"),
        "{}",
        stdout(&out)
    );
    let out = env
        .cmd(&["init", "--nested"])
        .current_dir(&sub)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(sub.join(".oro").join("state.db").is_file());
    assert!(env.ok(&["init"]).starts_with("found "));
}

#[test]
fn the_english_model_gives_no_signal_for_cjk_text() {
    let env = hybrid_env();
    for text in [
        "数据库连接超时的时候要检查连接池",
        "日本語のテキストを検索する方法",
        "부산에서 회의가 있습니다",
        "the connection pool must be checked on database timeouts",
    ] {
        env.ok(&["remember", text]);
    }
    // Nothing matches the words of this query; its cosines mean nothing: nothing recalled.
    let v = env.recall_json(&["天气很好", "--no-touch"]);
    assert_eq!(result_ids(&v), Vec::<i64>::new(), "{v:#}");
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("does not cover"), "{v:#}");
    // A CJK query finds CJK memories by their words, the BM25 list alone.
    let v = env.recall_json(&["连接池", "--no-touch"]);
    assert_eq!(result_ids(&v), [1], "{v:#}");
    assert_eq!(v["answered_by"], "bm25_only", "{v:#}");
    // A query of mixed scripts: the CJK memory is ranked by its words alone, no cosine.
    let v = env.recall_json(&["连接池 connection pool", "--no-touch", "--explain"]);
    let ids = result_ids(&v);
    assert!(ids.contains(&1) && ids.contains(&4), "{v:#}");
    let cjk = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["memory"]["id"] == 1)
        .unwrap();
    let vector = cjk["lists"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "vector")
        .unwrap();
    assert_eq!(vector["score"], serde_json::Value::Null, "{v:#}");
    // ... and its relevance is estimated by its words alone, as in FTS mode: a missing cosine
    // is no evidence against it.
    let features = cjk["features"].as_object().unwrap();
    assert!(
        !features.contains_key("vector") && features.contains_key("coverage"),
        "{v:#}"
    );
}

fn hook_input(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/hooks")
            .join(name),
    )
    .unwrap()
}

#[test]
fn inject_reads_claude_codes_hooks() {
    let env = Env::new();
    env.ok(&[
        "remember",
        "ruff --fix must run before pyright",
        "--type",
        "gotcha",
    ]);
    env.ok(&["remember", "the deploy waits for the smoke tests"]);
    // UserPromptSubmit: the prompt is the task; stdout is the context Claude Code adds.
    let out = env.run_stdin(
        &["inject", "--hook", "claude", "--no-touch"],
        hook_input("user-prompt-submit.json").as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("## Relevant Memories\n"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("ruff --fix must run before pyright"));
    assert!(!stdout(&out).contains("deploy"), "{}", stdout(&out));
    // SessionStart: the last user message of the transcript.
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/transcript.jsonl");
    let start =
        hook_input("session-start.json").replace("TRANSCRIPT", transcript.to_str().unwrap());
    let out = env.run_stdin(
        &["inject", "--hook", "claude", "--no-touch"],
        start.as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("ruff --fix must run before pyright"),
        "{}",
        stdout(&out)
    );
    // A new session has nothing to go on: nothing is added.
    let fresh = hook_input("session-start.json").replace("TRANSCRIPT", "/nonexistent.jsonl");
    let out = env.run_stdin(&["inject", "--hook", "claude"], fresh.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    // Another event, or no JSON: a clear error, and nothing on stdout.
    let out = env.run_stdin(
        &["inject", "--hook", "claude"],
        br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash"}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not \"PreToolUse\""),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
    // --task and --hook exclude each other; one is needed.
    assert!(!env
        .run(&["inject", "--task", "x", "--hook", "claude"])
        .status
        .success());
    assert!(!env.run(&["inject"]).status.success());
}

/// The design notes' source weighting, as a boost rule in the configuration, and their
/// spatial sort, as a ranker: `--near PATH=x,y,z [--max-distance D]` on the command line and
/// in MCP search.
#[test]
fn boost_rules_and_a_point_rank_what_the_design_notes_rank() {
    let env = Env::new();
    for (content, meta) in [
        (
            "grasp the red cube with the wide gripper",
            r#"{"env": {"sim_or_real": "sim"}, "spatial": {"object_position": [0.1, 0.2, 0.0]}}"#,
        ),
        (
            "grasp the red cube from above, slowly, then lift it onto the tray",
            r#"{"env": {"sim_or_real": "real"}, "spatial": {"object_position": [0.9, 0.9, 0.0]}}"#,
        ),
        (
            "grasp any cube with force control",
            r#"{"spatial": {"object_position": "unknown"}}"#,
        ),
    ] {
        env.ok(&["remember", content, "--metadata", meta]);
    }
    // The order is the point: no relevance bar (the third, holding half the query, is near
    // the default one).
    let ids = |args: &[&str]| {
        let mut a = vec!["grasp the red cube", "--no-touch", "--min-relevance", "0"];
        a.extend_from_slice(args);
        result_ids(&env.recall_json(&a))
    };
    assert_eq!(ids(&[]), [1, 2, 3]);
    let plain = env.ok(&["recall", "grasp the red cube", "--no-touch", "--explain"]);
    assert!(
        !plain.contains("spatial"),
        "no point, no spatial list: {plain}"
    );

    // Real-world data ×1.5.
    let config = env.dir.path().join(".oro").join("config.toml");
    let original = std::fs::read_to_string(&config).unwrap();
    let mut text = original.clone();
    text.push_str("\n[[recall.boost]]\nwhere = '{\"env.sim_or_real\": \"real\"}'\nfactor = 1.5\n");
    std::fs::write(&config, &text).unwrap();
    assert_eq!(ids(&[]), [2, 1, 3]);
    let v = env.recall_json(&["grasp the red cube", "--no-touch"]);
    assert_eq!(v["results"][0]["boosts"][0]["factor"], 1.5, "{v}");
    assert_eq!(v["results"][0]["boosts"][0]["rule"], 1, "{v}");
    assert!(v["results"][1].get("boosts").is_none(), "{v}");
    let explained = env.ok(&["recall", "grasp the red cube", "--no-touch", "--explain"]);
    assert!(
        explained.contains("boost    x1.5 (recall.boost 1: where {\"env.sim_or_real\": \"real\"})"),
        "{explained}"
    );

    // Nearest first; a malformed position is no signal, never an error; beyond the maximum
    // distance a memory is left out.
    std::fs::write(&config, &original).unwrap();
    let near = ["--near", "spatial.object_position=0,0,0"];
    let far = ["--near", "spatial.object_position=1,1,0"];
    assert_eq!(ids(&near), [1, 2, 3]);
    // A point is a preference, not evidence about the query: it moves no estimate.
    let estimates = |args: &[&str]| -> Vec<(i64, f64)> {
        let mut a = vec!["grasp the red cube", "--no-touch", "--min-relevance", "0"];
        a.extend_from_slice(args);
        let v = env.recall_json(&a);
        let mut e: Vec<(i64, f64)> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let p = r["relevance"].as_f64().unwrap();
                (r["memory"]["id"].as_i64().unwrap(), p)
            })
            .collect();
        e.sort_by_key(|&(id, _)| id);
        e
    };
    let (plain, pointed) = (estimates(&[]), estimates(&far));
    assert_eq!(plain.len(), 3);
    for (a, b) in plain.iter().zip(&pointed) {
        assert!(
            a.0 == b.0 && (a.1 - b.1).abs() < 1e-9,
            "{plain:?} {pointed:?}"
        );
    }
    assert_eq!(ids(&far), [2, 1, 3]);
    let within = [&near[..], &["--max-distance", "0.5", "--explain"]].concat();
    let mut args = vec!["recall", "grasp the red cube", "--no-touch"];
    args.extend_from_slice(&within);
    let explained = env.ok(&args);
    assert!(explained.contains("spatial  rank    1"), "{explained}");
    assert!(
        explained.contains("1 farther than --max-distance from the point"),
        "{explained}"
    );
    assert_eq!(
        ids(&[&near[..], &["--max-distance", "0.5"]].concat()),
        [1, 3]
    );
    for (bad, says) in [
        ("spatial.object_position", "PATH=x,y,z"),
        ("spatial.object_position=0,zero", "\"zero\""),
    ] {
        let out = env.run(&["recall", "grasp", "--near", bad]);
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains("--near") && stderr(&out).contains(says),
            "{}",
            stderr(&out)
        );
    }
    assert!(!env
        .run(&["recall", "grasp", "--max-distance", "1"])
        .status
        .success());

    // MCP search takes the same point.
    let (_, answers) = mcp_session(
        env.cmd(&["mcp"]),
        &[
            mcp_search(
                1,
                serde_json::json!({"query": "grasp the red cube",
                    "near_field": "spatial.object_position", "near": [0, 0, 0],
                    "max_distance": 0.5, "min_relevance": 0}),
            ),
            mcp_search(2, serde_json::json!({"query": "grasp", "near": [0, 0, 0]})),
        ],
    );
    let found = mcp_tool_text(&answers, 1);
    let mcp_ids: Vec<i64> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(mcp_ids, [1, 3], "{found}");
    let refused = answers.iter().find(|a| a["id"] == 2).unwrap();
    assert_eq!(refused["result"]["isError"], true, "{refused}");
}

/// A log rotated as logrotate does (`app.log` moved to `app.log.1`, a new `app.log` begun)
/// loses nothing and repeats nothing, with duplicate checks off so that a repeat would show:
/// the rotated file is finished from where it was left, the new one read from its start, and
/// the rotated copy, seen later under its new name, is not read again.
#[test]
fn watch_follows_a_rotated_log_without_losing_or_repeating_a_line() {
    let env = Env::new();
    let config = env.dir.path().join(".oro").join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let off = text.replace("#enabled = true", "enabled = false");
    assert_ne!(off, text, "the template shows dedup's `enabled`");
    std::fs::write(&config, off).unwrap();
    let logs = env.dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let log = logs.join("app.log");
    let lines = |from: usize, to: usize| -> String {
        (from..to)
            .map(|i| format!("[MEMORY] the rotation check number {i} holds\n"))
            .collect()
    };
    std::fs::write(&log, lines(0, 3)).unwrap();
    let once = ["watch", logs.to_str().unwrap(), "--once", "--idle", "0"];
    env.ok(&once);
    assert_eq!(env.count(), 3);
    // Written after the last read, then rotated before the next one.
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(lines(3, 5).as_bytes()).unwrap();
    drop(f);
    std::fs::rename(&log, logs.join("app.log.1")).unwrap();
    std::fs::write(&log, lines(5, 7)).unwrap();
    let out = env.ok(&once);
    assert_eq!(env.count(), 7, "{out}");
    assert_eq!(env.ok(&once), "", "nothing read twice");
    // Rotated again: the first copy moves on to .2, and is not read again under that name.
    std::fs::rename(logs.join("app.log.1"), logs.join("app.log.2")).unwrap();
    std::fs::rename(&log, logs.join("app.log.1")).unwrap();
    std::fs::write(&log, lines(7, 8)).unwrap();
    env.ok(&once);
    let contents: Vec<String> = env
        .ok(&["memories", "list", "--json", "--limit", "100"])
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["content"].to_string())
        .collect();
    assert_eq!(contents.len(), 8, "{contents:?}");
    let unique: std::collections::HashSet<_> = contents.iter().collect();
    assert_eq!(unique.len(), 8, "{contents:?}");
    let sessions = env.ok(&["memories", "list", "--json", "--session", "app"]);
    assert_eq!(sessions.lines().count(), 8, "one session: the log's name");
}

/// `oro-mem watch` on a recorded Claude Code transcript (tests/watch/session.jsonl, in the
/// shape Claude Code writes: a summary line, user and assistant entries, tool calls and
/// results) and a plain-text log: what the agent marked is stored once, as
/// `daemon_extracted`, in the transcript's session; what grows later is read from where it
/// was left, after a restart too; a running watcher notices a new session by itself.
#[test]
fn watch_extracts_each_completed_session_once() {
    let env = Env::new();
    let logs = env.dir.path().join("logs");
    let project = logs.join("-home-dev-service");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = project.join("8b2e6f10-4c3a-4d9e-b7a1-5f0c2e9d3a61.jsonl");
    let recorded = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/watch/session.jsonl");
    std::fs::copy(recorded, &transcript).unwrap();
    std::fs::write(
        logs.join("worker-7.log"),
        "step 3: uploaded 12 files\nNote: the staging bucket rejects files over 5 GB\n",
    )
    .unwrap();
    let logs_arg = logs.to_str().unwrap();
    let once = ["watch", logs_arg, "--once", "--idle", "0"];
    let out = env.ok(&once);
    assert!(
        out.contains("stored 3, merged 0, skipped 0, rejected 0"),
        "{out}"
    );
    assert!(out.contains("session worker-7: stored 1"), "{out}");
    let listed = |args: &[&str]| -> Vec<serde_json::Value> {
        let mut a = vec!["memories", "list", "--json"];
        a.extend_from_slice(args);
        env.ok(&a)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let all = listed(&[]);
    assert_eq!(all.len(), 4, "{all:?}");
    assert!(
        all.iter().all(|m| m["source"] == "daemon_extracted"),
        "{all:?}"
    );
    let session = listed(&["--session", "8b2e6f10-4c3a-4d9e-b7a1-5f0c2e9d3a61"]);
    let mut contents: Vec<&str> = session
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    contents.sort_unstable();
    assert_eq!(
        contents,
        [
            "never hard-code a port in tests; bind port 0 and read the one assigned",
            "the CI runners start a metrics sidecar on port 8080 before the tests run.",
            "uploads retry three times with exponential backoff, decided with the team",
        ],
        "neither the tool call's nor the tool result's marker is the agent's"
    );
    let gotcha = session.iter().find(|m| m["type"] == "gotcha").unwrap();
    assert_eq!(gotcha["tags"], serde_json::json!(["ci", "tests"]));

    // Nothing twice: a second run, a later process, reads nothing new.
    assert_eq!(env.ok(&once), "");
    assert_eq!(listed(&[]).len(), 4);

    // The session resumed: only its new part is read, and a line still being written waits.
    let resumed = r#"{"parentUuid":"e08","isSidechain":false,"userType":"external","cwd":"/home/dev/service","sessionId":"8b2e6f10-4c3a-4d9e-b7a1-5f0c2e9d3a61","version":"2.1.300","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"[MEMORY] the upload test needs the fake S3 server from scripts/s3-fake"}]},"uuid":"e09","timestamp":"2026-11-20T11:00:00.000Z"}"#;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    writeln!(f, "{resumed}").unwrap();
    write!(f, "{}", &resumed[..40]).unwrap();
    drop(f);
    let out = env.ok(&once);
    assert!(out.contains("stored 1, merged 0"), "{out}");
    assert_eq!(listed(&[]).len(), 5);
    assert_eq!(env.ok(&once), "", "half a line is not read");

    // A busy log is left for later.
    let out = env.run(&["watch", logs_arg, "--once"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("left for a later run"),
        "{}",
        stderr(&out)
    );

    // Running, it notices a new session once it is complete, and stops on SIGTERM.
    let mut watcher = env
        .cmd(&["watch", logs_arg, "--idle", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    std::fs::write(
        project.join("second.jsonl"),
        format!(
            "{}\n",
            resumed.replace("e09", "f01").replace(
                "the upload test needs the fake S3 server from scripts/s3-fake",
                "the release script needs GITHUB_TOKEN with the packages scope"
            )
        ),
    )
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while listed(&[]).len() < 6 {
        assert!(
            std::time::Instant::now() < deadline,
            "the running watcher stored nothing"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &watcher.id().to_string()])
        .status();
    let status = watcher.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(listed(&[]).len(), 6);
    assert_eq!(
        env.ok(&once),
        "",
        "the running watcher recorded what it read"
    );
}

/// A memory can say what it is about: a summary, files and entities, set by `remember`,
/// `import`, `extract` and MCP, kept by `export`, and searched with twice a word's weight,
/// so that a task naming a path or a symbol finds the memory about it.
#[test]
fn files_entities_and_summary_make_a_memory_findable_by_what_it_is_about() {
    let env = Env::new();
    env.ok(&["remember", "The cache opens lazily on the first read"]);
    env.ok(&[
        "remember",
        "Opening runs every pending migration before the first query",
        "--files",
        "src/store.rs, src/schema.rs",
        "--entities",
        "Store::open",
        "--summary",
        "open migrates",
    ]);
    let shown = env.ok(&["memories", "show", "2"]);
    assert!(
        shown.contains("files:         src/store.rs, src/schema.rs")
            && shown.contains("entities:      Store::open")
            && shown.contains("summary:       open migrates"),
        "{shown}"
    );
    // Words of the task that are only in the files or entities find it.
    assert_eq!(
        result_ids(&env.recall_json(&["why is src/store.rs slow?", "--no-touch"])),
        [2]
    );
    // "open" is a word of the other memory too; the entity puts this one first, and the
    // other, "opens" alone, is below the default relevance bar.
    let hangs = ["Store::open hangs", "--no-touch", "--min-relevance"];
    assert_eq!(
        result_ids(&env.recall_json(&[&hangs[..], &["0"]].concat())),
        [2, 1]
    );
    assert_eq!(result_ids(&env.recall_json(&hangs[..2])), [2]);
    let out = env.run(&["remember", "x y z", "--summary", "two\nlines"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("summary must be one line"),
        "{}",
        stderr(&out)
    );

    // Export keeps them; import and extract set them; MCP remember too.
    let exported = env.ok(&["export"]);
    assert!(
        exported.contains(r#""files":["src/store.rs","src/schema.rs"]"#),
        "{exported}"
    );
    let other = Env::new();
    let file = other.dir.path().join("m.jsonl");
    std::fs::write(&file, &exported).unwrap();
    other.ok(&["import", file.to_str().unwrap()]);
    assert_eq!(
        result_ids(&other.recall_json(&["src/schema.rs", "--no-touch"])),
        [2]
    );
    let output = other.dir.path().join("agent.txt");
    std::fs::write(
        &output,
        "[MEMORY] type=gotcha files=scripts/release.sh entities=GITHUB_TOKEN: \
         the release needs a token with the packages scope\n",
    )
    .unwrap();
    other.ok(&["extract", output.to_str().unwrap()]);
    let v = other.recall_json(&["edit scripts/release.sh", "--no-touch"]);
    assert_eq!(
        v["results"][0]["memory"]["entities"][0], "GITHUB_TOKEN",
        "{v}"
    );
    let (_, answers) = mcp_session(
        other.cmd(&["mcp"]),
        &[serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "memory_remember", "arguments": {
                "content": "the deploy job caches the cargo registry",
                "files": [".github/workflows/deploy.yml"],
                "entities": ["deploy job"]}},
        })
        .to_string()],
    );
    let stored = mcp_tool_text(&answers, 1);
    let id = stored["stored"]
        .as_i64()
        .unwrap_or_else(|| panic!("{stored}"));
    let v = other.recall_json(&["deploy.yml", "--no-touch"]);
    assert_eq!(result_ids(&v), [id], "{v}");
}

/// One command of the README's code blocks, with the output the README shows for it (a
/// `console` block's lines after the command) or none (an `sh` block).
struct ReadmeCommand {
    line: String,
    shown: Option<String>,
    /// In a block that names a PostgreSQL server.
    on_a_server: bool,
}

/// The `oro-mem` commands of the README's `sh` and `console` blocks, in order: comments cut,
/// `a && b` as two commands.
fn readme_commands() -> Vec<ReadmeCommand> {
    let readme = include_str!("../../../README.md");
    let mut out = Vec::new();
    let mut lang: Option<&str> = None;
    let mut on_a_server = false;
    for line in readme.lines() {
        if let Some(fence) = line.strip_prefix("```") {
            lang = match lang {
                Some(_) => None,
                None => Some(fence.trim()),
            };
            on_a_server = false;
            continue;
        }
        on_a_server |= line.contains("postgres://");
        match lang {
            Some("sh") => {
                let code = line.split(" #").next().unwrap_or("").trim();
                for part in code.split("&&") {
                    out.push(ReadmeCommand {
                        line: part.trim().to_string(),
                        shown: None,
                        on_a_server,
                    });
                }
            }
            Some("console") => match line.strip_prefix("$ ") {
                Some(command) => out.push(ReadmeCommand {
                    line: command.trim().to_string(),
                    shown: Some(String::new()),
                    on_a_server,
                }),
                None => {
                    if let Some(shown) = out.last_mut().and_then(|c| c.shown.as_mut()) {
                        shown.push_str(line);
                        shown.push('\n');
                    }
                }
            },
            _ => {}
        }
    }
    out.retain(|c| c.line.starts_with("oro-mem "));
    out
}

/// Every `oro-mem` command in the README's code blocks runs as written, in order, on a fresh
/// project (with the worker store and agent output they name), and prints what the README
/// shows where it shows output. Left out: the servers (`mcp`, `serve`: their own tests drive
/// them), `eval` (minutes on the shared benchmarks; its own tests run it), the team store's
/// block (a PostgreSQL URL), and a line of alternatives (`show 3 | forget 3 [--archive]`).
#[test]
fn the_readmes_commands_run_as_written() {
    // A fresh directory: the README's own `oro-mem init` makes the store.
    let env = Env {
        dir: tempfile::tempdir().unwrap(),
    };
    std::fs::write(
        env.dir.path().join("agent-output.txt"),
        "Done.\n[MEMORY] type=gotcha tags=python: ruff --fix must run before pyright\n",
    )
    .unwrap();
    let worker = env.dir.path().join("worker");
    std::fs::create_dir(&worker).unwrap();
    for args in [
        // A worker's store inside the project, on purpose.
        &["init", "--nested"][..],
        &["remember", "the staging database restarts at midnight"],
    ] {
        let out = env.cmd(args).current_dir(&worker).output().unwrap();
        assert!(out.status.success(), "worker {args:?}: {}", stderr(&out));
    }
    let mut ran = 0;
    for c in readme_commands() {
        let args = shlex::split(&c.line).expect("a command the shell can read");
        if matches!(args[1].as_str(), "mcp" | "serve" | "eval")
            || c.line.contains(" | ")
            || c.on_a_server
        {
            continue;
        }
        let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
        let out = env.run(&args);
        assert!(
            out.status.success(),
            "README: `{}` failed: {}",
            c.line,
            stderr(&out)
        );
        if let Some(shown) = &c.shown {
            assert_eq!(stdout(&out), *shown, "README: `{}` prints", c.line);
        }
        ran += 1;
    }
    assert!(ran >= 18, "only {ran} of the README's commands ran");
}
