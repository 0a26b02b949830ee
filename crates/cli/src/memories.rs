//! `oro-mem memories`: list the memories, show one with its versions, forget, restore, pin,
//! consolidate.

use std::collections::HashSet;

use anyhow::{bail, Result};
use oro_mem_core::store::ListOrder;
use oro_mem_core::{Filter, Status, Timestamp};

use crate::args::{MemoriesCommand, Sort};
use crate::{args, build_filter, consolidate, render, Ctx, Io};

/// `memories list` (and bare `memories`).
pub(crate) fn list(ctx: &Ctx, a: &args::ListArgs, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    let filter = build_filter(&a.filter, now)?;
    let episode = filter.session.is_some();
    let sort = a
        .sort
        .unwrap_or(if episode { Sort::Oldest } else { Sort::Newest });
    let order = match sort {
        Sort::Newest => ListOrder::Newest,
        Sort::Oldest => ListOrder::Oldest,
        Sort::Accessed => ListOrder::MostAccessed,
        Sort::Confidence => ListOrder::Confidence,
    };
    let list = ctx.store.list(&filter, order, a.limit, a.offset)?;
    for m in &list {
        if a.json {
            writeln!(io.out, "{}", serde_json::to_string(m)?)?;
        } else {
            writeln!(io.out, "{}", render::list_line(m, now))?;
        }
    }
    if !a.json {
        let total = ctx.store.count(&filter)?;
        if total as usize > list.len() {
            writeln!(
                io.err,
                "({} of {total} shown; use --limit and --offset for more)",
                list.len()
            )?;
        }
    }
    Ok(())
}

/// The memories `ids` names, in that order (an id given twice is one), all checked before a
/// command touches any: an id with no memory fails it, saying `nothing {done}`, so that it
/// acts on all of them or none.
fn every_memory(ctx: &Ctx, ids: &[i64], done: &str) -> Result<Vec<oro_mem_core::Memory>> {
    let mut seen = HashSet::new();
    let ids: Vec<i64> = ids.iter().copied().filter(|id| seen.insert(*id)).collect();
    let mut found = ctx.store.get_many(&ids)?;
    let missing: Vec<String> = ids
        .iter()
        .filter(|id| !found.iter().any(|m| m.id == **id))
        .map(i64::to_string)
        .collect();
    if !missing.is_empty() {
        bail!("no memory with id {}: nothing {done}", missing.join(", "));
    }
    found.sort_by_key(|m| ids.iter().position(|id| *id == m.id));
    Ok(found)
}

/// The versions of the fact `m` holds, oldest first: the memories it superseded and those they
/// superseded in turn (the furthest back first, then by creation), `m`, and the newer
/// versions that superseded it, each once. Just `m` when it neither superseded nor was superseded.
fn versions(
    store: &dyn oro_mem_core::store::MemoryStore,
    m: &oro_mem_core::Memory,
) -> Result<Vec<oro_mem_core::Memory>> {
    let mut superseded = Vec::new();
    store.for_each(
        &Filter {
            statuses: vec![Status::Superseded],
            namespace: Some(m.namespace.clone()),
            ..Filter::default()
        },
        &mut |s| {
            superseded.push(s);
            Ok(())
        },
    )?;
    // Those superseded by `m`, then by them, and so on, with how far back each is.
    let mut older: Vec<(usize, oro_mem_core::Memory)> = Vec::new();
    let mut newer = vec![(m.id, 0)];
    while let Some((id, d)) = newer.pop() {
        for s in superseded.iter().filter(|s| s.superseded_by == Some(id)) {
            if s.id != m.id && !older.iter().any(|(_, o)| o.id == s.id) {
                newer.push((s.id, d + 1));
                older.push((d + 1, s.clone()));
            }
        }
    }
    // Oldest first: the furthest back first, then by creation.
    older.sort_by_key(|(d, o)| (std::cmp::Reverse(*d), o.created_at, o.id));
    let mut all: Vec<oro_mem_core::Memory> = older.into_iter().map(|(_, o)| o).collect();
    all.push(m.clone());
    let mut next = m.superseded_by;
    while let Some(id) = next {
        if all.iter().any(|v| v.id == id) {
            break;
        }
        match store.get(id) {
            Ok(v) => {
                next = v.superseded_by;
                all.push(v);
            }
            // Forgotten since.
            Err(e) if e.kind() == oro_mem_core::ErrorKind::NotFound => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(all)
}

pub(crate) fn memories(ctx: &mut Ctx, cmd: &MemoriesCommand, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    match cmd {
        MemoriesCommand::List(a) => list(ctx, a, io)?,
        MemoriesCommand::Consolidate(a) => return consolidate(ctx, a, io),
        MemoriesCommand::Show { id, json, no_touch } => {
            // Read in full: a use, as MCP's memory_get is.
            let m = ctx.read_in_full(*id, !no_touch, io.err)?;
            let versions = versions(&*ctx.store, &m)?;
            if *json {
                let mut value = serde_json::to_value(&m)?;
                let supersedes: Vec<i64> = versions
                    .iter()
                    .filter(|v| v.superseded_by == Some(m.id))
                    .map(|v| v.id)
                    .collect();
                if let (false, Some(object)) = (supersedes.is_empty(), value.as_object_mut()) {
                    object.insert("supersedes".into(), supersedes.into());
                }
                writeln!(io.out, "{}", serde_json::to_string_pretty(&value)?)?;
            } else {
                write!(io.out, "{}", render::memory_details(&m, now))?;
                if versions.len() > 1 {
                    write!(io.out, "{}", render::versions(&versions, m.id))?;
                }
            }
        }
        MemoriesCommand::Forget { ids, archive } => {
            let done = if *archive { "archived" } else { "forgotten" };
            let found = every_memory(ctx, ids, done)?;
            let mut unembedded = Vec::new();
            for m in &found {
                let id = m.id;
                // The older versions it superseded stay superseded: the fact leaves recall
                // with it, and `restore` brings an older version back.
                let older: Vec<String> = versions(&*ctx.store, m)?
                    .iter()
                    .filter(|v| v.superseded_by == Some(id) && v.status == Status::Superseded)
                    .map(|v| v.id.to_string())
                    .collect();
                if *archive {
                    unembedded.extend(ctx.store.set_status(id, Status::Archived)?);
                    write!(io.out, "archived {id}")?;
                } else {
                    unembedded.extend(ctx.store.forget(id)?);
                    write!(io.out, "forgot {id}")?;
                }
                match older.as_slice() {
                    [] => writeln!(io.out)?,
                    [one] => writeln!(
                        io.out,
                        "; {one}, the version it superseded, stays superseded \
                         (`oro-mem memories restore {one}` makes it current again)"
                    )?,
                    many => writeln!(
                        io.out,
                        "; {}, the versions it superseded, stay superseded \
                         (`oro-mem memories restore ID` makes one current again)",
                        many.join(", ")
                    )?,
                }
            }
            // One of them may have been forgotten after its embedding was dropped.
            ctx.reembed(&unembedded, io.err)?;
        }
        MemoriesCommand::Restore { ids } => {
            let found = every_memory(ctx, ids, "restored")?;
            let mut unembedded = Vec::new();
            for m in found.iter().filter(|m| m.status != Status::Active) {
                unembedded.extend(ctx.store.set_status(m.id, Status::Active)?);
            }
            for m in &found {
                match (m.status, m.merged_into, m.superseded_by) {
                    (Status::Active, ..) => writeln!(io.out, "{}: already active", m.id)?,
                    (Status::Merged, Some(into), _) => {
                        writeln!(io.out, "restored {} (was merged into {into})", m.id)?
                    }
                    (Status::Superseded, _, Some(by)) => {
                        writeln!(io.out, "restored {} (was superseded by {by})", m.id)?
                    }
                    (status, ..) => writeln!(io.out, "restored {} (was {status})", m.id)?,
                }
            }
            // Active again: embedded with its session's context, and those after it.
            ctx.reembed(&unembedded, io.err)?;
        }
        MemoriesCommand::Pin { id, unpin } => {
            ctx.store.set_pinned(*id, !unpin)?;
            writeln!(
                io.out,
                "{} {id}",
                if *unpin { "unpinned" } else { "pinned" }
            )?;
        }
    }
    Ok(())
}
