//! `oro-mem recall` and `oro-mem inject`: a task's memories, as a list, JSON or a prompt.

use std::io::Write;

use anyhow::{bail, Context, Result};
use oro_mem_core::config::RecallRequest;
use oro_mem_core::store::ListOrder;
use oro_mem_core::{Config, Near, Query, Timestamp};
use oro_mem_engine::{Abstention, Answer};

use crate::args::Format;
use crate::{args, build_filter, hook, read_content, render, Ctx, Io};

/// `oro-mem recall`: a query's memories as the recall pipeline selects them; `*` replays a
/// session instead ([`replay`]).
pub(crate) fn recall(ctx: &mut Ctx, a: &args::RecallArgs, io: &mut Io<'_>) -> Result<()> {
    let now = match &a.now {
        Some(t) => t.parse()?,
        None => Timestamp::now(),
    };
    if a.query.trim() == "*" {
        return replay(ctx, a, io, now);
    }
    let config = RecallRequest {
        mode: a.mode,
        limit: a.limit,
        budget: a.budget,
        min_relevance: a.min_relevance,
        depth: a.depth,
        scoring: a.scoring,
        fusion: a.fusion.clone(),
        decay: a.decay.then_some(true),
        decay_half_life: a.decay_half_life,
    }
    .apply(ctx.engine.config())?;
    let near = a
        .near
        .as_deref()
        .map(|spec| Near::parse(spec, a.max_distance))
        .transpose()
        .context("--near")?;
    let text = read_content(&a.query, io.input)?;
    anyhow::ensure!(
        !oro_mem_text::is_blank(&text) || near.is_some(),
        "the query is empty: give the words to search for (`oro-mem memories list` lists \
         every memory)"
    );
    let filter = build_filter(&a.filter, now)?;
    let mut query = Query::new(&text, &filter).now(now);
    if let Some(near) = &near {
        query = query.near(near);
    }
    let answer = run_recall(ctx, &config, &query, !a.no_touch, io)?;
    let format = if a.json { Format::Json } else { a.format };
    let out = &mut io.out;
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &answer)?;
            writeln!(out)?;
        }
        Format::Prompt => write!(out, "{}", render::prompt(&answer.recall.results, now))?,
        Format::Text => {
            if answer.recall.results.is_empty() {
                writeln!(out, "No relevant memories.")?;
            } else {
                write!(
                    out,
                    "{}",
                    render::text(&answer.recall.results, a.explain, now)
                )?;
            }
            if a.explain {
                writeln!(
                    out,
                    "{}; answered by {}",
                    render::funnel(
                        &answer.recall,
                        oro_mem_engine::min_similarity(&config, answer.mode)
                    ),
                    answer.answered_by
                )?;
            }
        }
    }
    // What was withheld by the relevance bar is worth a line to whoever reads the text; a
    // prompt or JSON reader (a hook, a script) has it in the JSON's `abstained`.
    if let Some(why) = &answer.recall.abstained {
        let withheld = matches!(why, Abstention::BelowRelevance { .. });
        let no_terms = matches!(why, Abstention::NoTerms);
        if a.explain || ((withheld || no_terms) && format == Format::Text) {
            let hint = if withheld {
                " (--min-relevance 0 shows the best matches)"
            } else {
                ""
            };
            writeln!(io.err, "oro-mem: nothing recalled: {why}{hint}")?;
        }
    }
    Ok(())
}

/// `recall "*" --session ID`: the session's memories (under the other filters) in the order
/// they were written, oldest first, not ranked: its episode. At most `--limit` of them
/// (default 100); access is not counted.
fn replay(ctx: &mut Ctx, a: &args::RecallArgs, io: &mut Io<'_>, now: Timestamp) -> Result<()> {
    let filter = build_filter(&a.filter, now)?;
    let Some(session) = filter.session.clone() else {
        bail!("recall \"*\" replays a session in the order it was written: add --session ID");
    };
    let limit = a.limit.unwrap_or(oro_mem_core::config::MAX_RESULTS);
    let episode = ctx.store.list(&filter, ListOrder::Oldest, limit, 0)?;
    let format = if a.json { Format::Json } else { a.format };
    let out = &mut io.out;
    match format {
        Format::Json => {
            let replay = serde_json::json!({ "replay": session, "results": episode });
            serde_json::to_writer_pretty(&mut *out, &replay)?;
            writeln!(out)?;
        }
        Format::Prompt => write!(out, "{}", render::prompt_of(&episode, now))?,
        Format::Text if episode.is_empty() => {
            writeln!(out, "No memories in session {session:?}.")?;
        }
        Format::Text => {
            for m in &episode {
                writeln!(out, "{}", render::list_line(m, now))?;
            }
        }
    }
    Ok(())
}

/// What `recall` and `inject` share: checks `config`, asks `query` with it, and writes the
/// warnings on the error stream.
fn run_recall(
    ctx: &mut Ctx,
    config: &Config,
    query: &Query<'_>,
    touch: bool,
    io: &mut Io<'_>,
) -> Result<Answer> {
    let mut engine = ctx.engine.reconfigured(config.clone())?;
    if touch && ctx.store.is_read_only() {
        writeln!(
            io.err,
            "oro-mem: {} is read-only where it is: access counts are not updated",
            ctx.store.location()
        )?;
    }
    let touch = touch && !ctx.store.is_read_only();
    let answer = engine.recall(&mut ctx.store, query, touch)?;
    for w in &answer.recall.warnings {
        writeln!(io.err, "oro-mem: {w}")?;
    }
    Ok(answer)
}

/// `recall --format prompt` with the configured budget and count, for a hook that runs
/// before every prompt: the output is the section or nothing, diagnostics go to the error
/// stream.
pub(crate) fn inject(ctx: &mut Ctx, a: &args::InjectArgs, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    let config = RecallRequest {
        mode: a.mode,
        ..RecallRequest::default()
    }
    .apply(ctx.engine.config())?;
    let task = match (a.hook, &a.task) {
        (Some(args::Hook::Claude), _) => match hook::claude_task(io.input)? {
            Some(task) => task,
            // Nothing to go on yet (a new session): nothing to add.
            None => return Ok(()),
        },
        (None, Some(task)) => read_content(task, io.input)?,
        (None, None) => bail!("inject needs --task or --hook"),
    };
    let filter = build_filter(&a.filter, now)?;
    let query = Query::new(&task, &filter).now(now);
    let answer = run_recall(ctx, &config, &query, !a.no_touch, io)?;
    write!(io.out, "{}", render::prompt(&answer.recall.results, now))?;
    Ok(())
}
