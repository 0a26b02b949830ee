//! `oro-mem import` and `oro-mem export`: a store's memories as JSON lines, in and out.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use oro_mem_core::store::WriteOutcome;
use oro_mem_core::{Filter, MemoryType, NewMemory, Status, Timestamp};

use crate::remember::dedup_config;
use crate::{args, build_filter, capture, private, Ctx};

/// How many bad lines of an import are listed; the rest are counted.
const MAX_BAD_LINES_SHOWN: usize = 20;

/// The fields an import line may have: a memory to store ([`NewMemory`]'s), and those
/// `export` writes beside them, which say where the memory was (`id`, `updated_at`).
const IMPORT_FIELDS: [&str; 24] = [
    "access_count",
    "bead_id",
    "confidence",
    "content",
    "created_at",
    "entities",
    "files",
    "id",
    "last_accessed",
    "merged_into",
    "metadata",
    "namespace",
    "pinned",
    "return_count",
    "session",
    "source",
    "status",
    "summary",
    "superseded_at",
    "superseded_by",
    "tags",
    "type",
    "updated_at",
    "worker_id",
];

/// A memory from one line of an import: a JSON object with at least `content`; `type`
/// defaults to `lesson`, as for `remember`, and `source` to `import`. A field it does not
/// know is an error, not dropped: a misspelt `"tgas"` would lose the tags. Also returns the
/// `id` the line carries when `export` wrote it.
fn parse_import_line(line: &str) -> Result<ImportLine> {
    let mut value: serde_json::Value = serde_json::from_str(line).context("not JSON")?;
    let obj = value
        .as_object_mut()
        .context("expected a JSON object with at least \"content\"")?;
    let unknown: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !IMPORT_FIELDS.contains(k))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "unknown field{} {} (known: {})",
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", "),
            IMPORT_FIELDS.join(", ")
        );
    }
    obj.entry("source")
        .or_insert_with(|| serde_json::Value::String("import".into()));
    obj.entry("type")
        .or_insert_with(|| serde_json::Value::String(MemoryType::Lesson.to_string()));
    let id = obj.get("id").and_then(serde_json::Value::as_i64);
    let by = obj.get("superseded_by").and_then(serde_json::Value::as_i64);
    let at = obj
        .get("superseded_at")
        .and_then(|t| serde_json::from_value(t.clone()).ok())
        .unwrap_or_else(Timestamp::now);
    let mut memory: NewMemory = serde_json::from_value(value)?;
    memory.validate()?;
    let superseded = by
        .filter(|_| memory.status == Status::Superseded)
        .map(|by| (by, at));
    Ok(ImportLine {
        memory,
        id,
        superseded,
    })
}

/// A memory read from one line of an import.
struct ImportLine {
    memory: NewMemory,
    /// The id `export` wrote, if any.
    id: Option<i64>,
    /// The memory that superseded it there, by its exported id, and when, when its status is
    /// superseded (`superseded_by`, `superseded_at`).
    superseded: Option<(i64, Timestamp)>,
}

/// `batch` without the memories whose exported id names a memory of `store` with the same
/// content, namespace and status: copies of what is here.
fn still_here(
    store: &dyn oro_mem_core::store::MemoryStore,
    batch: Vec<(NewMemory, Option<i64>)>,
) -> Result<Vec<(NewMemory, Option<i64>)>> {
    let ids: Vec<i64> = batch.iter().filter_map(|(_, id)| *id).collect();
    if ids.is_empty() {
        return Ok(batch);
    }
    let here: std::collections::HashMap<i64, oro_mem_core::Memory> = store
        .get_many(&ids)?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    Ok(batch
        .into_iter()
        .filter(|(m, id)| {
            !id.and_then(|id| here.get(&id)).is_some_and(|h| {
                h.content == m.content && h.namespace == m.namespace && h.status == m.status
            })
        })
        .collect())
}

fn open_input(path: &Path) -> Result<(Box<dyn BufRead>, Option<u64>)> {
    if path == Path::new("-") {
        return Ok((Box::new(BufReader::new(std::io::stdin())), None));
    }
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = f.metadata().ok().map(|m| m.len());
    Ok((Box::new(BufReader::new(f)), len))
}

fn progress(len: Option<u64>, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        ),
        None => ProgressBar::new_spinner(),
    };
    bar.set_message(what.to_string());
    bar
}

/// `oro-mem import`: JSON lines, each a memory, written through the write policy in batches.
pub(crate) fn import(mut ctx: Ctx, a: &args::ImportArgs) -> Result<()> {
    if a.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    // Standard input can be read once: spool it to a temporary file (removed when dropped),
    // so that it is validated whole before anything is written, like a file.
    let spooled = if a.file == Path::new("-") {
        let mut f = tempfile::NamedTempFile::new()
            .context("cannot create a temporary file to hold standard input")?;
        std::io::copy(&mut std::io::stdin().lock(), &mut f)
            .and_then(|_| f.flush())
            .context("cannot read standard input into a temporary file")?;
        Some(f)
    } else {
        None
    };
    let (path, name) = match &spooled {
        Some(f) => (f.path(), "standard input".to_string()),
        None => (a.file.as_path(), a.file.display().to_string()),
    };
    // Validate the whole input first, so bad input writes nothing, and say what is wrong with
    // every bad line at once, so a file is fixed in one go.
    let (reader, _) = open_input(path)?;
    let mut bad = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{name}: cannot read line {}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let limits = &ctx.engine.config().memory;
        if let Err(e) = parse_import_line(&line).and_then(|l| Ok(limits.check(&l.memory.content)?))
        {
            bad.push(format!("line {}: {e:#}", i + 1));
        }
    }
    if !bad.is_empty() {
        let shown = bad.len().min(MAX_BAD_LINES_SHOWN);
        let more = match bad.len() - shown {
            0 => String::new(),
            n => format!("\n  ... and {n} more"),
        };
        bail!(
            "{name}: {} bad line{}, nothing was imported:\n  {}{more}",
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            bad[..shown].join("\n  ")
        );
    }
    let (reader, len) = open_input(path)?;
    let bar = progress(len, "importing");
    let mut dedup = dedup_config(ctx.engine.config(), a.no_dedup);
    // The file says which memories are versions of which: an import links them as it says
    // and decides no supersession of its own (an export of a store where two states of a
    // fact were both kept active imports as it was).
    dedup.updates = false;
    let (mut inserted, mut merged, mut skipped) = (0u64, 0u64, 0u64);
    // The memory here that holds each exported one (by its exported id), and the links
    // between versions the lines carry (by exported ids), made once every line is written.
    let mut here: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    let mut versions: Vec<(i64, i64, Timestamp)> = Vec::new();
    let mut inactive: Option<HashMap<capture::ExactKey, Vec<(Status, i64)>>> = None;
    let mut batch = Vec::with_capacity(a.batch_size);
    // `lines`: the first and last line of the batch, to name what a failed commit left out.
    let mut flush = |batch: &mut Vec<(NewMemory, Option<i64>)>,
                     lines: (usize, usize),
                     ctx: &mut Ctx|
     -> Result<()> {
        let done_before = inserted + merged + skipped;
        let mut memories = std::mem::take(batch);
        if dedup.enabled {
            // A line exported from this store, whatever its status, is skipped when its memory
            // is still here as it was: `export` then `import` into the same store changes
            // nothing (the duplicate check reads active memories only).
            let before = memories.len();
            let exported: Vec<i64> = memories.iter().filter_map(|(_, id)| *id).collect();
            memories = still_here(&*ctx.store, memories)?;
            for id in exported {
                if !memories.iter().any(|(_, e)| *e == Some(id)) {
                    here.insert(id, id);
                }
            }
            // A line not active (the duplicate check reads active memories only) that is
            // exactly a memory here of its status is a copy of it, from another store.
            if memories.iter().any(|(m, _)| m.status != Status::Active) {
                if inactive.is_none() {
                    let statuses = [Status::Archived, Status::Merged, Status::Superseded];
                    inactive = Some(capture::exact_keys(&*ctx.store, &statuses)?);
                }
                let copies = inactive.get_or_insert_with(HashMap::new);
                memories.retain(|(m, id)| {
                    // The lowest id of several of its status.
                    let same = copies.get(&capture::exact_key(m)).and_then(|v| {
                        v.iter()
                            .filter(|&&(s, _)| s == m.status)
                            .map(|&(_, id)| id)
                            .min()
                    });
                    match same {
                        Some(here_id) => {
                            if let Some(e) = id {
                                here.insert(*e, here_id);
                            }
                            false
                        }
                        None => true,
                    }
                });
            }
            skipped += (before - memories.len()) as u64;
        }
        let exported: Vec<Option<i64>> = memories.iter().map(|(_, id)| *id).collect();
        let memories = memories.into_iter().map(|(m, _)| (m, None));
        let outcomes = ctx
            .remember(memories.collect(), &dedup, &mut std::io::stderr())
            .with_context(|| {
                // Each batch is a transaction of its own: the ones before it stay.
                let (first, last) = lines;
                if done_before == 0 {
                    format!("nothing was imported: lines {first}-{last} failed")
                } else {
                    format!(
                        "lines {first}-{last} and after were not imported; the {done_before} \
                         lines before them were, and importing the file again skips those"
                    )
                }
            })?
            .outcomes;
        for (o, exported) in outcomes.into_iter().zip(exported) {
            if let Some(e) = exported {
                here.insert(e, o.id());
            }
            match o {
                WriteOutcome::Inserted { .. } | WriteOutcome::Updated { .. } => inserted += 1,
                WriteOutcome::Merged { .. } => merged += 1,
                WriteOutcome::Skipped { .. } => skipped += 1,
            }
        }
        Ok(())
    };
    let (mut first, mut last) = (0, 0);
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read line {}", i + 1))?;
        bar.inc(line.len() as u64 + 1);
        if line.trim().is_empty() {
            continue;
        }
        let line = parse_import_line(&line).with_context(|| format!("line {}", i + 1))?;
        if let (Some(old), Some((by, at))) = (line.id, line.superseded) {
            versions.push((old, by, at));
        }
        if batch.is_empty() {
            first = i + 1;
        }
        last = i + 1;
        batch.push((line.memory, line.id));
        if batch.len() >= a.batch_size {
            flush(&mut batch, (first, last), &mut ctx)?;
        }
    }
    flush(&mut batch, (first, last), &mut ctx)?;
    bar.finish_and_clear();
    let (linked, _) = ctx.link_versions(&versions, &here)?;
    outln!(
        "imported: {inserted} inserted, {merged} merged, {skipped} skipped{}",
        match linked {
            0 => String::new(),
            n => format!("; {n} superseded by newer versions"),
        }
    )?;
    Ok(())
}

/// `oro-mem export`: the memories a filter keeps, as JSON lines `import` reads back.
pub(crate) fn export(ctx: Ctx, a: &args::ExportArgs) -> Result<()> {
    let filter = build_filter(&a.filter, Timestamp::now())?;
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            private::create_file(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    // One status after another, so that a file lists the active memories first.
    let statuses: Vec<Status> = if a.all {
        Status::ALL.to_vec()
    } else {
        filter.matched_statuses().collect()
    };
    let bar = progress(None, "exporting");
    let mut n = 0;
    for status in statuses {
        let f = Filter {
            statuses: vec![status],
            include_superseded: false,
            ..filter.clone()
        };
        n += ctx.store.for_each(&f, &mut |m| {
            serde_json::to_writer(&mut out, &m).map_err(|e| {
                oro_mem_core::Error::new(oro_mem_core::ErrorKind::Storage, e.to_string())
            })?;
            out.write_all(b"\n").map_err(|e| {
                oro_mem_core::Error::new(oro_mem_core::ErrorKind::Storage, e.to_string())
            })?;
            bar.inc(1);
            Ok(())
        })?;
    }
    out.flush()?;
    bar.finish_and_clear();
    if a.output.is_some() {
        outln!("exported {n} memories")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_knows_every_field_of_a_memory_to_store() {
        let mut m = NewMemory::new("x", MemoryType::Lesson);
        m.summary = Some("s".into());
        m.files = vec!["f".into()];
        m.entities = vec!["e".into()];
        m.created_at = Some(Timestamp::now());
        let v = serde_json::to_value(&m).unwrap();
        for key in v.as_object().unwrap().keys() {
            assert!(IMPORT_FIELDS.contains(&key.as_str()), "{key}");
        }
        assert!(
            IMPORT_FIELDS.windows(2).all(|w| w[0] < w[1]),
            "sorted, once each"
        );
    }
}
