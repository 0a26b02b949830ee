//! Writing memories with duplicate checks, once for every store over its
//! [`WriteTransaction`] primitives.

use oro_mem_core::config::DedupConfig;
use oro_mem_core::memory::{check_batch, validate_batch};
use oro_mem_core::store::{Commit, Embedding, WriteOutcome, WriteTransaction};
use oro_mem_core::{Memory, MemoryId, MemoryWrite, NewMemory, Result, Timestamp};

use crate::consolidate::says_the_same;

/// How many of a new memory's most similar memories by their words a duplicate check reads.
const NEIGHBOURS: usize = 5;

/// Validates and stores `batch` in one transaction of `store`, each memory with its embedding
/// if it has one, and each checked for duplicates of its namespace under `dedup`: inserted,
/// merged into a duplicate, or skipped. All or nothing.
///
/// A memory is a duplicate of an active memory of its namespace when its content, as a query,
/// scores that memory above `dedup.bm25` of its own score, or when its embedding's cosine
/// with that memory's (by the same model; already stored, or earlier in the batch) is above
/// `dedup.cosine`; and when both say the same thing (the same polarity and metadata: a
/// memory and its negation are no duplicates, nor are two runs with other parameters). The
/// lexical check comes first; of each check's matches, the most similar that says the same
/// thing is the duplicate. A duplicate more confident than the memory it repeats raises that
/// memory's confidence to its own (merged); any other is skipped.
///
/// A memory inserted into the middle of its session drops the embeddings of the memories
/// after it there, which were made without it ([`WriteTransaction::insert`]).
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) naming the bad memory
/// or embedding (by its position in the batch);
/// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the store fails. Nothing is
/// written then.
pub fn remember_embedded(
    store: &mut (impl MemoryWrite + ?Sized),
    batch: Vec<(NewMemory, Option<Embedding>)>,
    dedup: &DedupConfig,
) -> Result<Vec<WriteOutcome>> {
    let now = Timestamp::now();
    let (mut memories, embeddings): (Vec<NewMemory>, Vec<Option<Embedding>>) =
        batch.into_iter().unzip();
    validate_batch(&mut memories)?;
    check_batch(&embeddings, |e| {
        e.as_ref().map_or(Ok(()), Embedding::validate)
    })?;
    let mut outcomes = Vec::new();
    store.transact(&mut |tx| {
        outcomes = if dedup.enabled {
            let mut out = Vec::with_capacity(memories.len());
            for (m, e) in memories.iter().zip(&embeddings) {
                out.push(write_checked(tx, m, e.as_ref(), dedup, now)?);
            }
            out
        } else {
            let batch: Vec<(&NewMemory, Option<&Embedding>)> = memories
                .iter()
                .zip(embeddings.iter().map(Option::as_ref))
                .collect();
            tx.insert(&batch, now)?
                .into_iter()
                .map(|id| WriteOutcome::Inserted { id })
                .collect()
        };
        Ok(Commit::Yes)
    })?;
    Ok(outcomes)
}

/// [`remember_embedded`] for memories without embeddings.
///
/// # Errors
///
/// As [`remember_embedded`].
pub fn remember_batch(
    store: &mut (impl MemoryWrite + ?Sized),
    batch: Vec<NewMemory>,
    dedup: &DedupConfig,
) -> Result<Vec<WriteOutcome>> {
    remember_embedded(store, batch.into_iter().map(|m| (m, None)).collect(), dedup)
}

/// Writes `m` (with its embedding `e`) unless it duplicates an active memory of its
/// namespace. It is written first, provisionally, so that the lexical check scores it as the
/// index will once it is kept, then kept or taken back.
fn write_checked(
    tx: &mut dyn WriteTransaction,
    m: &NewMemory,
    e: Option<&Embedding>,
    dedup: &DedupConfig,
    now: Timestamp,
) -> Result<WriteOutcome> {
    let id = tx.insert_provisionally(m, e, now)?;
    let hits = tx.similar_lexically(id, &m.content, &m.namespace, dedup.bm25, NEIGHBOURS)?;
    let mut best = first_alike(tx, m, hits, dedup.bm25)?;
    if let (None, Some(e)) = (&best, e) {
        let near = tx.similar_by_vector(id, &m.namespace, e)?;
        best = first_alike(tx, m, near, dedup.cosine)?;
    }
    let Some((existing, similarity)) = best else {
        return Ok(WriteOutcome::Inserted { id });
    };
    tx.withdraw(id)?;
    if m.confidence > existing.confidence {
        tx.set_confidence(existing.id, m.confidence, now)?;
        Ok(WriteOutcome::Merged {
            into: existing.id,
            confidence: m.confidence,
            similarity,
        })
    } else {
        Ok(WriteOutcome::Skipped {
            duplicate_of: existing.id,
            similarity,
        })
    }
}

/// The memory of `hits` (by descending similarity) above `above` that `m` duplicates: its
/// exact twin (the same content) when there is one, else the first that says what `m` says.
/// A shorter rewording can score above the twin itself, and an exact copy must resolve to
/// its twin.
fn first_alike(
    tx: &mut dyn WriteTransaction,
    m: &NewMemory,
    hits: Vec<(MemoryId, f64)>,
    above: f64,
) -> Result<Option<(Memory, f64)>> {
    let mut first = None;
    for (other, similarity) in hits {
        if similarity <= above {
            continue;
        }
        let o = tx.memory(other)?;
        if !says_the_same(&m.content, &m.metadata, &o.content, &o.metadata) {
            continue;
        }
        if o.content == m.content {
            return Ok(Some((o, similarity)));
        }
        first.get_or_insert((o, similarity));
    }
    Ok(first)
}
