//! `extract` and `merge`: memories from an agent's output, and from a worker's store.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::extract::{extract as find_memories, Extraction, Rejected};
use anyhow::{bail, Context, Result};
use oro_mem_core::memory::before_each;
use oro_mem_core::store::{Embedding, MemoryStore, OtherMemory, WriteOutcome};
use oro_mem_core::{Filter, MemoryId, NewMemory, Status, Timestamp};
use serde::Serialize;

use crate::args::{ExtractArgs, MergeArgs};
use crate::remember::{dedup_config, describe};
use crate::stores::{self, Db};
use crate::{Ctx, Io};

/// Counts of what a write did.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Tally {
    pub(crate) stored: usize,
    pub(crate) merged: usize,
    pub(crate) skipped: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, o: &WriteOutcome) {
        match o {
            WriteOutcome::Inserted { .. } | WriteOutcome::Updated { .. } => self.stored += 1,
            WriteOutcome::Merged { .. } => self.merged += 1,
            WriteOutcome::Skipped { .. } => self.skipped += 1,
        }
    }
}

/// The text of `path` (`-`: `input`), a relative path taken from `cwd` when given (a server
/// reading for a client elsewhere); errors name the path as given.
fn read_text(path: &Path, input: &mut dyn Read, cwd: Option<&Path>) -> Result<String> {
    if path == Path::new("-") {
        return crate::input::read_utf8(input, "standard input");
    }
    let at = match cwd {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    };
    let bytes = std::fs::read(at).with_context(|| format!("cannot read {}", path.display()))?;
    crate::input::utf8(bytes, &path.display().to_string())
}

/// `oro-mem extract`.
pub fn extract(ctx: &mut Ctx, a: &ExtractArgs, io: &mut Io<'_>) -> Result<()> {
    let Extraction {
        mut memories,
        rejected,
    } = find_memories(&read_text(&a.file, io.input, io.cwd)?);
    for r in &rejected {
        writeln!(io.err, "line {}: [MEMORY] not stored: {}", r.line, r.reason)?;
    }
    if a.strict && !rejected.is_empty() {
        bail!(
            "{} malformed [MEMORY] line{}; nothing was stored (--strict)",
            rejected.len(),
            if rejected.len() == 1 { "" } else { "s" }
        );
    }
    for f in &mut memories {
        let m = &mut f.memory;
        m.namespace = a.namespace.clone();
        m.tags.extend(a.tags.iter().cloned());
        m.bead_id = a.bead_id.clone();
        m.worker_id = a.worker_id.clone();
        m.session = a.session.clone();
        m.validate().with_context(|| format!("line {}", f.line))?;
    }
    let lines: Vec<usize> = memories.iter().map(|f| f.line).collect();
    let batch: Vec<NewMemory> = memories.into_iter().map(|f| f.memory).collect();

    if a.dry_run {
        return print_found(io, &lines, &batch, &rejected, a.json);
    }
    let outcomes = if batch.is_empty() {
        Vec::new()
    } else {
        let dedup = dedup_config(ctx.engine.config(), false);
        let batch = batch.into_iter().map(|m| (m, None)).collect();
        ctx.remember(batch, &dedup, io.err)?.outcomes
    };
    let mut tally = Tally::default();
    outcomes.iter().for_each(|o| tally.add(o));
    if a.json {
        let each: Vec<_> = lines
            .iter()
            .zip(&outcomes)
            .map(|(line, o)| serde_json::json!({ "line": line, "outcome": o }))
            .collect();
        writeln!(
            io.out,
            "{}",
            serde_json::json!({
                "stored": tally.stored,
                "merged": tally.merged,
                "skipped": tally.skipped,
                "rejected": rejected.len(),
                "results": each,
            })
        )?;
    } else {
        for (line, o) in lines.iter().zip(&outcomes) {
            writeln!(io.out, "line {line}: {}", describe(o, None)?)?;
        }
        writeln!(
            io.out,
            "stored {}, merged {}, skipped {}, rejected {}",
            tally.stored,
            tally.merged,
            tally.skipped,
            rejected.len()
        )?;
    }
    Ok(())
}

/// `extract --dry-run`: what would be stored, line by line, and what was rejected.
fn print_found(
    io: &mut Io<'_>,
    lines: &[usize],
    batch: &[NewMemory],
    rejected: &[Rejected],
    json: bool,
) -> Result<()> {
    if json {
        let found: Vec<_> = lines
            .iter()
            .zip(batch)
            .map(|(line, m)| serde_json::json!({ "line": line, "memory": m }))
            .collect();
        let rejected: Vec<_> = rejected
            .iter()
            .map(|r| serde_json::json!({ "line": r.line, "reason": r.reason }))
            .collect();
        writeln!(
            io.out,
            "{}",
            serde_json::json!({ "dry_run": true, "found": found, "rejected": rejected })
        )?;
        return Ok(());
    }
    for (line, m) in lines.iter().zip(batch) {
        writeln!(
            io.out,
            "line {line}: would store [{}] {} ({}, confidence {})",
            m.memory_type, m.content, m.source, m.confidence
        )?;
    }
    writeln!(io.out, "found {}, rejected {}", batch.len(), rejected.len())?;
    Ok(())
}

/// `oro-mem merge`.
pub fn merge(ctx: &mut Ctx, a: &MergeArgs) -> Result<()> {
    let other = Db::parse(&a.other)?;
    let ours = Path::new(&ctx.store.location()).canonicalize();
    if let (Ok(ours), Some(Ok(theirs))) = (ours, other.file().map(Path::canonicalize)) {
        if ours == theirs {
            bail!("{other} is this store; nothing to merge");
        }
    } else if ctx.store.location() == other.to_string() {
        bail!("{other} is this store; nothing to merge");
    }
    let theirs = stores::read_other(&other)?;
    let merged = copy_missing(ctx, theirs, a.dry_run)?;
    print_merged(&a.other.display().to_string(), &merged, a.dry_run, a.json)?;
    Ok(())
}

/// What a merge did, or would do.
#[derive(Default)]
struct Merged {
    /// Memories the other store holds.
    total: usize,
    /// Of those, exactly the same (namespace, type and content) here already.
    present: usize,
    /// The others: what a dry run would add, before duplicate checks.
    would_add: usize,
    tally: Tally,
    /// Embeddings copied rather than made again.
    reused: usize,
    reembedded: usize,
    /// Memories here superseded by a newer version the other store holds.
    superseded: usize,
}

/// Copies the memories of `theirs` this store lacks, in one transaction (nothing with
/// `dry_run`). Exactly the same memory (namespace, type and content) is never copied twice,
/// whatever the dedup settings; near-duplicates are left to the usual duplicate checks. The
/// other store's embeddings of the model this store uses are written, not made again, unless
/// a copied memory of a session now follows other memories than it did there. A memory
/// superseded there by another is superseded here by that one's copy, as
/// [`oro_mem_engine::link_versions`] allows: a newer version supersedes an older one, never
/// the reverse.
fn copy_missing(ctx: &mut Ctx, theirs: Vec<OtherMemory>, dry_run: bool) -> Result<Merged> {
    // The other store's embeddings of memories of a session were made with the memories
    // before them there.
    let made_after = before_each(
        &theirs.iter().map(|o| &o.memory).collect::<Vec<_>>(),
        Timestamp::now(),
    );
    // Whatever its status here: a memory superseded or merged here is not copied back.
    let statuses = [
        Status::Active,
        Status::Archived,
        Status::Merged,
        Status::Superseded,
    ];
    let ours = exact_keys(&*ctx.store, &statuses)?;
    let total = theirs.len();
    // Each of their memories' id here (the same memory, or its copy), and their links.
    let mut here: HashMap<MemoryId, MemoryId> = HashMap::new();
    let versions: Vec<(MemoryId, MemoryId, Timestamp)> = theirs
        .iter()
        .filter_map(|o| o.superseded_by.map(|(by, at)| (o.id, by, at)))
        .collect();
    let mut copied_ids = Vec::new();
    let (new, made_after): (Vec<(NewMemory, Option<Embedding>)>, Vec<_>) = theirs
        .into_iter()
        .zip(made_after)
        .filter(|(o, _)| {
            // The lowest id of several.
            let here_id = ours
                .get(&exact_key(&o.memory))
                .and_then(|v| v.iter().map(|&(_, id)| id).min());
            match here_id {
                Some(id) => {
                    here.insert(o.id, id);
                    false
                }
                None => {
                    copied_ids.push(o.id);
                    true
                }
            }
        })
        .map(|(o, before)| {
            let model = o.embedding.as_ref().map(|e| e.model.clone());
            ((o.memory, o.embedding), (model, before))
        })
        .unzip();
    let mut merged = Merged {
        total,
        present: total - new.len(),
        would_add: new.len(),
        ..Merged::default()
    };
    if dry_run || new.is_empty() {
        return Ok(merged);
    }
    let dedup = dedup_config(ctx.engine.config(), false);
    let done = ctx.remember(new, &dedup, &mut std::io::stderr())?;
    merged.reused = done.reused;
    merged.reembedded = done.reembedded;
    // A copied embedding was made with the memories before it in the other store; here its
    // memory may follow others.
    if merged.reused > 0 {
        let model = ctx.engine.embedder()?.model_id().to_string();
        let copied: Vec<_> = done
            .outcomes
            .iter()
            .zip(made_after)
            .filter_map(|(o, (from, before))| match o {
                WriteOutcome::Inserted { id } if from.as_deref() == Some(model.as_str()) => {
                    Some((*id, before))
                }
                _ => None,
            })
            .collect();
        merged.reembedded += ctx.reembed_moved(&copied, &mut std::io::stderr())?;
    }
    // A copy that is a newer state of a fact here supersedes it as it is written.
    let mut updated = 0;
    for (o, theirs) in done.outcomes.iter().zip(copied_ids) {
        merged.tally.add(o);
        here.insert(theirs, o.id());
        if let WriteOutcome::Updated { supersedes, .. } = o {
            updated += supersedes.len();
        }
    }
    let (linked, reembedded) = ctx.link_versions(&versions, &here)?;
    merged.superseded = linked + updated;
    merged.reembedded += reembedded;
    Ok(merged)
}

/// What makes two memories exactly the same for a merge or an import: namespace, type and
/// content.
pub(crate) type ExactKey = (String, String, String);

/// The [`ExactKey`] of `m`.
pub(crate) fn exact_key(m: &NewMemory) -> ExactKey {
    (
        m.namespace.clone(),
        m.memory_type.to_string(),
        m.content.clone(),
    )
}

/// The memories of `store` of `statuses` by their [`ExactKey`]: each one's status and id.
pub(crate) fn exact_keys(
    store: &dyn MemoryStore,
    statuses: &[Status],
) -> Result<HashMap<ExactKey, Vec<(Status, MemoryId)>>> {
    let mut keys: HashMap<ExactKey, Vec<(Status, MemoryId)>> = HashMap::new();
    let filter = Filter {
        statuses: statuses.to_vec(),
        ..Filter::default()
    };
    store.for_each(&filter, &mut |m| {
        let key = (m.namespace, m.memory_type.to_string(), m.content);
        keys.entry(key).or_default().push((m.status, m.id));
        Ok(())
    })?;
    Ok(keys)
}

/// Prints what a merge from `other` did (or would do, on a dry run).
fn print_merged(other: &str, m: &Merged, dry_run: bool, json: bool) -> std::io::Result<()> {
    let Merged {
        total,
        present,
        would_add,
        ref tally,
        reused,
        reembedded,
        superseded,
    } = *m;
    if json {
        let mut v = serde_json::json!({
            "other": other,
            "read": total,
            "already_present": present,
        });
        if dry_run {
            v["would_add"] = would_add.into();
        } else {
            v["copied"] = tally.stored.into();
            v["merged"] = tally.merged.into();
            v["skipped"] = tally.skipped.into();
            v["embeddings_reused"] = reused.into();
            v["reembedded"] = reembedded.into();
            v["superseded"] = superseded.into();
        }
        outln!("{v}")?;
    } else if dry_run {
        outln!(
            "{other}: {total} memories, {present} already here; would add up to {would_add} \
             (before dedup)"
        )?;
    } else {
        outln!(
            "{other}: {total} memories, {present} already here; copied {}, merged {} into \
             near-duplicates, skipped {} duplicates{}{}{}",
            tally.stored,
            tally.merged,
            tally.skipped,
            if reused > 0 {
                format!("; {reused} embeddings reused")
            } else {
                String::new()
            },
            if reembedded > 0 {
                format!(
                    "; {reembedded} memories embedded again with the memories now before \
                     them in their session"
                )
            } else {
                String::new()
            },
            if superseded > 0 {
                format!("; {superseded} superseded here by newer versions")
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}
