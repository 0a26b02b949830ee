//! The shared recall fixtures (`fixtures/recall/*.toml`), for any crate that wants to check a
//! recall path against them: a query, the memories to store, and the ids expected first.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One recall case.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallCase {
    /// What the case checks.
    pub description: String,
    /// The query.
    pub query: String,
    /// The ids (the memories' positions from 1, as stored in order) the results start with.
    pub expected_top: Vec<i64>,
    /// True when the results are `expected_top` and nothing more: with `expected_top = []`,
    /// nothing is recalled.
    #[serde(default)]
    pub only: bool,
    /// The modes the case is about, recalled with the shipped defaults (default: `fts` and
    /// `hybrid`; a paraphrase that shares no word with its memory is about `hybrid` alone).
    #[serde(default = "lexical_modes")]
    pub modes: Vec<oro_mem_core::Mode>,
    /// Modes known to get this case wrong (the file says why): a test should check that they
    /// still do, so the list cannot go stale.
    #[serde(default)]
    pub known_failures: Vec<oro_mem_core::Mode>,
    /// The memories to store, in order.
    pub memories: Vec<FixtureMemory>,
}

impl RecallCase {
    /// True when `ids`, the results in order, are what the case expects.
    pub fn holds(&self, ids: &[i64]) -> bool {
        if self.only {
            ids == self.expected_top
        } else {
            ids.starts_with(&self.expected_top)
        }
    }
}

fn lexical_modes() -> Vec<oro_mem_core::Mode> {
    vec![oro_mem_core::Mode::Fts, oro_mem_core::Mode::Hybrid]
}

/// A memory of a [`RecallCase`].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureMemory {
    /// Its content.
    pub content: String,
    /// Its type, as `oro-mem remember --type` takes it.
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its summary.
    #[serde(default)]
    pub summary: Option<String>,
    /// The files it is about.
    #[serde(default)]
    pub files: Vec<String>,
    /// The entities it is about.
    #[serde(default)]
    pub entities: Vec<String>,
    /// The memories before it that it supersedes (their positions from 1): it is their newer
    /// version.
    #[serde(default)]
    pub supersedes: Vec<i64>,
}

impl FixtureMemory {
    /// The memory to store.
    ///
    /// # Panics
    ///
    /// On an unknown type.
    pub fn to_new(&self) -> oro_mem_core::NewMemory {
        let mut m = oro_mem_core::NewMemory::new(
            self.content.as_str(),
            self.memory_type.parse().expect("a memory type"),
        )
        .tags(self.tags.iter().cloned())
        .files(self.files.iter().cloned())
        .entities(self.entities.iter().cloned());
        m.summary = self.summary.clone();
        m.supersedes = self.supersedes.clone();
        m
    }
}

/// The workspace's `fixtures/recall` folder.
pub fn recall_fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/recall")
}

/// Every `*.toml` case in `dir`, sorted by file name, with its path.
///
/// # Panics
///
/// When the folder or a case cannot be read or parsed (the message names the file): this is
/// for tests.
pub fn recall_cases(dir: &Path) -> Vec<(PathBuf, RecallCase)> {
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let text =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let case: RecallCase =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, case)
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}
