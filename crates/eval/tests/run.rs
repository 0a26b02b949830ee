//! `oro_mem_eval::run` end to end on a SQLite store in memory (the command's tests cover
//! the flags, the fitting and the real model).

use std::path::PathBuf;

use oro_mem_core::{Config, ErrorKind, Mode};
use oro_mem_eval::grid::Axis;
use oro_mem_eval::{run, Event, Fit, Holdout, Plan};
use oro_mem_store_sqlite::Store;

fn eval_mini() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/eval-mini")
}

fn store() -> Box<Store> {
    Box::new(Store::open_in_memory().unwrap())
}

#[test]
fn every_setting_is_a_row_and_each_mode_is_chosen_out_of_sample() {
    let mut plan = Plan::new(eval_mini(), "test");
    plan.set = vec![("decay".into(), "off".into())];
    plan.grid = vec![Axis::parse("k=20,60").unwrap()];
    plan.holdout = Holdout::EachNamespace;
    let mut events = Vec::new();
    let report = run(&plan, Config::default(), store(), &mut |e| events.push(e)).unwrap();

    assert_eq!((report.documents, report.queries), (6, 3));
    let labels: Vec<&str> = report.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["k=20", "k=60"]);
    // The FTS ranking ignores rrf_k: both rows find q-wal's and q-ruff's documents first,
    // and nothing for q-pet, which shares no word with its answer.
    for row in &report.runs {
        assert_eq!(row.mode, Mode::Fts);
        assert!(
            (row.summary.mean.mrr_10 - 2.0 / 3.0).abs() < 1e-9,
            "{row:?}"
        );
    }
    let fts = &report.out_of_sample[0];
    assert_eq!(
        (fts.mode, fts.method.as_str()),
        (Mode::Fts, "leave one namespace out")
    );
    let held: Vec<&str> = fts.chosen.iter().map(|c| c.held_out.as_str()).collect();
    assert_eq!(held, ["a", "b"]);

    assert!(
        matches!(events[0], Event::Imported { documents: 6, .. }),
        "{events:?}"
    );
    let rows: Vec<String> = events[1..].iter().map(Event::to_string).collect();
    assert_eq!(rows, ["[1/2] k=20", "[2/2] k=60"]);
    // The report prints as the command's table.
    let table = report.to_string();
    assert!(table.contains("leave one namespace out"), "{table}");
}

#[test]
fn a_plan_that_cannot_hold_is_refused_before_anything_is_imported() {
    let mut plan = Plan::new(eval_mini(), "test");
    plan.fit = Some(Fit::default());
    let err = run(&plan, Config::default(), store(), &mut |_| {}).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("as_recalled"), "{err}");

    let mut plan = Plan::new(eval_mini(), "test");
    plan.set = vec![("depth".into(), "0".into())];
    let mut events = Vec::new();
    let err = run(&plan, Config::default(), store(), &mut |e| events.push(e)).unwrap_err();
    assert!(err.to_string().starts_with("--set depth=0:"), "{err}");
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn queries_with_nothing_relevant_are_fitted_on_and_counted_when_they_get_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("qrels")).unwrap();
    let lines = |rows: &[&str]| rows.join("\n");
    std::fs::write(
        data.join("corpus.jsonl"),
        lines(&[
            r#"{"_id": "wal", "text": "Enable WAL journal mode so readers never block the writer.", "namespace": "a", "tags": ["sqlite"], "type": "gotcha"}"#,
            r#"{"_id": "cargo", "text": "cargo build caches compiled dependencies in the target directory.", "namespace": "a", "type": "fact"}"#,
        ]),
    )
    .unwrap();
    std::fs::write(
        data.join("queries.jsonl"),
        lines(&[
            r#"{"_id": "q-wal", "text": "which journal mode keeps readers from blocking?", "namespace": "a"}"#,
            r#"{"_id": "q-publish", "text": "does cargo publish need a token?", "namespace": "a", "metadata": {"no_relevant": true}}"#,
            r#"{"_id": "q-bread", "text": "how long should sourdough proof?", "namespace": "a", "metadata": {"no_relevant": true}}"#,
        ]),
    )
    .unwrap();
    std::fs::write(
        data.join("qrels/test.tsv"),
        "query-id\tcorpus-id\tscore\nq-wal\twal\t1\n",
    )
    .unwrap();
    let features = dir.path().join("features.jsonl");
    let mut plan = Plan::new(&data, "test");
    plan.as_recalled = true;
    plan.fit = Some(Fit {
        features: Some(features.clone()),
        ..Fit::default()
    });
    let report = run(&plan, Config::default(), store(), &mut |_| {}).unwrap();
    assert_eq!((report.queries, report.no_relevant), (1, 2));
    // q-bread shares no word with the store: answered with nothing, whatever the model.
    let share = report.runs[0].no_relevant_empty.unwrap();
    assert!(share >= 0.5, "{share}");
    // q-publish finds the cargo memory: an example that is neither relevant nor answerable.
    let examples = oro_mem_eval::read_examples(&features).unwrap();
    let publish: Vec<_> = examples.iter().filter(|e| e.query == "q-publish").collect();
    assert_eq!(publish.len(), 1, "{examples:?}");
    assert_eq!(publish[0].doc.as_deref(), Some("cargo"));
    assert!(!publish[0].relevant);
    assert_eq!(publish[0].answerable, Some(false));
    let wal = examples.iter().find(|e| e.query == "q-wal").unwrap();
    assert!(wal.relevant && wal.answerable == Some(true), "{wal:?}");
}
