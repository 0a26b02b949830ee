//! Writing memories with duplicate checks, once for every store over its
//! [`WriteTransaction`] primitives.

use oro_mem_core::config::DedupConfig;
use oro_mem_core::memory::{check_batch, validate_batch};
use oro_mem_core::store::{Commit, Embedding, WriteOutcome, WriteTransaction};
use oro_mem_core::{Error, Memory, MemoryId, MemoryWrite, NewMemory, Result, Status, Timestamp};

use crate::consolidate::{restates, says_the_same};

/// How many of a new memory's most similar memories by their words a duplicate check reads.
const NEIGHBOURS: usize = 5;

/// The lexical similarity from which an older memory may be one a new memory updates (or
/// restates, with a clause added): well below the duplicate threshold, as a changed path or
/// command changes index terms too, and an entry rewritten at length ("**Failure modes:**
/// …") adds many words the old one lacks. What decides is [`oro_mem_text::updates`]; this
/// only bounds which of the nearest few it reads. From 0.5: 0.3 to 0.0 decide the same on
/// updates-dev and the written and PyPI-archive pairs, and 0.2 supersedes nothing more in
/// the three corpora written one by one.
pub(crate) const UPDATE_FLOOR: f64 = 0.2;

/// The most memories a store holds (of every namespace and status) for
/// [`lexical_neighbours`] to weigh every word alike. BM25's IDF of a word that `n` of `N`
/// memories hold, `ln((N − n + 0.5) / (n + 0.5))`, is floored at almost nothing from `n ≥
/// N / 2`: in a store of up to four memories, a word two of them share weighs nothing, and
/// two statements alike but for one word score as strangers ("Do not push directly to the
/// main branch" and "Never push …", with two other memories stored: similarity 0.00).
const FEW_MEMORIES: u64 = 4;

/// The memories of `namespace` most similar to `content` (memory `id`'s content or its words,
/// the query) by their words, of similarity at least `at_least`, best first, at most
/// [`NEIGHBOURS`]: [`WriteTransaction::similar_lexically`]. In a store of at most
/// [`FEW_MEMORIES`], whose word statistics give a shared word no weight, a memory's
/// similarity is the one it would have in a store of only it and memory `id`, where every
/// word weighs alike: what BM25 gives in a store of two, and so what the write path decides
/// in a store of one.
pub(crate) fn lexical_neighbours(
    tx: &mut dyn WriteTransaction,
    size: &mut StoreSize,
    id: MemoryId,
    content: &str,
    namespace: &str,
    at_least: f64,
) -> Result<Vec<(MemoryId, f64)>> {
    if !size.few(tx)? {
        return tx.similar_lexically(id, content, namespace, at_least, NEIGHBOURS);
    }
    // Every memory that shares a word: a few at most.
    let matches = tx.similar_lexically(id, content, namespace, 0.0, NEIGHBOURS)?;
    if matches.is_empty() {
        return Ok(matches);
    }
    let analyzer = oro_mem_text::Analyzer::new()?;
    let keys = analyzer.query(&oro_mem_text::query_terms(content))?;
    let own = tx.memory(id)?;
    let mut scored = Vec::with_capacity(matches.len());
    for (other, _) in matches {
        let o = tx.memory(other)?;
        let similarity = pair_similarity(&analyzer, &keys, &own, &o)?;
        if similarity >= at_least {
            scored.push((other, similarity));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(scored)
}

/// Whether a store holds at most [`FEW_MEMORIES`], counted until it holds more: a batch of
/// writes only adds memories, so from then on its transaction need not count again.
#[derive(Debug, Default)]
pub(crate) struct StoreSize {
    large: bool,
}

impl StoreSize {
    fn few(&mut self, tx: &mut dyn WriteTransaction) -> Result<bool> {
        if !self.large {
            self.large = tx.memories_up_to(FEW_MEMORIES + 1)? > FEW_MEMORIES;
        }
        Ok(!self.large)
    }
}

/// The BM25 score of `other` for the query `keys` over the score of `own`, in a store of only
/// the two, every term of IDF 1 (so only how often each term occurs, and the two lengths,
/// count), at most 1.
fn pair_similarity(
    analyzer: &oro_mem_text::Analyzer,
    keys: &[String],
    own: &Memory,
    other: &Memory,
) -> Result<f64> {
    use oro_mem_text::bm25::Bm25;
    use oro_mem_text::Fields;
    // Its tags, files and entities as the store indexes them.
    let lists = |m: &Memory| -> Result<[String; 3]> {
        Ok([
            Fields::json(&m.tags)?,
            Fields::json(&m.files)?,
            Fields::json(&m.entities)?,
        ])
    };
    fn fields<'a>(m: &'a Memory, lists: &'a [String; 3]) -> Fields<'a> {
        Fields {
            content: &m.content,
            tags: &lists[0],
            summary: m.summary.as_deref().unwrap_or_default(),
            files: &lists[1],
            entities: &lists[2],
        }
    }
    let (own_lists, other_lists) = (lists(own)?, lists(other)?);
    let docs = analyzer.documents(&[fields(own, &own_lists), fields(other, &other_lists)])?;
    let avglen = f64::from(docs[0].len + docs[1].len) / 2.0;
    let score = |d: &oro_mem_text::Document| -> f64 {
        keys.iter()
            .filter_map(|k| d.frequency(k))
            .map(|f| Bm25::FTS5.part(1.0, f64::from(f), f64::from(d.len), avglen))
            .sum()
    };
    let own_score = score(&docs[0]);
    Ok(if own_score > 0.0 {
        (score(&docs[1]) / own_score).min(1.0)
    } else {
        0.0
    })
}

/// Validates and stores `batch` in one transaction of `store`, each memory with its embedding
/// if it has one, and each checked for duplicates of its namespace under `dedup`: inserted,
/// merged into a duplicate, or skipped. All or nothing.
///
/// A memory is a duplicate of an active memory of its namespace when its content, as a query,
/// scores that memory above `dedup.bm25` of its own score, or when its embedding's cosine
/// with that memory's (by the same model; already stored, or earlier in the batch) is above
/// `dedup.cosine`; and when both say the same thing (the same polarity and metadata: a
/// memory and its negation are no duplicates, nor are two runs with other parameters). A
/// lexical neighbour that holds the memory word for word with a clause added, or that it
/// holds so ([`oro_mem_text::holds_the_other`]), with the same values and metadata, is a
/// duplicate however similar, unless the memory extends it ([`oro_mem_text::extends`]: a
/// clause that names a new value or makes an exception), which is an update. A lexical
/// match, not an exact copy, whose embedding (by the memory's model) has a cosine with the
/// memory's below `dedup.min_cosine` is none: the same words, saying something else. The
/// lexical check comes first; of each check's matches, the most similar that says the same
/// thing is the duplicate. A duplicate more confident than the memory it repeats raises that
/// memory's confidence to its own (merged); any other is skipped.
///
/// A memory that names the memories it supersedes ([`NewMemory::supersedes`]) is their newer
/// version: it is inserted without a duplicate check (it may repeat most of their words) and
/// they are marked superseded by it ([`WriteTransaction::supersede`]): updated. Each must be
/// of its namespace, and active or archived.
///
/// A memory inserted into the middle of its session drops the embeddings of the memories
/// after it there, which were made without it ([`WriteTransaction::insert`]).
///
/// # Errors
///
/// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) naming the bad memory
/// or embedding (by its position in the batch), or a memory it cannot supersede;
/// [`ErrorKind::NotFound`](oro_mem_core::ErrorKind::NotFound) for one it supersedes that is
/// not there;
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
        outcomes = if dedup.enabled || memories.iter().any(|m| !m.supersedes.is_empty()) {
            let mut size = StoreSize::default();
            let mut out = Vec::with_capacity(memories.len());
            for (m, e) in memories.iter().zip(&embeddings) {
                out.push(if !m.supersedes.is_empty() {
                    write_superseding(tx, m, e.as_ref(), now)?
                } else if dedup.enabled {
                    write_checked(tx, &mut size, m, e.as_ref(), dedup, now)?
                } else {
                    let id = tx.insert(&[(m, e.as_ref())], now)?[0];
                    WriteOutcome::Inserted { id }
                });
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

/// A link between two versions of a fact that another store (an export, a worker's store)
/// held, by this store's ids: `old` was superseded by `by` at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionLink {
    /// The older version.
    pub old: MemoryId,
    /// The newer version.
    pub by: MemoryId,
    /// When the newer one superseded it.
    pub at: Timestamp,
}

/// What [`link_versions`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linked {
    /// How many links were made.
    pub linked: usize,
    /// The memories after a newly superseded one in its session, which lost their embeddings
    /// (made with it among the memories before them): to embed again.
    pub unembedded: Vec<MemoryId>,
}

/// Links the memories of `links` as versions, in one transaction of `store`, as `import` and
/// `merge` found them elsewhere. `old` is marked superseded by
/// `by` when both are there, of one namespace, `by` is active, and `old` is either superseded
/// by nothing (imported superseded, its successor written after it) or active and not newer
/// than `by` (a newer version from elsewhere supersedes the older one here, never the
/// reverse). Any other link is passed over: `old` superseded here by another version, or
/// archived, merged, or gone.
///
/// # Errors
///
/// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the store fails; nothing is
/// linked then.
pub fn link_versions(
    store: &mut (impl MemoryWrite + ?Sized),
    links: &[VersionLink],
) -> Result<Linked> {
    let mut done = Linked::default();
    if links.is_empty() {
        return Ok(done);
    }
    store.transact(&mut |tx| {
        let mut linked = 0;
        let mut left = Vec::new();
        for link in links {
            if link.old == link.by {
                continue;
            }
            let (old, by) = match (tx.memory(link.old), tx.memory(link.by)) {
                (Ok(old), Ok(by)) => (old, by),
                (Err(e), _) | (_, Err(e)) if e.kind() == oro_mem_core::ErrorKind::NotFound => {
                    continue
                }
                (Err(e), _) | (_, Err(e)) => return Err(e),
            };
            let links_here = match old.status {
                Status::Superseded => old.superseded_by.is_none(),
                Status::Active => old.created_at <= by.created_at,
                _ => false,
            };
            if !links_here || by.status != Status::Active || old.namespace != by.namespace {
                continue;
            }
            tx.supersede(old.id, by.id, link.at)?;
            if old.status == Status::Active {
                left.push(old);
            }
            linked += 1;
        }
        done = Linked {
            linked,
            unembedded: tx.unembed_after(&left.iter().collect::<Vec<_>>())?,
        };
        Ok(Commit::Yes)
    })?;
    Ok(done)
}

/// Writes `m` (with its embedding `e`) as the newer version of the memories it supersedes,
/// which are checked first: each there, of `m`'s namespace, and active or archived.
fn write_superseding(
    tx: &mut dyn WriteTransaction,
    m: &NewMemory,
    e: Option<&Embedding>,
    now: Timestamp,
) -> Result<WriteOutcome> {
    let mut olds = Vec::with_capacity(m.supersedes.len());
    for &old in &m.supersedes {
        let o = tx.memory(old)?;
        if o.namespace != m.namespace {
            return Err(Error::invalid_input(format!(
                "memory {old} is in namespace {:?}, not {:?}: a memory supersedes only \
                 memories of its own namespace",
                o.namespace, m.namespace
            )));
        }
        let why = match (o.status, o.superseded_by, o.merged_into) {
            (Status::Active | Status::Archived, ..) => None,
            (Status::Superseded, Some(by), _) => Some(format!(
                "is already superseded by memory {by}; supersede that one instead"
            )),
            (Status::Merged, _, Some(into)) => Some(format!(
                "was merged into memory {into}; supersede that one instead"
            )),
            (status, ..) => Some(format!("is {status}; restore it first")),
        };
        if let Some(why) = why {
            return Err(Error::invalid_input(format!("memory {old} {why}")));
        }
        olds.push(o);
    }
    let id = tx.insert(&[(m, e)], now)?[0];
    for o in &olds {
        tx.supersede(o.id, id, now)?;
    }
    // The memories after them in their sessions were embedded with them before them
    // ([`crate::Engine::remember`] embeds them again).
    let left: Vec<&Memory> = olds.iter().filter(|o| o.status == Status::Active).collect();
    tx.unembed_after(&left)?;
    Ok(WriteOutcome::Updated {
        id,
        supersedes: m.supersedes.clone(),
    })
}

/// True when `meaning` (a memory's embedding, and the floor: `dedup.min_cosine` or
/// `consolidate.merge_min_cosine`) says that memory `other` means something else: both
/// embedded by one model (of one dimension), their cosine below the floor; never with a
/// floor of 0. Not asked of an exact copy, which is its twin's duplicate whatever the
/// session it was embedded with.
pub(crate) fn says_otherwise(
    tx: &mut dyn WriteTransaction,
    other: MemoryId,
    meaning: Option<(&Embedding, f64)>,
) -> Result<bool> {
    let Some((e, floor)) = meaning.filter(|&(_, floor)| floor > 0.0) else {
        return Ok(false);
    };
    Ok(tx
        .embedding_of(other)?
        .filter(|o| o.model == e.model && o.vector.len() == e.vector.len())
        .is_some_and(|o| f64::from(oro_mem_core::store::dot(&o.vector, &e.vector)) < floor))
}

/// Writes `m` (with its embedding `e`) unless it duplicates an active memory of its
/// namespace. It is written first, provisionally, so that the lexical check scores it as the
/// index will once it is kept, then kept or taken back.
fn write_checked(
    tx: &mut dyn WriteTransaction,
    size: &mut StoreSize,
    m: &NewMemory,
    e: Option<&Embedding>,
    dedup: &DedupConfig,
    now: Timestamp,
) -> Result<WriteOutcome> {
    let id = tx.insert_provisionally(m, e, now)?;
    let updates = dedup.updates && m.status == Status::Active;
    let floor = if updates {
        dedup.bm25.min(UPDATE_FLOOR)
    } else {
        dedup.bm25
    };
    let hits = lexical_neighbours(tx, size, id, &m.content, &m.namespace, floor)?;
    let meaning = e.map(|e| (e, dedup.min_cosine));
    let mut best = first_alike(tx, m, &hits, dedup.bm25, true, meaning)?;
    if let (None, Some(e)) = (&best, e) {
        let near = tx.similar_by_vector(id, &m.namespace, e)?;
        best = first_alike(tx, m, &near, dedup.cosine, false, None)?;
    }
    let Some((existing, similarity)) = best else {
        if updates {
            let olds = updated(tx, size, id, m, &hits)?;
            if !olds.is_empty() {
                for old in &olds {
                    tx.supersede(old.id, id, now)?;
                }
                tx.unembed_after(&olds.iter().collect::<Vec<_>>())?;
                return Ok(WriteOutcome::Updated {
                    id,
                    supersedes: olds.iter().map(|o| o.id).collect(),
                });
            }
        }
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

/// The memories that `m` (stored provisionally as `id`) updates: those of its lexical
/// neighbours `hits`, else of the neighbours of its plain words alone
/// ([`oro_mem_text::plain_words`]), which find an older state whose changed word (a name, a
/// path) is rare enough to outweigh every word the two share, as in a store of a few
/// memories. Every state of the fact stored apart before is superseded, not only one.
fn updated(
    tx: &mut dyn WriteTransaction,
    size: &mut StoreSize,
    id: MemoryId,
    m: &NewMemory,
    hits: &[(MemoryId, f64)],
) -> Result<Vec<Memory>> {
    let olds = all_updated(tx, m, hits)?;
    if !olds.is_empty() {
        return Ok(olds);
    }
    let hits = plain_neighbours(tx, size, id, &m.content, &m.namespace)?;
    all_updated(tx, m, &hits)
}

/// The lexical neighbours of the plain words of `content` (memory `id`'s) alone
/// ([`oro_mem_text::plain_words`]), from [`UPDATE_FLOOR`]: where an older state of its fact
/// is found when the whole text does not find it. None when it has no values or names.
pub(crate) fn plain_neighbours(
    tx: &mut dyn WriteTransaction,
    size: &mut StoreSize,
    id: MemoryId,
    content: &str,
    namespace: &str,
) -> Result<Vec<(MemoryId, f64)>> {
    let plain = oro_mem_text::plain_words(content);
    if plain.is_empty() || plain == content {
        return Ok(Vec::new());
    }
    lexical_neighbours(tx, size, id, &plain, namespace, UPDATE_FLOOR)
}

/// The memories of `hits` that `m` updates: the same statement with values changed, or the
/// same entry of a list with what it says changed ([`oro_mem_text::updates`]), the same
/// metadata, and not newer than `m` (a memory copied from elsewhere with its time, older
/// than a state here, does not supersede it); after the first, only states of the same fact
/// as it.
fn all_updated(
    tx: &mut dyn WriteTransaction,
    m: &NewMemory,
    hits: &[(MemoryId, f64)],
) -> Result<Vec<Memory>> {
    let mut olds = Vec::new();
    for &(other, _) in hits {
        let o = tx.memory(other)?;
        let older = m.created_at.is_none_or(|at| o.created_at <= at);
        // Another state of the fact the first one found states, not another fact.
        let same_fact = olds.first().is_none_or(|first: &Memory| {
            first.content == o.content || oro_mem_text::updates(&first.content, &o.content)
        });
        if older
            && same_fact
            && o.metadata == m.metadata
            && oro_mem_text::updates(&o.content, &m.content)
        {
            olds.push(o);
        }
    }
    Ok(olds)
}

/// The memory of `hits` (by descending similarity) above `above` that `m` duplicates: its
/// exact twin (the same content) when there is one, else the first that says what `m` says.
/// A shorter rewording can score above the twin itself, and an exact copy must resolve to
/// its twin. With `whole`, a hit that holds all `m` says, or all of which `m` holds, is one
/// too, however similar ([`restates`]: a clause added or dropped, which weighs on a lexical
/// similarity, and may be negated).
fn first_alike(
    tx: &mut dyn WriteTransaction,
    m: &NewMemory,
    hits: &[(MemoryId, f64)],
    above: f64,
    whole: bool,
    meaning: Option<(&Embedding, f64)>,
) -> Result<Option<(Memory, f64)>> {
    let mut first = None;
    for &(other, similarity) in hits {
        if similarity <= above && !whole {
            continue;
        }
        let o = tx.memory(other)?;
        // A clause added that names a new value or makes an exception, or a passage that
        // names new code, extends the older one ([`oro_mem_text::extends`]): an update.
        let alike = ((similarity > above
            && says_the_same(&m.content, &m.metadata, &o.content, &o.metadata))
            || (whole && restates(&m.content, &m.metadata, &o.content, &o.metadata)))
            && !oro_mem_text::extends(&o.content, &m.content);
        if !alike {
            continue;
        }
        if o.content == m.content {
            return Ok(Some((o, similarity)));
        }
        if says_otherwise(tx, other, meaning)? {
            continue;
        }
        first.get_or_insert((o, similarity));
    }
    Ok(first)
}
