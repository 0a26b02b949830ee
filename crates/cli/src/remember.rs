//! `oro-mem remember`: one memory written through the write policy, and what it decided.

use anyhow::{bail, Result};
use oro_mem_core::config::DedupConfig;
use oro_mem_core::store::WriteOutcome;
use oro_mem_core::{Config, NewMemory, Source};

use crate::{args, read_memory, render, Ctx, Exit, Io, EXIT_DUPLICATE};

/// `oro-mem remember`: one memory (the argument, or standard input for `-`) stored through the
/// write policy, and what it decided, as text or JSON. With `--strict`, anything but a new
/// memory or an update ends with [`EXIT_DUPLICATE`].
pub(crate) fn remember(ctx: &mut Ctx, a: &args::RememberArgs, io: &mut Io<'_>) -> Result<()> {
    let mut m = NewMemory::new(read_memory(&a.content, io.input)?, a.memory_type.parse()?)
        .tags(a.tags.iter().cloned())
        .confidence(a.confidence)
        .namespace(a.namespace.clone())
        .source(a.source.parse::<Source>()?);
    m.bead_id = a.bead_id.clone();
    m.worker_id = a.worker_id.clone();
    m.session = a.session.clone();
    m.summary = a.summary.clone();
    m.files = a.files.clone();
    m.entities = a.entities.clone();
    m.pinned = a.pin;
    m.supersedes = a.supersedes.clone();
    if let Some(json) = &a.metadata {
        match serde_json::from_str(json) {
            Ok(serde_json::Value::Object(map)) => m.metadata = map,
            Ok(_) => bail!("--metadata must be a JSON object such as '{{\"lang\": \"rust\"}}'"),
            Err(e) => bail!("--metadata is not valid JSON: {e}"),
        }
    }
    let mut dedup = dedup_config(ctx.engine.config(), a.no_dedup);
    if a.no_supersede {
        dedup.updates = false;
    }
    let outcome = ctx
        .remember(vec![(m, None)], &dedup, io.err)?
        .outcomes
        .remove(0);
    if a.json {
        let v = outcome_json(&outcome, &ctx.store)?;
        writeln!(io.out, "{}", serde_json::to_string(&v)?)?;
    } else {
        writeln!(io.out, "{}", describe(&outcome, Some(&ctx.store))?)?;
    }
    if a.strict
        && !matches!(
            outcome,
            WriteOutcome::Inserted { .. } | WriteOutcome::Updated { .. }
        )
    {
        return Err(Exit(EXIT_DUPLICATE).into());
    }
    Ok(())
}

/// `outcome` as `remember --json` prints it, with the text of what a memory not stored as new
/// was taken for, as MCP's `memory_remember` answers: `existing` (the memory it duplicates or
/// was merged into), or `superseded` (each memory it superseded, `{id, content}`).
fn outcome_json(
    outcome: &WriteOutcome,
    store: &dyn oro_mem_core::store::MemoryRead,
) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(outcome)?;
    match outcome {
        WriteOutcome::Inserted { .. } => {}
        WriteOutcome::Skipped {
            duplicate_of: id, ..
        }
        | WriteOutcome::Merged { into: id, .. } => {
            v["existing"] = store.get(*id)?.content.into();
        }
        WriteOutcome::Updated { supersedes, .. } => {
            let superseded = supersedes
                .iter()
                .map(|&id| Ok(serde_json::json!({"id": id, "content": store.get(id)?.content})))
                .collect::<Result<Vec<_>>>()?;
            v["superseded"] = superseded.into();
        }
    }
    Ok(v)
}

/// What a write did, in a line. With the `store` written to, also what a memory not stored
/// as new was taken for (the memory it duplicates, or those it superseded, each quoted) and
/// how to store it otherwise, as `remember` says.
pub(crate) fn describe(
    outcome: &WriteOutcome,
    store: Option<&dyn oro_mem_core::store::MemoryRead>,
) -> Result<String> {
    // ` "its content"` when there is a store to read it from.
    let quoted = |id: oro_mem_core::MemoryId| -> Result<String> {
        store.map_or(Ok(String::new()), |s| {
            Ok(format!(" {}", render::quoted(&s.get(id)?)))
        })
    };
    let hint = |text: String| {
        if store.is_some() {
            format!(" ({text})")
        } else {
            String::new()
        }
    };
    Ok(match outcome {
        WriteOutcome::Inserted { id } => format!("inserted as id {id}"),
        WriteOutcome::Updated { id, supersedes } => {
            // "id 2, id 3" each quoted, or "ids 2, 3".
            let olds = if store.is_some() {
                supersedes
                    .iter()
                    .map(|&old| Ok(format!("id {old}{}", quoted(old)?)))
                    .collect::<Result<Vec<_>>>()?
                    .join(", ")
            } else {
                let ids: Vec<String> = supersedes.iter().map(i64::to_string).collect();
                let s = if ids.len() == 1 { "" } else { "s" };
                format!("id{s} {}", ids.join(", "))
            };
            let first = supersedes.first().copied().unwrap_or_default();
            format!(
                "inserted as id {id}, superseding {olds}{}",
                hint(format!("`oro-mem memories restore {first}` undoes it"))
            )
        }
        WriteOutcome::Merged {
            into, confidence, ..
        } => format!(
            "merged into id {into}{} (confidence raised to {confidence})",
            quoted(*into)?
        ),
        WriteOutcome::Skipped { duplicate_of, .. } => format!(
            "skipped: duplicate of id {duplicate_of}{}{}",
            quoted(*duplicate_of)?,
            hint("`--no-dedup` stores it anyway".into())
        ),
    })
}

pub(crate) fn dedup_config(config: &Config, off: bool) -> DedupConfig {
    let mut d = config.dedup.clone();
    if off {
        d.enabled = false;
    }
    d
}
