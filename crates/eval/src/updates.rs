//! Real edits replayed through the write path: for each pair of statements (one as a project
//! wrote it, one as it later read), the first written into a fresh namespace of one store
//! ([`replay`]) or into a store of its own ([`replay_apart`]), then the second, and what the
//! write path decided for the second, against what the edit was (`label`: an update of the
//! same fact, the same statement reworded, or another statement).
//!
//! The pairs are JSON lines with at least `id`, `old` and `new`, and `label` when judged
//! (`update`, `duplicate` or `distinct`), as `../shared/eval/updates-dev/pairs.jsonl` holds
//! them; other fields are left alone. A file without labels is still replayed: its report
//! counts the decisions.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use oro_mem_core::config::DedupConfig;
use oro_mem_core::store::{MemoryStore, WriteOutcome};
use oro_mem_core::{Config, Error, MemoryType, Mode, NewMemory, Result};
use oro_mem_engine::Engine;
use serde::{Deserialize, Serialize};

use crate::dataset::read_jsonl;

/// What an edit was, as judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// The same subject with a changed value: the new statement supersedes the old.
    Update,
    /// The same statement reworded: no fact changes.
    Duplicate,
    /// A statement about something else.
    Distinct,
}

impl Label {
    const ALL: [Label; 3] = [Label::Update, Label::Duplicate, Label::Distinct];

    fn name(self) -> &'static str {
        match self {
            Label::Update => "update",
            Label::Duplicate => "duplicate",
            Label::Distinct => "distinct",
        }
    }
}

/// What the write path did with the second statement of a pair, in the terms of [`Label`]:
/// stored as an update of the first, skipped or merged as its duplicate, or stored beside it
/// (distinct).
pub type Decision = Label;

/// One edit: a statement before and after.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Pair {
    /// The pair's id.
    pub id: String,
    /// The statement before the edit.
    pub old: String,
    /// The statement after it.
    pub new: String,
    /// What the edit was, when judged.
    #[serde(default)]
    pub label: Option<Label>,
}

/// Reads the pairs of `path` (JSON lines).
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) for an unreadable
/// file, a line that is no pair (by its number), an empty statement or a repeated id.
pub fn read_pairs(path: &Path) -> Result<Vec<Pair>> {
    let pairs = read_jsonl(path, |p: Pair, at| {
        if p.old.trim().is_empty() || p.new.trim().is_empty() {
            return Err(Error::invalid_input(format!(
                "{at}: pair {:?} has an empty statement",
                p.id
            )));
        }
        Ok(p)
    })?;
    let mut seen = std::collections::HashSet::new();
    if let Some(p) = pairs.iter().find(|p| !seen.insert(p.id.as_str())) {
        return Err(Error::invalid_input(format!(
            "{}: pair id {:?} appears twice",
            path.display(),
            p.id
        )));
    }
    if pairs.is_empty() {
        return Err(Error::invalid_input(format!(
            "{}: no pairs",
            path.display()
        )));
    }
    Ok(pairs)
}

/// What the write path decided for one pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decided {
    /// The pair's id.
    pub id: String,
    /// What the edit was, when judged.
    pub label: Option<Label>,
    /// What the write path did with the new statement.
    pub decision: Decision,
    /// How similar the write path found the two (normalized BM25 or cosine), when it
    /// matched them.
    pub similarity: Option<f64>,
}

/// The replay of a file of pairs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpdatesReport {
    /// The file replayed.
    pub file: PathBuf,
    /// The mode written in (hybrid and vector write embeddings, which the duplicate check
    /// reads).
    pub mode: String,
    /// Whether each pair was written into a store of its own ([`replay_apart`]), not into a
    /// namespace of one store.
    pub store_per_pair: bool,
    /// Each pair's decision, in the file's order.
    pub pairs: Vec<Decided>,
    /// Of the judged pairs, by label, how many got each decision.
    pub by_label: BTreeMap<Label, BTreeMap<Decision, usize>>,
    /// Of the pairs decided to be updates, the share judged updates (none when no pair was
    /// decided an update).
    pub update_precision: Option<f64>,
    /// Of the pairs judged updates, the share decided updates.
    pub update_recall: Option<f64>,
    /// Of the pairs judged duplicates, the share skipped or merged as duplicates.
    pub duplicates_caught: Option<f64>,
    /// Of the pairs judged distinct, the share stored beside the first.
    pub distinct_left_alone: Option<f64>,
}

/// Replays `pairs` into `store` through the write path of an engine made from `config`
/// (its mode and its `dedup` settings), each pair in its own namespace (`updates/<id>`).
///
/// # Errors
///
/// As [`Engine::remember`]: the store or the model failing.
pub fn replay(
    file: &Path,
    pairs: &[Pair],
    config: Config,
    store: &mut dyn MemoryStore,
) -> Result<UpdatesReport> {
    replay_each(file, pairs, config, false, |engine, dedup, p| {
        decide(engine, store, dedup, p)
    })
}

/// Replays `pairs` as [`replay`] does, but each pair into a store of its own, made empty by
/// `open`: what the write path decides in a store that holds only the old statement, as a
/// new user's does. In one store the other pairs' words weigh on the lexical similarity of
/// each pair (the index's word statistics are the whole store's), so a pair near a bar may
/// be decided otherwise there.
///
/// # Errors
///
/// As [`replay`], and `open` failing.
pub fn replay_apart(
    file: &Path,
    pairs: &[Pair],
    config: Config,
    open: &mut dyn FnMut() -> Result<Box<dyn MemoryStore>>,
) -> Result<UpdatesReport> {
    replay_each(file, pairs, config, true, |engine, dedup, p| {
        decide(engine, &mut *open()?, dedup, p)
    })
}

/// The report of each of `pairs` decided by `decide`, with the engine and the `dedup`
/// settings made from `config`.
fn replay_each(
    file: &Path,
    pairs: &[Pair],
    config: Config,
    store_per_pair: bool,
    mut decide: impl FnMut(&mut Engine, &DedupConfig, &Pair) -> Result<Decided>,
) -> Result<UpdatesReport> {
    let dedup = config.dedup.clone();
    let mode = config.mode;
    let mut engine = Engine::from_config(config)?;
    let decided = pairs
        .iter()
        .map(|p| decide(&mut engine, &dedup, p))
        .collect::<Result<Vec<_>>>()?;
    Ok(UpdatesReport::new(file, mode, store_per_pair, decided))
}

/// Writes pair `p`'s old statement and then its new one into a namespace of its own in
/// `store`, and says what the write path decided for the new one.
fn decide(
    engine: &mut Engine,
    store: &mut dyn MemoryStore,
    dedup: &DedupConfig,
    p: &Pair,
) -> Result<Decided> {
    let namespace = format!("updates/{}", p.id);
    let mut outcome = None;
    for text in [&p.old, &p.new] {
        // A lesson, as `remember` writes by default: the duplicate check reads no type.
        let memory = NewMemory::new(text.clone(), MemoryType::Lesson).namespace(&namespace);
        let done = engine
            .remember(store, vec![(memory, None)], dedup)
            .map_err(|e| e.context(format!("pair {:?}", p.id)))?;
        outcome = done.outcomes.into_iter().next();
    }
    let (decision, similarity) = match outcome {
        Some(
            WriteOutcome::Merged { similarity, .. } | WriteOutcome::Skipped { similarity, .. },
        ) => (Label::Duplicate, Some(similarity)),
        Some(WriteOutcome::Updated { .. }) => (Label::Update, None),
        Some(WriteOutcome::Inserted { .. }) | None => (Label::Distinct, None),
    };
    Ok(Decided {
        id: p.id.clone(),
        label: p.label,
        decision,
        similarity,
    })
}

impl UpdatesReport {
    fn new(file: &Path, mode: Mode, store_per_pair: bool, pairs: Vec<Decided>) -> UpdatesReport {
        let mut by_label: BTreeMap<Label, BTreeMap<Decision, usize>> = BTreeMap::new();
        for d in &pairs {
            if let Some(label) = d.label {
                *by_label
                    .entry(label)
                    .or_default()
                    .entry(d.decision)
                    .or_default() += 1;
            }
        }
        let count = |label: Label, decision: Decision| {
            by_label
                .get(&label)
                .and_then(|d| d.get(&decision))
                .copied()
                .unwrap_or(0)
        };
        let judged = |label: Label| by_label.get(&label).map_or(0, |d| d.values().sum());
        let share = |n: usize, of: usize| (of > 0).then(|| n as f64 / of as f64);
        let decided_updates: usize = Label::ALL.iter().map(|&l| count(l, Label::Update)).sum();
        UpdatesReport {
            file: file.to_path_buf(),
            mode: mode.to_string(),
            store_per_pair,
            update_precision: share(count(Label::Update, Label::Update), decided_updates),
            update_recall: share(count(Label::Update, Label::Update), judged(Label::Update)),
            duplicates_caught: share(
                count(Label::Duplicate, Label::Duplicate),
                judged(Label::Duplicate),
            ),
            distinct_left_alone: share(
                count(Label::Distinct, Label::Distinct),
                judged(Label::Distinct),
            ),
            by_label,
            pairs,
        }
    }
}

impl fmt::Display for UpdatesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} pairs replayed, {} mode: the new statement written after the old{}",
            self.file.display(),
            self.pairs.len(),
            self.mode,
            if self.store_per_pair {
                ", each pair in a store of its own"
            } else {
                ""
            }
        )?;
        let decided =
            |decision: Decision| self.pairs.iter().filter(|p| p.decision == decision).count();
        if self.by_label.is_empty() {
            writeln!(f, "decided   update  duplicate  distinct")?;
            return writeln!(
                f,
                "{:<8}  {:>6}  {:>9}  {:>8}",
                "all",
                decided(Label::Update),
                decided(Label::Duplicate),
                decided(Label::Distinct)
            );
        }
        writeln!(f, "judged     pairs  decided: update  duplicate  distinct")?;
        for (label, decisions) in &self.by_label {
            let n = |d: Decision| decisions.get(&d).copied().unwrap_or(0);
            writeln!(
                f,
                "{:<9}  {:>5}           {:>6}  {:>9}  {:>8}",
                label.name(),
                decisions.values().sum::<usize>(),
                n(Label::Update),
                n(Label::Duplicate),
                n(Label::Distinct)
            )?;
        }
        let shown = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
        writeln!(
            f,
            "update precision {}, update recall {}, duplicates caught {}, distinct left alone {}",
            shown(self.update_precision),
            shown(self.update_recall),
            shown(self.duplicates_caught),
            shown(self.distinct_left_alone)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decided(label: Option<Label>, decision: Decision) -> Decided {
        Decided {
            id: String::new(),
            label,
            decision,
            similarity: None,
        }
    }

    #[test]
    fn each_share_is_of_its_own_label_or_decision() {
        use Label::*;
        let pairs = vec![
            decided(Some(Update), Update),
            decided(Some(Update), Update),
            decided(Some(Update), Duplicate),
            decided(Some(Duplicate), Update),
            decided(Some(Duplicate), Duplicate),
            decided(Some(Distinct), Distinct),
            decided(None, Update),
        ];
        let r = UpdatesReport::new(Path::new("p"), Mode::Fts, false, pairs);
        // Unjudged pairs count in no share.
        assert_eq!(r.update_precision, Some(2.0 / 3.0));
        assert_eq!(r.update_recall, Some(2.0 / 3.0));
        assert_eq!(r.duplicates_caught, Some(0.5));
        assert_eq!(r.distinct_left_alone, Some(1.0));
        assert_eq!(r.by_label[&Update][&Update], 2);
        let table = r.to_string();
        assert!(
            table.contains("update precision 0.67, update recall 0.67"),
            "{table}"
        );

        let unjudged = UpdatesReport::new(
            Path::new("p"),
            Mode::Fts,
            false,
            vec![decided(None, Distinct)],
        );
        assert_eq!(unjudged.update_recall, None);
        assert!(unjudged
            .to_string()
            .contains("all            0          0         1"));
    }
}
