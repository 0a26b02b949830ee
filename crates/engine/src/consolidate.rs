//! Consolidation: merging near-duplicates, superseding older states of a fact, and
//! archiving stale memories, written once for every store over its [`WriteTransaction`]
//! primitives.

use std::collections::{HashMap, HashSet};

use oro_mem_core::config::ConsolidateConfig;
use oro_mem_core::store::{Commit, ConsolidateReport, WriteTransaction};
use oro_mem_core::{Memory, MemoryId, MemoryWrite, Result, Timestamp};

/// Merges near-duplicates, supersedes older states of a fact and archives stale
/// low-confidence memories, in one transaction of `store`.
///
/// Two active memories of one namespace are near-duplicates when one's content, as a query,
/// scores the other at `merge_bm25` or more of its own score, and they say the same thing
/// ([`is_alike`]), or when one says all the other says and more, word for word
/// ([`oro_mem_text::holds_the_other`], with the same values and metadata; a lexical
/// neighbour from a similarity of 0.5); but not when both are embedded by one model and
/// their cosine is below `merge_min_cosine` (the same words saying something else; an exact
/// copy is one whatever its vector). The one kept has the higher confidence (then: pinned,
/// then older, [`keeps`]) and takes the other in ([`WriteTransaction::fold_into`]). Two that
/// are the same statement with values changed or the same entry of a list changed
/// ([`oro_mem_text::updates`], the same metadata; found among a memory's lexical neighbours
/// from a similarity of 0.5, or its plain words' neighbours, [`oro_mem_text::plain_words`])
/// are two states of one fact, stored apart (before updates were detected on write, or with
/// them turned off): the one stored earlier is superseded by the later
/// ([`WriteTransaction::supersede`]). Memories are visited by ascending id; one merged away
/// or superseded is not visited again. Memories below `prune_below_confidence`, not pinned,
/// and neither accessed nor created in the last
/// `prune_after_days` are archived. The memories after one that left its session lose their
/// embeddings, which held it. With `dry_run` nothing is written and the report says what
/// would be.
///
/// # Errors
///
/// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the store fails; nothing is
/// changed then.
pub fn consolidate(
    store: &mut (impl MemoryWrite + ?Sized),
    config: &ConsolidateConfig,
    now: Timestamp,
    dry_run: bool,
) -> Result<ConsolidateReport> {
    let mut report = ConsolidateReport::default();
    store.transact(&mut |tx| {
        report = consolidated(tx, config, now, dry_run)?;
        Ok(if dry_run { Commit::No } else { Commit::Yes })
    })?;
    Ok(report)
}

/// [`consolidate`]'s work in transaction `tx`.
fn consolidated(
    tx: &mut dyn WriteTransaction,
    config: &ConsolidateConfig,
    now: Timestamp,
    dry_run: bool,
) -> Result<ConsolidateReport> {
    let mut report = ConsolidateReport {
        dry_run,
        ..ConsolidateReport::default()
    };
    let all = tx.active_memories()?;
    let by_id: HashMap<MemoryId, &Memory> = all.iter().map(|m| (m.id, m)).collect();
    let mut removed = HashSet::new();
    for m in &all {
        if removed.contains(&m.id) {
            continue;
        }
        // Counted for each memory: merging deletes memories.
        let mut size = crate::dedup::StoreSize::default();
        let mut hits = crate::dedup::lexical_neighbours(
            tx,
            &mut size,
            m.id,
            &m.content,
            &m.namespace,
            config.merge_bm25.min(crate::dedup::UPDATE_FLOOR),
        )?;
        // The neighbours of its plain words too, as the write path looks for what a new
        // memory updates: states of a fact only (their similarity is not the duplicates').
        for (other, _) in
            crate::dedup::plain_neighbours(tx, &mut size, m.id, &m.content, &m.namespace)?
        {
            if hits.iter().all(|&(seen, _)| seen != other) {
                // Below any merge threshold: a state of a fact, or nothing.
                hits.push((other, f64::NEG_INFINITY));
            }
        }
        for (other, similarity) in hits {
            if removed.contains(&other) {
                continue;
            }
            let Some(&o) = by_id.get(&other) else {
                continue;
            };
            // Two states of one fact: the older is superseded by the newer.
            let (old, new) = if (m.created_at, m.id) < (o.created_at, o.id) {
                (m, o)
            } else {
                (o, m)
            };
            // A clause added or dropped weighs on the similarity, not on what is said; but
            // one that names a new value or makes an exception, or a passage that names new
            // code, extends the older statement: a newer state of it, no repeat.
            let restated = similarity.is_finite()
                && restates(&m.content, &m.metadata, &o.content, &o.metadata);
            let apart = !restated && (similarity < config.merge_bm25 || !is_alike(m, o));
            // The same words saying something else, as the model reads them: kept apart,
            // as the write path keeps them (`dedup.min_cosine`). An exact copy is merged.
            let apart = apart
                || (m.content != o.content
                    && far_in_meaning(tx, m.id, o.id, config.merge_min_cosine)?);
            if apart || oro_mem_text::extends(&old.content, &new.content) {
                if old.metadata == new.metadata && oro_mem_text::updates(&old.content, &new.content)
                {
                    report.superseded.push((old.id, new.id));
                    removed.insert(old.id);
                    if !dry_run {
                        tx.supersede(old.id, new.id, now)?;
                    }
                    if old.id == m.id {
                        break;
                    }
                }
                continue;
            }
            let (keep, drop) = if keeps(m, o) { (m, o) } else { (o, m) };
            report.merged.push((keep.id, drop.id, similarity));
            removed.insert(drop.id);
            if !dry_run {
                tx.fold_into(keep.id, drop)?;
            }
            if drop.id == m.id {
                break;
            }
        }
    }
    let unused_since = Timestamp(now.as_second() - (config.prune_after_days * 86_400.0) as i64);
    report.archived = tx
        .stale(config.prune_below_confidence, unused_since)?
        .into_iter()
        .filter(|id| !removed.contains(id))
        .collect();
    if !dry_run {
        tx.archive(&report.archived, now)?;
        let left: Vec<&Memory> = all
            .iter()
            .filter(|m| removed.contains(&m.id) || report.archived.contains(&m.id))
            .collect();
        report.unembedded = tx.unembed_after(&left)?;
    }
    Ok(report)
}

/// Whether two memories alike in words say the same thing: a memory and its negation ("must
/// not" against "must") do not, nor do two that name different values ("port 8080" against
/// "port 9090": [`oro_mem_text::same_values`]) or two states of one fact ("tests run on
/// Jest" against "on Vitest": [`oro_mem_text::changed_value`]), nor two whose metadata differ
/// (two runs of a robot with other parameters).
pub fn is_alike(a: &Memory, b: &Memory) -> bool {
    says_the_same(&a.content, &a.metadata, &b.content, &b.metadata)
}

/// Whether one of two texts says all the other says, word for word and in order, and more
/// ([`oro_mem_text::holds_the_other`]: a clause added or dropped), or says it with nothing
/// but typos fixed and words written short or long ([`oro_mem_text::rewords`]: "deps" for
/// "dependencies"), with the same values and metadata and no value changed: a duplicate
/// however low their similarity, and even when the clause is negated ("…, pipx complains if
/// it isn't"). A negation alone put in front of a statement reverses it
/// ([`oro_mem_text::changed_value`]): no duplicate.
pub(crate) fn restates(
    a: &str,
    a_metadata: &serde_json::Map<String, serde_json::Value>,
    b: &str,
    b_metadata: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    same_statement(a, a_metadata, b, b_metadata)
        && (oro_mem_text::holds_the_other(a, b) || oro_mem_text::rewords(a, b))
}

/// [`is_alike`] of two texts with their metadata.
pub(crate) fn says_the_same(
    a: &str,
    a_metadata: &serde_json::Map<String, serde_json::Value>,
    b: &str,
    b_metadata: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    same_statement(a, a_metadata, b, b_metadata) && oro_mem_text::same_polarity(a, b)
}

/// The same metadata, the same values, no value changed (nor said to have changed:
/// [`oro_mem_text::says_changed`]), nothing said to hold beside
/// ([`oro_mem_text::says_beside`]) and the same subject
/// ([`oro_mem_text::subject_replaced`]): what a duplicate needs beside being alike in words.
fn same_statement(
    a: &str,
    a_metadata: &serde_json::Map<String, serde_json::Value>,
    b: &str,
    b_metadata: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    a_metadata == b_metadata
        && oro_mem_text::same_values(a, b)
        && !oro_mem_text::changed_value(a, b)
        && !oro_mem_text::says_changed(a, b)
        && !oro_mem_text::says_changed(b, a)
        && !oro_mem_text::says_beside(a, b)
        && !oro_mem_text::subject_replaced(a, b)
}

/// True when memories `a` and `b` are both embedded by one model and their cosine is below
/// `floor` (never at 0): [`says_otherwise`](crate::dedup::says_otherwise) with `a`'s
/// embedding.
fn far_in_meaning(
    tx: &mut dyn WriteTransaction,
    a: MemoryId,
    b: MemoryId,
    floor: f64,
) -> Result<bool> {
    if floor <= 0.0 {
        return Ok(false);
    }
    let e = tx.embedding_of(a)?;
    crate::dedup::says_otherwise(tx, b, e.as_ref().map(|e| (e, floor)))
}

/// Whether `a` is kept over `b` when they are merged: the higher confidence, then the pinned
/// one, then the older.
pub fn keeps(a: &Memory, b: &Memory) -> bool {
    (a.confidence, a.pinned, std::cmp::Reverse(a.created_at))
        > (b.confidence, b.pinned, std::cmp::Reverse(b.created_at))
}
