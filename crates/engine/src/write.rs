//! The write path: the engine embeds what is written (its model, its decision) and hands the
//! vectors to the store, which only keeps them.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::memory::{
    check_batch, embedded_text, places_before, validate_batch, CONTEXT_MEMORIES,
};
use oro_mem_core::store::ToEmbed;
use oro_mem_core::{
    CandidateSearch, Embedding, Error, ErrorKind, MemoryId, MemoryWrite, NewMemory, Result,
    Timestamp, WriteOutcome,
};
use oro_mem_rank_vector::{normalize, Embedder};
use serde::Serialize;

use crate::Engine;

/// What [`Engine::remember`] did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Remembered {
    /// What became of each memory, in the order given.
    pub outcomes: Vec<WriteOutcome>,
    /// Embeddings that came with the memories, of the engine's model, written as they were
    /// instead of embedding the text again.
    pub reused: usize,
    /// Memories whose embedding was made again after the write, because the memories before
    /// them in their session changed: stored ones that a memory of the batch was written
    /// just before (an older creation time than theirs; their embedding holds the memories
    /// before them, [`embed_in_context`], and the store drops it in the write's
    /// transaction), and memories of the batch whose memories before them, once written,
    /// were not those they were embedded with (one before them in the batch was a
    /// duplicate and not written, or another process wrote into the session meanwhile).
    pub reembedded: usize,
    /// Problems that did not stop the write: the model could not load, so the memories were
    /// stored without embeddings ([`Engine::embed_missing`] adds them later).
    pub warnings: Vec<String>,
}

/// What [`Engine::reembed`] did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Reembedded {
    /// Memories embedded again.
    pub done: usize,
    /// Why memories were left without an embedding (the model could not load or failed):
    /// [`Engine::embed_missing`] adds them later.
    pub warnings: Vec<String>,
}

/// How far [`Engine::embed_missing`] has gone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EmbedProgress {
    /// Memories this run embedded so far.
    pub done: u64,
    /// Memories another run, at the same time, embedded of those counted in `total`.
    pub by_others: u64,
    /// Memories that needed embedding when the run started.
    pub total: u64,
    /// Memories left that other runs hold claims on: this run waits for them to be
    /// embedded, or for the claims to end ([`EMBED_CLAIM`]) and takes them then.
    pub waiting_on: u64,
}

/// How long a run of [`Engine::embed_missing`] holds the memories it claimed before another
/// run may take them: far longer than a batch takes, short enough that a run started after
/// one was killed does not wait long for the batch that one held.
pub const EMBED_CLAIM: Duration = Duration::from_secs(10);

/// How often a run waiting on other runs' claims looks again.
const CLAIM_POLL: Duration = Duration::from_millis(200);

impl Engine {
    /// Stores `batch` in `store`, each memory checked for duplicates under `dedup`
    /// ([`remember_embedded`](crate::remember_embedded)), in one transaction: all or nothing.
    ///
    /// In hybrid and vector mode each memory is written with its embedding by the engine's
    /// model: the one it came with when that model made it (same model id and dimension),
    /// else one made now, all in one call to the model, with the memories before it in its
    /// session as context under `embedding.session_context` ([`embed_in_context`]; the one
    /// before may be in the store or earlier in `batch`). When the model cannot load, the
    /// memories are stored without embeddings and [`Remembered::warnings`] says why. In FTS
    /// mode no embedding is written.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] naming the bad memory (one past `memory.max_bytes`
    /// among them), before the model runs;
    /// [`ErrorKind::Embedding`] when the model fails; [`ErrorKind::Storage`] when the store
    /// fails. Nothing is written then.
    pub fn remember<S: CandidateSearch + MemoryWrite + ?Sized>(
        &mut self,
        store: &mut S,
        mut batch: Vec<(NewMemory, Option<Embedding>)>,
        dedup: &DedupConfig,
    ) -> Result<Remembered> {
        validate_batch(batch.iter_mut().map(|(m, _)| m))?;
        let limits = &self.config().memory;
        check_batch(batch.iter(), |(m, _)| limits.check(&m.content))?;
        let mut done = Remembered::default();
        let model = if self.config().mode.uses_vectors() {
            match self.embedder() {
                Ok(model) => Some(model),
                Err(e) => {
                    done.warnings
                        .push(format!("{e}; storing without embeddings"));
                    None
                }
            }
        } else {
            None
        };
        let embedded_after = match &model {
            Some(model) => self.embed_batch(&*store, model.as_ref(), &mut batch, &mut done)?,
            None => {
                batch.iter_mut().for_each(|(_, e)| *e = None);
                Vec::new()
            }
        };
        // The store drops the embeddings of the memories after an inserted one, whatever the
        // weight of the context: they are made again.
        let followers = match &model {
            Some(_) => followers(&*store, &batch)?,
            None => Vec::new(),
        };
        done.outcomes = crate::dedup::remember_embedded(store, batch, dedup)?;
        let mut stale = stale_after(&*store, followers, embedded_after, &done.outcomes)?;
        if model.is_some() {
            stale.extend(after_superseded(&*store, &done.outcomes)?);
            stale.sort_unstable();
            stale.dedup();
        }
        let again = self.reembed(store, &stale)?;
        done.reembedded = again.done;
        done.warnings.extend(again.warnings);
        Ok(done)
    }

    /// The embed stage of [`Engine::remember`]: gives each memory of `batch` its embedding by
    /// `model`, reusing the one it came with when `model` made it, else made now, in one call,
    /// with the memories before it in its session as context (`embedding.session_context`).
    /// Returns the memories of a session embedded here, by place in the batch, with what was
    /// before them when they were: to be checked once they are written.
    fn embed_batch<S: CandidateSearch + ?Sized>(
        &self,
        store: &S,
        model: &dyn Embedder,
        batch: &mut [(NewMemory, Option<Embedding>)],
        done: &mut Remembered,
    ) -> Result<Vec<(usize, Option<String>)>> {
        let weight = self.config().embedding.session_context;
        let mut missing = Vec::new();
        for (i, (_, e)) in batch.iter_mut().enumerate() {
            if e.as_ref().is_some_and(|e| is_from(e, model)) {
                done.reused += 1;
            } else {
                *e = None;
                missing.push(i);
            }
        }
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<Cow<'_, str>> = batch
            .iter()
            .map(|(m, _)| embedded_text(m.summary.as_deref(), &m.content))
            .collect();
        let before = if weight > 0.0 {
            before_in_batch(store, batch, &texts, &missing)?
        } else {
            vec![None; missing.len()]
        };
        let items: Vec<(&str, Option<&str>)> = missing
            .iter()
            .zip(&before)
            .map(|(&i, b)| (texts[i].as_ref(), b.as_deref()))
            .collect();
        let made = embed_in_context(model, &items, weight)?;
        let embedded_after = if weight > 0.0 {
            missing
                .iter()
                .zip(&before)
                .filter(|&(&i, _)| batch[i].0.session.is_some())
                .map(|(&i, b)| (i, b.clone()))
                .collect()
        } else {
            Vec::new()
        };
        drop(texts); // it borrows the batch, which takes the embeddings next
        for (i, vector) in missing.into_iter().zip(made) {
            batch[i].1 = Some(Embedding {
                model: model.model_id().to_string(),
                vector,
            });
        }
        Ok(embedded_after)
    }

    /// Embeds `ids` again, each with the memories now before it in its session as context, in
    /// hybrid and vector mode: the memories whose embeddings a store dropped when the memory
    /// before them was archived, reactivated or deleted ([`MemoryWrite::forget`],
    /// [`MemoryWrite::set_status`], a consolidation's `unembedded`). In FTS mode, or when the
    /// model cannot load or fails, they stay without an embedding, [`Reembedded::warnings`]
    /// says why (not in FTS mode), and [`Engine::embed_missing`] adds them later.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the store fails.
    pub fn reembed<S: CandidateSearch + MemoryWrite + ?Sized>(
        &mut self,
        store: &mut S,
        ids: &[MemoryId],
    ) -> Result<Reembedded> {
        let mut done = Reembedded::default();
        if ids.is_empty() || !self.config().mode.uses_vectors() {
            return Ok(done);
        }
        let left = |e: Error| {
            format!(
                "{e}; {} left without an embedding",
                match ids {
                    [id] => format!("memory {id} is"),
                    _ => format!("{} memories are", ids.len()),
                }
            )
        };
        let model = match self.embedder() {
            Ok(model) => model,
            Err(e) => {
                done.warnings.push(left(e));
                return Ok(done);
            }
        };
        let todo = store.to_embed(ids)?;
        match embed_each(
            model.as_ref(),
            todo,
            self.config().embedding.session_context,
        ) {
            Ok(rows) => done.done = store.set_embeddings(model.model_id(), &rows)?,
            Err(e) => done.warnings.push(left(e)),
        }
        Ok(done)
    }

    /// Embeds again, as [`reembed`](Engine::reembed) does, each memory of `made_after` whose
    /// texts before it in its session are not, now, the ones given beside it, which its
    /// embedding was made with: memories written with another store's embeddings (`merge`),
    /// which can land among other memories of their session here. Nothing in FTS mode or
    /// when `embedding.session_context` is 0, where an embedding does not depend on them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the store fails.
    pub fn reembed_moved<S: CandidateSearch + MemoryWrite + ?Sized>(
        &mut self,
        store: &mut S,
        made_after: &[(MemoryId, Option<String>)],
    ) -> Result<Reembedded> {
        if !self.config().mode.uses_vectors() || self.config().embedding.session_context <= 0.0 {
            return Ok(Reembedded::default());
        }
        let ids = moved(&*store, made_after)?;
        self.reembed(store, &ids)
    }

    /// Embeds every memory of `store` that has no embedding by the engine's model (none, or
    /// one by another model), with the memories before it in its session as context as
    /// [`remember`](Engine::remember) does, `batch_size` at a time, each batch stored in one
    /// transaction, calling `progress` before the first and after each. Interrupted, it keeps
    /// every finished batch; run again, it goes on from there.
    ///
    /// Runs at the same time share the work: each batch is claimed first
    /// ([`MemoryWrite::claim_unembedded`]), and a run skips what another holds. When only
    /// memories held by others are left, it waits for them to be embedded or for their claims
    /// to end ([`EMBED_CLAIM`], a run that was killed), so when it returns every memory has
    /// an embedding by the model.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`] when the model cannot load or fails;
    /// [`ErrorKind::Storage`] when the store fails. Finished batches stay written.
    pub fn embed_missing<S: CandidateSearch + MemoryWrite + ?Sized>(
        &mut self,
        store: &mut S,
        batch_size: usize,
        mut progress: impl FnMut(EmbedProgress),
    ) -> Result<EmbedProgress> {
        let embedder = self.embedder()?;
        let model = embedder.model_id();
        let weight = self.config().embedding.session_context;
        let batch_size = batch_size.max(1);
        let claim = i64::try_from(EMBED_CLAIM.as_secs()).unwrap_or(i64::MAX);
        let mut state = EmbedProgress {
            total: store.count_unembedded(model)?,
            ..EmbedProgress::default()
        };
        progress(state);
        // Claims go by ascending id from `after`; when nothing is left above it, the run
        // starts over from 0 once for what it skipped, then waits for the rest.
        let mut after = 0;
        loop {
            let now = Timestamp::now();
            let until = Timestamp(now.0.saturating_add(claim));
            let batch = store.claim_unembedded(model, after, batch_size, now, until)?;
            let left = if let Some(last) = batch.last() {
                after = last.id;
                let made = embed_each(embedder.as_ref(), batch, weight)?;
                // What changed since it was claimed is left for the next pass.
                state.done += store.set_embeddings(model, &made)? as u64;
                state.waiting_on = 0;
                store.count_unembedded(model)?
            } else {
                let left = store.count_unembedded(model)?;
                if left > 0 && after == 0 {
                    std::thread::sleep(CLAIM_POLL);
                }
                after = 0;
                state.waiting_on = left;
                left
            };
            state.by_others = state.total.saturating_sub(left).saturating_sub(state.done);
            state.total = state.total.max(state.done);
            progress(state);
            if left == 0 {
                break;
            }
        }
        Ok(state)
    }
}

/// Of `made_after`, memories with the texts before them in their session that their
/// embeddings were made with, those whose texts before them in `store` are now other ones.
fn moved<S: CandidateSearch + ?Sized>(
    store: &S,
    made_after: &[(MemoryId, Option<String>)],
) -> Result<Vec<MemoryId>> {
    if made_after.is_empty() {
        return Ok(Vec::new());
    }
    let made: HashMap<MemoryId, &Option<String>> = made_after
        .iter()
        .map(|(id, before)| (*id, before))
        .collect();
    let ids: Vec<MemoryId> = made.keys().copied().collect();
    Ok(store
        .to_embed(&ids)?
        .into_iter()
        .filter(|m| made.get(&m.id).is_some_and(|b| **b != m.before))
        .map(|m| m.id)
        .collect())
}

/// For each of `batch[missing[k]]`, the texts to embed of the memories before it in its
/// session, if any, one per line: the last [`CONTEXT_MEMORIES`] active ones of the session
/// (same namespace) before it, by creation time and then place, among those earlier in
/// `batch` ([`places_before`]) and those in `store` (which come first at the same time: they
/// were written first), oldest first. `texts` are `batch`'s texts to embed.
fn before_in_batch<S: CandidateSearch + ?Sized>(
    store: &S,
    batch: &[(NewMemory, Option<Embedding>)],
    texts: &[Cow<'_, str>],
    missing: &[usize],
) -> Result<Vec<Option<String>>> {
    let now = Timestamp::now();
    let in_batch = places_before(&batch.iter().map(|(m, _)| m).collect::<Vec<_>>(), now);
    let mut out = Vec::with_capacity(missing.len());
    for &i in missing {
        let m = &batch[i].0;
        let Some(session) = m.session.as_deref() else {
            out.push(None);
            continue;
        };
        let at = m.created_at.unwrap_or(now);
        // In order: by time, and at the same time the store's before the batch's.
        let stored = store.last_in_session(&m.namespace, session, at)?;
        let mut before: Vec<(Timestamp, bool, &str)> = stored
            .iter()
            .map(|(t, text)| (*t, false, text.as_str()))
            .chain(in_batch[i].iter().map(|&(t, j)| (t, true, &*texts[j])))
            .collect();
        before.sort_by_key(|&(t, in_batch, _)| (t, in_batch)); // stable: batch order kept
        let last = &before[before.len().saturating_sub(CONTEXT_MEMORIES)..];
        out.push((!last.is_empty()).then(|| {
            last.iter()
                .map(|&(_, _, text)| text)
                .collect::<Vec<_>>()
                .join("\n")
        }));
    }
    Ok(out)
}

/// For each memory of `batch` in a session, the memories of the store it comes before
/// ([`CandidateSearch::next_in_session`]), with its place in the batch: those whose
/// embeddings, made with the memories before them, are out of date once it is written. Read
/// before the batch is written.
fn followers<S: CandidateSearch + ?Sized>(
    store: &S,
    batch: &[(NewMemory, Option<Embedding>)],
) -> Result<Vec<(MemoryId, usize)>> {
    let now = Timestamp::now();
    let mut out = Vec::new();
    for (i, (m, _)) in batch.iter().enumerate() {
        if let Some(session) = m.session.as_deref() {
            let at = m.created_at.unwrap_or(now);
            let next = store.next_in_session(&m.namespace, session, at)?;
            out.extend(next.into_iter().map(|id| (id, i)));
        }
    }
    Ok(out)
}

/// The memories after those `outcomes` superseded in their sessions, which lost their
/// embeddings with them (made with them among the memories before them).
fn after_superseded<S: CandidateSearch + ?Sized>(
    store: &S,
    outcomes: &[WriteOutcome],
) -> Result<Vec<MemoryId>> {
    let mut out = Vec::new();
    for outcome in outcomes {
        let WriteOutcome::Updated { supersedes, .. } = outcome else {
            continue;
        };
        for old in store.get_many(supersedes)? {
            if let Some(session) = old.session.as_deref() {
                out.extend(store.next_in_session(&old.namespace, session, old.created_at)?);
            }
        }
    }
    Ok(out)
}

/// Embeds each memory of `todo` (as [`MemoryWrite::claim_unembedded`] and
/// [`CandidateSearch::to_embed`] hand them out) with the memories before it
/// ([`embed_in_context`]): the rows for [`MemoryWrite::set_embeddings`].
fn embed_each(
    embedder: &dyn Embedder,
    todo: Vec<ToEmbed>,
    weight: f64,
) -> Result<Vec<(ToEmbed, Vec<f32>)>> {
    let items: Vec<(&str, Option<&str>)> = todo
        .iter()
        .map(|m| (m.text.as_str(), m.before.as_deref()))
        .collect();
    let made = embed_in_context(embedder, &items, weight)?;
    Ok(todo.into_iter().zip(made).collect())
}

/// The most of the text before a memory that goes into its embedding, in bytes (its end: the
/// part next to the memory). The model reads a few hundred words; this leaves the memory's
/// own text room.
const MAX_BEFORE_BYTES: usize = 1000;

/// Embeds `items`, each `(text, before)`: `e(text)` when `before` is `None` or `weight` is 0,
/// else `e(text) + weight × e(before + "\n" + text)` made unit length (`before` cut to its
/// last 1,000 bytes), so a memory is found by what it says in the light of what it
/// follows. All texts go to the model in one call.
///
/// # Errors
///
/// [`ErrorKind::Embedding`] when the model fails or returns vectors of the wrong number or
/// dimension.
pub fn embed_in_context(
    embedder: &dyn Embedder,
    items: &[(&str, Option<&str>)],
    weight: f64,
) -> Result<Vec<Vec<f32>>> {
    let mut texts: Vec<Cow<'_, str>> = items.iter().map(|&(t, _)| t.into()).collect();
    let mut paired = Vec::new();
    if weight > 0.0 {
        for (k, &(text, before)) in items.iter().enumerate() {
            if let Some(before) = before {
                paired.push((k, texts.len()));
                texts.push(format!("{}\n{text}", tail(before, MAX_BEFORE_BYTES)).into());
            }
        }
    }
    let texts: Vec<&str> = texts.iter().map(AsRef::as_ref).collect();
    let mut made = embed_checked(embedder, &texts)?;
    let w = weight as f32;
    for (k, p) in paired {
        let (alone, with) = made.split_at_mut(p);
        let v = &mut alone[k];
        for (x, y) in v.iter_mut().zip(&with[0]) {
            *x += w * y;
        }
        normalize(v);
    }
    made.truncate(items.len());
    Ok(made)
}

/// The last `max` bytes of `s` at most, starting at a character boundary.
fn tail(s: &str, max: usize) -> &str {
    let mut start = s.len().saturating_sub(max);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// True when `embedder` would have made `e`: same model id and dimension.
fn is_from(e: &Embedding, embedder: &dyn Embedder) -> bool {
    e.model == embedder.model_id() && e.vector.len() == embedder.dimension()
}

/// `texts` embedded, checked: one vector per text, each of the model's dimension.
fn embed_checked(embedder: &dyn Embedder, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let vectors = embedder.embed(texts)?;
    let dim = embedder.dimension();
    if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != dim) {
        return Err(Error::new(
            ErrorKind::Embedding,
            format!(
                "{} returned {} vectors for {} texts, or a vector not of dimension {dim}",
                embedder.model_id(),
                vectors.len(),
                texts.len()
            ),
        ));
    }
    Ok(vectors)
}

/// The memories whose embeddings went stale with a write whose outcomes are `outcomes`: those
/// now after a memory the batch inserted (`followers`: each with the place in the batch of
/// the memory it follows), and those of the batch embedded with other memories before them
/// (`embedded_after`) than are before them once written (a memory of the batch before it was
/// a duplicate and not written, or another process wrote into the session meanwhile). By
/// ascending id.
fn stale_after<S: CandidateSearch + ?Sized>(
    store: &S,
    followers: Vec<(MemoryId, usize)>,
    embedded_after: Vec<(usize, Option<String>)>,
    outcomes: &[WriteOutcome],
) -> Result<Vec<MemoryId>> {
    let mut stale: Vec<MemoryId> = followers
        .into_iter()
        .filter(|&(_, i)| matches!(outcomes[i], WriteOutcome::Inserted { .. }))
        .map(|(id, _)| id)
        .collect();
    let written: Vec<(MemoryId, Option<String>)> = embedded_after
        .into_iter()
        .filter_map(|(i, before)| match outcomes[i] {
            WriteOutcome::Inserted { id } => Some((id, before)),
            _ => None,
        })
        .collect();
    stale.extend(moved(store, &written)?);
    stale.sort_unstable();
    stale.dedup();
    Ok(stale)
}
