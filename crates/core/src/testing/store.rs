//! The store conformance suite.
//!
//! [`store_conformance`] takes a function that makes an empty store and checks what the
//! engine and the commands rely on: reading, filtering, lexical search, keeping and searching
//! the embeddings it is given, and every write. It panics with a message naming the broken
//! rule.

use crate::memory::{before_each, embedded_text, validate_batch, CONTEXT_MEMORIES};
use crate::memory::{Memory, MemoryType, NewMemory, Source, Status};
use crate::query::{Filter, MetaCondition, MetaOp};
use crate::store::{
    CandidateSearch, Commit, Embedding, ListOrder, MemoryStore, MemoryWrite, OtherMemory, ToEmbed,
};
use crate::time::Timestamp;
use crate::{ErrorKind, MemoryId};

fn insert<S: MemoryWrite>(store: &mut S, memories: Vec<NewMemory>) -> Vec<crate::MemoryId> {
    write(store, memories.into_iter().map(|m| (m, None)).collect())
}

/// Writes `batch` (validated) in one write transaction of `store`, without duplicate checks,
/// each memory with its embedding if it has one; returns their ids.
fn write<S: MemoryWrite + ?Sized>(
    store: &mut S,
    batch: Vec<(NewMemory, Option<Embedding>)>,
) -> Vec<crate::MemoryId> {
    let (mut memories, embeddings): (Vec<NewMemory>, Vec<Option<Embedding>>) =
        batch.into_iter().unzip();
    validate_batch(&mut memories).expect("a valid batch");
    let mut ids = Vec::new();
    store
        .transact(&mut |tx| {
            let batch: Vec<(&NewMemory, Option<&Embedding>)> = memories
                .iter()
                .zip(embeddings.iter().map(Option::as_ref))
                .collect();
            ids = tx.insert(&batch, Timestamp::now())?;
            Ok(Commit::Yes)
        })
        .expect("insert");
    ids
}

/// Runs every check on stores made by `make` (each check gets a new, empty one).
///
/// # Panics
///
/// On the first rule the store breaks, naming it.
pub fn store_conformance<S: MemoryStore>(mut make: impl FnMut() -> S) {
    written_memories_read_back(&mut make());
    filters_restrict_listing_counting_and_search(&mut make());
    every_filter_field_selects_what_it_says(&mut make());
    lexical_search_ranks_and_never_fails_on_text(&mut make());
    lexical_scores_are_the_search_s(&mut make());
    files_entities_and_summary_are_searched_with_their_weights(&mut make());
    writes_change_what_they_say(&mut make());
    embeddings_are_kept_searched_and_replaced(&mut make());
    sessions_are_kept_filtered_and_neighbours_counted(&mut make());
    claims_carry_the_memory_before_in_the_session(&mut make());
    an_export_gives_the_contexts_its_store_hands_out(&mut make());
    changes_before_a_memory_drop_its_embedding(&mut make());
    vectors_made_before_their_context_changed_are_not_stored(&mut make());
    what_leaves_a_session_unembeds_what_came_after_it(&mut make());
    write_transactions_fold_find_and_archive(&mut make());
    a_superseded_memory_keeps_its_link_until_restored(&mut make());
    everything_is_exported(&mut make());
    provisional_writes_are_seen_and_taken_back(&mut make());
    stats_count_what_is_there(&mut make());
}

/// The neighbours of `memories` by the definition of
/// [`CandidateSearch::session_neighbours`], from a full listing: sorted as
/// `(of, id, distance)`.
fn neighbours_by_definition(
    all: &[crate::Memory],
    memories: &[&crate::Memory],
    window: u32,
) -> Vec<(crate::MemoryId, crate::MemoryId, u32)> {
    let mut out = Vec::new();
    for a in memories {
        let Some(session) = &a.session else { continue };
        let mut episode: Vec<&crate::Memory> = all
            .iter()
            .filter(|m| {
                m.session.as_ref() == Some(session)
                    && m.namespace == a.namespace
                    && m.status == Status::Active
            })
            .collect();
        episode.sort_by_key(|m| (m.created_at, m.id));
        let place = |id| episode.iter().position(|m| m.id == id);
        for b in memories {
            if a.id == b.id || b.session != a.session || b.namespace != a.namespace {
                continue;
            }
            if let (Some(i), Some(j)) = (place(a.id), place(b.id)) {
                let distance = u32::try_from(i.abs_diff(j)).expect("small");
                if distance <= window {
                    out.push((a.id, b.id, distance));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Two sessions interleaved in time (three memories to a second), one memory of a session in
/// another namespace, one with a summary, and memories without a session.
fn interleaved_sessions() -> Vec<NewMemory> {
    (0..12)
        .map(|i| {
            let mut m = NewMemory::new(format!("turn {i} about caching"), MemoryType::Lesson)
                .created_at(Timestamp(1_000 + i / 3));
            m.session = match i % 4 {
                0 | 1 => Some("morning".to_string()),
                2 => Some("evening".to_string()),
                _ => None,
            };
            if i == 9 {
                m = m.namespace("elsewhere");
            }
            if i == 5 {
                m.summary = Some("the fifth".to_string());
            }
            m
        })
        .collect()
}

/// Every memory, active or not, oldest first.
fn everything<S: CandidateSearch>(s: &S) -> Vec<crate::Memory> {
    [Status::Active, Status::Archived]
        .into_iter()
        .flat_map(|status| {
            let filter = Filter {
                statuses: vec![status],
                ..Filter::default()
            };
            s.list(&filter, ListOrder::Oldest, 1_000, 0).expect("list")
        })
        .collect()
}

fn sessions_are_kept_filtered_and_neighbours_counted<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(s, interleaved_sessions());
    let morning = Filter {
        session: Some("morning".into()),
        ..Filter::default()
    };
    let episode: Vec<_> = s
        .list(&morning, ListOrder::Oldest, 100, 0)
        .expect("list a session")
        .into_iter()
        .map(|m| m.id)
        .collect();
    let expected: Vec<_> = ids
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 4 < 2)
        .map(|(_, id)| *id)
        .collect();
    assert_eq!(
        episode, expected,
        "a session filter lists that session (of every namespace), oldest first"
    );
    assert_eq!(
        s.get(ids[2]).expect("get").session.as_deref(),
        Some("evening"),
        "a memory reads back with its session"
    );
    // Archive one in the middle of the morning: neighbours count active memories only.
    s.set_status(ids[4], Status::Archived).expect("archive");
    let every = everything(s);
    let some: Vec<&crate::Memory> = every.iter().filter(|m| m.id % 3 != 2).collect();
    for window in [1, 2, 3] {
        let mut got: Vec<_> = s
            .session_neighbours(&some, window as usize)
            .expect("session neighbours")
            .into_iter()
            .map(|n| (n.of, n.id, n.distance))
            .collect();
        got.sort_unstable();
        assert_eq!(
            got,
            neighbours_by_definition(&every, &some, window),
            "session neighbours within {window}: same session and namespace, active, by time then id"
        );
    }
}

/// The text to embed of the memory before `m` in its session, by the definition of
/// [`ToEmbed::before`], from a full listing.
/// The texts of the memories before `m` in its session by the definition of
/// [`ToEmbed::before`], from a full listing.
fn before_by_definition(all: &[crate::Memory], m: &crate::Memory) -> Option<String> {
    let session = m.session.as_ref()?;
    let mut before: Vec<&crate::Memory> = all
        .iter()
        .filter(|p| {
            p.session.as_ref() == Some(session)
                && p.namespace == m.namespace
                && p.status == Status::Active
                && (p.created_at, p.id) < (m.created_at, m.id)
        })
        .collect();
    before.sort_by_key(|p| (p.created_at, p.id));
    let last = &before[before.len().saturating_sub(CONTEXT_MEMORIES)..];
    (!last.is_empty()).then(|| {
        last.iter()
            .map(|p| embedded_text(p.summary.as_deref(), &p.content))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn claims_carry_the_memory_before_in_the_session<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(s, interleaved_sessions());
    s.set_status(ids[4], Status::Archived).expect("archive");
    let every = everything(s);
    let claimed = s
        .claim_unembedded("m1", 0, 100, Timestamp(1_000), Timestamp(1_010))
        .expect("claim");
    assert_eq!(claimed.len(), ids.len(), "every memory is claimed");
    for c in &claimed {
        let m = every
            .iter()
            .find(|m| m.id == c.id)
            .expect("a claimed memory");
        assert_eq!(
            c.before,
            before_by_definition(&every, m),
            "memory {} ({:?}) follows the last active memory of its session and namespace \
             before it, by time then id",
            c.id,
            m.content
        );
    }
    assert!(
        claimed.iter().filter(|c| c.before.is_some()).count() >= 4,
        "the layout has memories that follow others"
    );
    let mut asked: Vec<crate::MemoryId> = ids.iter().rev().copied().collect();
    asked.push(ids.iter().max().expect("memories") + 100);
    let mut by_id = claimed.clone();
    by_id.sort_by_key(|c| c.id);
    assert_eq!(
        s.to_embed(&asked).expect("to embed"),
        by_id,
        "to_embed hands out what a claim does, by id, and skips a memory that is not there"
    );
    assert!(
        claimed.iter().any(|c| c
            .before
            .as_deref()
            .is_some_and(|b| b.ends_with("\nthe fifth\n\nturn 5 about caching"))),
        "the text before is the one to embed, summary first"
    );
    assert!(
        claimed.iter().any(|c| c
            .before
            .as_deref()
            .is_some_and(|b| b.lines().count() == CONTEXT_MEMORIES)),
        "the layout has memories that follow as many as are embedded with one"
    );

    // What a new memory written at a time follows: the last active ones at or before it.
    for at in 999..1_005 {
        for (namespace, session) in [
            ("default", "morning"),
            ("default", "evening"),
            ("elsewhere", "evening"),
        ] {
            let mut expected: Vec<_> = every
                .iter()
                .filter(|p| {
                    p.session.as_deref() == Some(session)
                        && p.namespace == namespace
                        && p.status == Status::Active
                        && p.created_at <= Timestamp(at)
                })
                .map(|p| {
                    (
                        (p.created_at, p.id),
                        embedded_text(p.summary.as_deref(), &p.content).into_owned(),
                    )
                })
                .collect();
            expected.sort();
            let expected: Vec<_> = expected[expected.len().saturating_sub(CONTEXT_MEMORIES)..]
                .iter()
                .map(|((at, _), text)| (*at, text.clone()))
                .collect();
            assert_eq!(
                s.last_in_session(namespace, session, Timestamp(at))
                    .expect("last in session"),
                expected,
                "the last of {namespace}/{session} at {at}"
            );
        }
    }
    assert_eq!(
        s.last_in_session("default", "nobody's", Timestamp(2_000))
            .expect("last in session"),
        []
    );

    // What a new memory written at a time comes before: the first active ones after it.
    let mut found = 0;
    for at in 999..1_005 {
        for (namespace, session) in [
            ("default", "morning"),
            ("default", "evening"),
            ("elsewhere", "evening"),
        ] {
            let mut expected: Vec<_> = every
                .iter()
                .filter(|p| {
                    p.session.as_deref() == Some(session)
                        && p.namespace == namespace
                        && p.status == Status::Active
                        && p.created_at > Timestamp(at)
                })
                .map(|p| (p.created_at, p.id))
                .collect();
            expected.sort_unstable();
            expected.truncate(CONTEXT_MEMORIES);
            let expected: Vec<_> = expected.into_iter().map(|(_, id)| id).collect();
            found += usize::from(expected.len() == CONTEXT_MEMORIES);
            assert_eq!(
                s.next_in_session(namespace, session, Timestamp(at))
                    .expect("next in session"),
                expected,
                "the next of {namespace}/{session} after {at}"
            );
        }
    }
    assert!(found >= 4, "the layout has memories after others");
    assert_eq!(
        s.next_in_session("default", "nobody's", Timestamp(0))
            .expect("next in session"),
        Vec::<crate::MemoryId>::new()
    );
}

/// The memories whose embeddings hold `m` among the memories before them: the first
/// [`CONTEXT_MEMORIES`] active memories of its session and namespace after it by time then
/// id, in `all` (as the store is now).
fn next_by_definition(all: &[crate::Memory], m: &crate::Memory) -> Vec<crate::MemoryId> {
    let Some(session) = m.session.as_ref() else {
        return Vec::new();
    };
    let mut next: Vec<_> = all
        .iter()
        .filter(|n| {
            n.session.as_ref() == Some(session)
                && n.namespace == m.namespace
                && n.status == Status::Active
                && (n.created_at, n.id) > (m.created_at, m.id)
        })
        .map(|n| (n.created_at, n.id))
        .collect();
    next.sort_unstable();
    next.into_iter()
        .take(CONTEXT_MEMORIES)
        .map(|(_, id)| id)
        .collect()
}

/// What another store's embeddings were made with can be worked out from its export: the
/// memories [`MemoryStore::for_each_embedded`] lists, through [`before_each`], have the
/// contexts the store hands out ([`CandidateSearch::to_embed`]).
fn an_export_gives_the_contexts_its_store_hands_out<S: MemoryStore>(s: &mut S) {
    let ids = insert(s, interleaved_sessions());
    s.set_status(ids[4], Status::Archived).expect("archive");
    s.set_status(ids[8], Status::Archived).expect("archive");
    let mut listed = Vec::new();
    s.for_each_embedded(&mut |o| {
        listed.push(o.memory);
        Ok(())
    })
    .expect("for_each_embedded");
    let worked_out = before_each(&listed.iter().collect::<Vec<_>>(), Timestamp(0));
    let handed_out: Vec<Option<String>> = s
        .to_embed(&ids)
        .expect("to_embed")
        .into_iter()
        .map(|m| m.before)
        .collect();
    assert_eq!(worked_out, handed_out);
    assert!(
        handed_out.iter().filter(|b| b.is_some()).count() >= 4,
        "the layout has memories that follow others"
    );
}

/// The memories without an embedding by `model`, claimed at `at` (for a second: the next
/// call, a second later, claims them again).
fn unembedded<S: MemoryWrite>(s: &mut S, model: &str, at: i64) -> Vec<crate::MemoryId> {
    s.claim_unembedded(model, 0, 1_000, Timestamp(at), Timestamp(at + 1))
        .expect("claim")
        .into_iter()
        .map(|c| c.id)
        .collect()
}

/// `rows` as vectors made from what their memories are now ([`CandidateSearch::to_embed`]):
/// what [`MemoryWrite::set_embeddings`] stores. An id without a memory gets a made-up text.
fn made_now<S: CandidateSearch + ?Sized>(
    s: &S,
    rows: &[(crate::MemoryId, Vec<f32>)],
) -> Vec<(ToEmbed, Vec<f32>)> {
    let ids: Vec<crate::MemoryId> = rows.iter().map(|(id, _)| *id).collect();
    let now = s.to_embed(&ids).expect("to_embed");
    rows.iter()
        .map(|(id, v)| {
            let m = now.iter().find(|m| m.id == *id).cloned();
            let m = m.unwrap_or_else(|| ToEmbed {
                id: *id,
                text: "no such memory".to_string(),
                before: None,
            });
            (m, v.clone())
        })
        .collect()
}

fn changes_before_a_memory_drop_its_embedding<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(s, interleaved_sessions());
    let mut clock = 10_000;
    // Each step: embed every memory, change one, and check what lost its embedding.
    let steps: [(usize, Option<Status>, &str); 8] = [
        (
            4,
            Some(Status::Archived),
            "archiving one drops the next one's",
        ),
        (
            4,
            Some(Status::Archived),
            "archiving an archived one changes nothing",
        ),
        (
            4,
            Some(Status::Active),
            "reactivating one drops its own and the next one's",
        ),
        (
            4,
            Some(Status::Active),
            "reactivating an active one changes nothing",
        ),
        (1, None, "forgetting one drops the next one's"),
        (3, None, "a memory without a session has no next one"),
        (8, None, "the last of a session has no next one"),
        (0, Some(Status::Archived), "the first of a session has one"),
    ];
    let mut seen = 0;
    for (i, status, rule) in steps {
        let every = everything(s);
        let rows: Vec<_> = every.iter().map(|m| (m.id, unit(1.0, 0.0))).collect();
        s.set_embeddings("m1", &made_now(s, &rows)).expect("embed");
        let m = every
            .iter()
            .find(|m| m.id == ids[i])
            .expect("memory")
            .clone();
        let dropped = match status {
            Some(status) => s.set_status(m.id, status).expect("set status"),
            None => s.forget(m.id).expect("forget"),
        };
        let after = everything(s);
        // Forgetting is a change too (`None`); an archived memory is no one's memory before.
        let mut expected = Vec::new();
        let reactivated = status == Some(Status::Active);
        if status != Some(m.status) && (m.status == Status::Active || reactivated) {
            expected.extend(next_by_definition(&after, &m));
            if reactivated {
                expected.push(m.id);
            }
        }
        expected.sort_unstable();
        assert_eq!(dropped, expected, "{rule} (memory {}), by id", m.id);
        clock += 10;
        assert_eq!(
            unembedded(s, "m1", clock),
            expected,
            "{rule}: exactly the memories it returns lose their embeddings"
        );
        seen += expected.len();
    }
    assert!(seen >= 4, "the steps drop embeddings");

    // A memory written into the middle of a session drops the embeddings of the stored
    // memories after it; one written after the last drops none. The batch's own have none.
    let rows: Vec<_> = everything(s)
        .iter()
        .map(|m| (m.id, unit(1.0, 0.0)))
        .collect();
    s.set_embeddings("m1", &made_now(s, &rows)).expect("embed");
    let turn = |text: &str, at: i64| {
        let mut m = NewMemory::new(text, MemoryType::Lesson).created_at(Timestamp(at));
        m.session = Some("evening".to_string());
        m
    };
    let new = insert(
        s,
        vec![turn("an early turn", 1_000), turn("a late turn", 5_000)],
    );
    let after = everything(s);
    let early = after.iter().find(|m| m.id == new[0]).expect("written");
    let mut expected = next_by_definition(&after, early);
    assert!(
        expected.len() == CONTEXT_MEMORIES,
        "the layout has stored memories after it"
    );
    expected.extend(&new);
    expected.sort_unstable();
    clock += 10;
    assert_eq!(
        unembedded(s, "m1", clock),
        expected,
        "writing into the middle of a session drops the embeddings after it"
    );

    assert!(matches!(
        s.forget(ids[1]).map_err(|e| e.kind()),
        Err(ErrorKind::NotFound)
    ));
    assert!(matches!(
        s.set_status(ids[1], Status::Active).map_err(|e| e.kind()),
        Err(ErrorKind::NotFound)
    ));
}

/// An embedding run claims memories, and while it embeds them another writer changes what
/// is before some of them: their vectors, made with the old context, are not stored, and
/// they are claimed again with the new one.
fn vectors_made_before_their_context_changed_are_not_stored<S: CandidateSearch + MemoryWrite>(
    s: &mut S,
) {
    let turn = |text: &str, at: i64| {
        NewMemory::new(text, MemoryType::Lesson)
            .session("chat")
            .created_at(Timestamp(at))
    };
    let ids = insert(
        s,
        (0..4)
            .map(|i| turn(&format!("turn {i}"), 1_000 + i))
            .collect(),
    );
    let claimed = s
        .claim_unembedded("m1", 0, 10, Timestamp(10), Timestamp(20))
        .expect("claim");
    assert_eq!(claimed.iter().map(|m| m.id).collect::<Vec<_>>(), ids);
    assert_eq!(claimed[3].before.as_deref(), Some("turn 1\nturn 2"));

    // Meanwhile: turn 1 is forgotten (turns 2 and 3 had it before them), and a turn is
    // written between turns 2 and 3.
    assert_eq!(
        s.forget(ids[1]).expect("forget"),
        Vec::<crate::MemoryId>::new(),
        "none had an embedding to drop"
    );
    let between = insert(s, vec![turn("a late reply", 1_002)])[0];

    let made: Vec<_> = claimed.into_iter().map(|m| (m, unit(1.0, 0.0))).collect();
    assert_eq!(
        s.set_embeddings("m1", &made).expect("set_embeddings"),
        1,
        "only turn 0 (nothing before it) is as it was claimed; turn 1 is gone"
    );
    // Their claims are released: a run takes them at once, with what is before them now.
    let again = s
        .claim_unembedded("m1", 0, 10, Timestamp(11), Timestamp(21))
        .expect("claim");
    let by_id = |id| again.iter().find(|m| m.id == id).expect("claimed again");
    assert_eq!(again.len(), 3, "{again:?}");
    assert_eq!(by_id(ids[2]).before.as_deref(), Some("turn 0"));
    assert_eq!(by_id(between).before.as_deref(), Some("turn 0\nturn 2"));
    assert_eq!(
        by_id(ids[3]).before.as_deref(),
        Some("turn 2\na late reply")
    );
    let made: Vec<_> = again.into_iter().map(|m| (m, unit(0.0, 1.0))).collect();
    assert_eq!(s.set_embeddings("m1", &made).expect("set_embeddings"), 3);
    assert_eq!(s.count_unembedded("m1").expect("count"), 0);
}

/// A write transaction's `fold_into`, `archive` and `unembed_after` (what consolidation does
/// to a session) drop the embeddings that held what left, and only when committed.
fn what_leaves_a_session_unembeds_what_came_after_it<S: MemoryStore>(s: &mut S) {
    let day = 86_400;
    let now = Timestamp(1_000 * day);
    let in_session = |text: &str, confidence: f64, at: i64| {
        let mut m = NewMemory::new(text, MemoryType::Lesson)
            .confidence(confidence)
            .created_at(Timestamp(at * day));
        m.session = Some("run".to_string());
        m
    };
    let ids = insert(
        s,
        vec![
            in_session("Vacuum the database every night after the backup", 0.9, 990),
            in_session(
                "vacuum the database every night, after the backup!",
                0.6,
                991,
            ),
            in_session("The deploy script waits for the lint job", 0.9, 992),
            in_session("An old hunch about flaky tests", 0.2, 100),
            in_session("Pyright needs the venv activated", 0.9, 101),
        ],
    );
    let rows: Vec<_> = ids.iter().map(|&id| (id, unit(0.0, 1.0))).collect();
    s.set_embeddings("m1", &made_now(s, &rows)).expect("embed");
    // The copy (ids[1]) folds into the first, the hunch (ids[3]) is archived.
    let leave = |s: &mut S, commit: Commit| -> Vec<MemoryId> {
        let mut dropped = Vec::new();
        s.transact(&mut |tx| {
            let all = tx.active_memories()?;
            assert_eq!(
                all.iter().map(|m| m.id).collect::<Vec<_>>(),
                ids,
                "active memories by id"
            );
            tx.fold_into(ids[0], &all[1])?;
            tx.archive(&[ids[3]], now)?;
            dropped = tx.unembed_after(&[&all[1], &all[3]])?;
            Ok(commit)
        })
        .expect("transact");
        dropped
    };
    leave(s, Commit::No);
    assert_eq!(
        unembedded(s, "m1", 1),
        Vec::<MemoryId>::new(),
        "a transaction not committed drops nothing"
    );
    assert_eq!(s.get(ids[1]).expect("rolled back").status, Status::Active);
    let dropped = leave(s, Commit::Yes);
    // The session in time: hunch, pyright, vacuum, copy, deploy. The copy came before the
    // deploy note, the hunch before the pyright note and the vacuum one (two memories are
    // embedded with the two before them).
    assert_eq!(CONTEXT_MEMORIES, 2, "the layout assumes it");
    assert_eq!(dropped, vec![ids[0], ids[2], ids[4]]);
    assert_eq!(unembedded(s, "m1", 10), vec![ids[0], ids[2], ids[4]]);
    let merged = s.get(ids[1]).expect("kept, merged");
    assert_eq!(
        (merged.status, merged.merged_into),
        (Status::Merged, Some(ids[0])),
        "folded into the first, and kept"
    );
    // Restored, it is active again and merged into nothing.
    s.set_status(ids[1], Status::Active).expect("restore");
    let restored = s.get(ids[1]).expect("restored");
    assert_eq!(
        (restored.status, restored.merged_into),
        (Status::Active, None)
    );
}

fn a_superseded_memory_keeps_its_link_until_restored<S: MemoryStore>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new("The staging API runs on port 8080", MemoryType::Fact),
            NewMemory::new("The staging API runs on port 9090", MemoryType::Fact),
        ],
    );
    let at = Timestamp(1_700_000_000);
    let supersede = |s: &mut S, commit: Commit| {
        s.transact(&mut |tx| {
            tx.supersede(ids[0], ids[1], at)?;
            assert_eq!(
                tx.memory(ids[0])?.status,
                Status::Superseded,
                "the transaction reads what it wrote"
            );
            Ok(commit)
        })
        .expect("transact");
    };
    // The older state was used, returned and pinned; the newer one takes that over.
    let used = Timestamp(1_600_000_100);
    s.record_used(&[ids[0]], Timestamp(1_600_000_000))
        .expect("used");
    s.record_used(&[ids[0]], used).expect("used");
    s.record_returned(&[ids[0]]).expect("returned");
    s.set_pinned(ids[0], true).expect("pin");
    let history = |m: &Memory| (m.access_count, m.return_count, m.last_accessed, m.pinned);
    supersede(s, Commit::No);
    assert_eq!(s.get(ids[0]).expect("kept").status, Status::Active);
    assert_eq!(
        history(&s.get(ids[1]).expect("the newer")),
        (0, 0, None, false),
        "nothing passed on by a transaction rolled back"
    );
    supersede(s, Commit::Yes);
    let old = s.get(ids[0]).expect("kept, superseded");
    assert_eq!(
        (old.status, old.superseded_by, old.superseded_at),
        (Status::Superseded, Some(ids[1]), Some(at))
    );
    let newer = s.get(ids[1]).expect("the newer");
    assert_eq!(newer.status, Status::Active);
    assert_eq!(history(&newer), (2, 1, Some(used), true));
    assert_eq!(
        history(&old),
        (2, 1, Some(used), true),
        "the older keeps its own"
    );
    let found = s
        .lexical_candidates("staging port", &Filter::default(), 10)
        .expect("search");
    assert_eq!(
        found.iter().map(|(m, _)| m.id).collect::<Vec<_>>(),
        vec![ids[1]],
        "searches read active memories only"
    );
    let superseded = Filter {
        statuses: vec![Status::Superseded],
        ..Filter::default()
    };
    assert_eq!(s.count(&superseded).expect("count"), 1);
    assert_eq!(s.stats().expect("stats").superseded, 1);
    let both = Filter {
        include_superseded: true,
        ..Filter::default()
    };
    assert_eq!(s.count(&both).expect("count"), 2);
    let mut found: Vec<MemoryId> = s
        .lexical_candidates("staging port", &both, 10)
        .expect("search")
        .iter()
        .map(|(m, _)| m.id)
        .collect();
    found.sort_unstable();
    assert_eq!(found, ids, "asked for, the superseded one too");
    // Archived, it is superseded by nothing; restored, active again.
    s.set_status(ids[0], Status::Archived).expect("archive");
    let archived = s.get(ids[0]).expect("archived");
    assert_eq!(
        (archived.superseded_by, archived.superseded_at),
        (None, None)
    );
    supersede(s, Commit::Yes);
    s.set_status(ids[0], Status::Active).expect("restore");
    let restored = s.get(ids[0]).expect("restored");
    assert_eq!(
        (
            restored.status,
            restored.superseded_by,
            restored.superseded_at
        ),
        (Status::Active, None, None)
    );
}

fn written_memories_read_back<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let new = NewMemory::new("SQLite allows one writer at a time", MemoryType::Gotcha)
        .tags(["sqlite".to_string()])
        .namespace("ops")
        .confidence(0.9)
        .created_at(Timestamp(1_000));
    let ids = insert(s, vec![new]);
    let m = s.get(ids[0]).expect("get a written memory");
    assert_eq!(
        (
            m.content.as_str(),
            m.memory_type,
            m.tags.as_slice(),
            m.namespace.as_str()
        ),
        (
            "SQLite allows one writer at a time",
            MemoryType::Gotcha,
            &["sqlite".to_string()][..],
            "ops"
        ),
        "a memory reads back as written"
    );
    assert_eq!((m.confidence, m.created_at), (0.9, Timestamp(1_000)));
    assert_eq!(m.status, Status::Active);
    let missing = s.get(ids[0] + 1_000).expect_err("no such memory");
    assert_eq!(
        missing.kind(),
        ErrorKind::NotFound,
        "an unknown id is NotFound"
    );
}

/// The summary, files and entities of a memory are kept and searched, a file or an entity
/// counting twice a word of the text ([`oro_mem_text::LEXICAL_FIELDS`]).
fn files_entities_and_summary_are_searched_with_their_weights<S: CandidateSearch + MemoryWrite>(
    s: &mut S,
) {
    let ids = insert(
        s,
        vec![
            NewMemory::new("the store opens lazily", MemoryType::Lesson),
            NewMemory::new("the cache opens lazily", MemoryType::Lesson).files(["src/store.rs"]),
            NewMemory::new("the index opens lazily", MemoryType::Lesson).entities(["Store::open"]),
            NewMemory::new("the queue opens lazily", MemoryType::Lesson)
                .summary("a slow first store write"),
            NewMemory::new("unrelated words entirely here", MemoryType::Lesson),
        ],
    );
    let about = s.get(ids[1]).expect("get");
    assert_eq!(about.files, ["src/store.rs"], "files read back");
    let entity = s.get(ids[2]).expect("get");
    assert_eq!(entity.entities, ["Store::open"], "entities read back");
    let summarized = s.get(ids[3]).expect("get");
    assert_eq!(
        summarized.summary.as_deref(),
        Some("a slow first store write")
    );
    let found = s
        .lexical_candidates("store", &Filter::default(), 10)
        .expect("search");
    let score = |id| {
        found
            .iter()
            .find(|(m, _)| m.id == id)
            .map(|(_, score)| *score)
    };
    for id in &ids[..4] {
        assert!(
            score(*id).is_some(),
            "memory {id} is found by \"store\": {found:?}"
        );
    }
    assert!(score(ids[4]).is_none());
    // A word of the text counts once; a file's or an entity's twice (a summary's three
    // times), which outweighs the longer document they make.
    assert!(
        score(ids[1]) > score(ids[0]) && score(ids[2]) > score(ids[0]),
        "files and entities weigh more than the text: {found:?}"
    );
    let by_path = s
        .lexical_candidates("what breaks in src/store.rs?", &Filter::default(), 10)
        .expect("search");
    assert_eq!(
        by_path[0].0.id, ids[1],
        "a path finds the memory about it: {by_path:?}"
    );
    let by_symbol = s
        .lexical_candidates("fix Store::open", &Filter::default(), 10)
        .expect("search");
    assert_eq!(
        by_symbol[0].0.id, ids[2],
        "a symbol finds the memory about it: {by_symbol:?}"
    );
}

fn filters_restrict_listing_counting_and_search<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        (0..6)
            .map(|i| {
                NewMemory::new(format!("cache note number {i}"), MemoryType::Lesson)
                    .namespace(if i % 2 == 0 { "even" } else { "odd" })
                    .confidence(if i == 5 { 0.85 } else { 0.8 })
                    .created_at(Timestamp(i * 100))
            })
            .collect(),
    );
    let even = Filter {
        namespace: Some("even".into()),
        ..Filter::default()
    };
    assert_eq!(s.count(&Filter::default()).expect("count"), 6);
    assert_eq!(
        s.count(&even).expect("count"),
        3,
        "count honours the filter"
    );
    for (most, expected) in [(0, 0), (2, 2), (3, 3), (100, 3)] {
        assert_eq!(
            s.count_up_to(&even, most).expect("count"),
            expected,
            "count_up_to honours the filter and stops at {most}"
        );
    }
    let newest: Vec<_> = s
        .list(&Filter::default(), ListOrder::Newest, 2, 1)
        .expect("list")
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(newest, [ids[4], ids[3]], "list orders, skips and limits");
    let found = s.lexical_candidates("cache", &even, 50).expect("search");
    assert_eq!(found.len(), 3, "search honours the filter");
    assert!(found.iter().all(|(m, _)| m.namespace == "even"));
    let trusted = Filter {
        min_confidence: Some(0.85),
        ..Filter::default()
    };
    assert_eq!(
        s.count(&trusted).expect("count"),
        1,
        "min_confidence is inclusive"
    );
    assert_eq!(
        s.lexical_candidates("cache", &trusted, 50)
            .expect("search")
            .iter()
            .map(|(m, _)| m.id)
            .collect::<Vec<_>>(),
        [ids[5]],
        "search honours min_confidence"
    );
    s.set_status(ids[0], Status::Archived).expect("archive");
    assert_eq!(
        s.lexical_candidates("cache", &even, 50)
            .expect("search")
            .len(),
        2,
        "archived memories are not searched by default"
    );
    assert_eq!(
        s.count_up_to(&even, 100).expect("count"),
        2,
        "archived memories are not counted by default"
    );
}

/// Whether `m` meets `filter`, by the definition of each field (metadata conditions by
/// [`MetaCondition::holds`]).
fn meets(filter: &Filter, m: &crate::Memory) -> bool {
    let same = |a: &Option<String>, b: &Option<String>| b.is_none() || a == b;
    filter.matches_status(m.status)
        && (filter.namespace.is_none() || filter.namespace.as_ref() == Some(&m.namespace))
        && same(&m.session, &filter.session)
        && same(&m.bead_id, &filter.bead_id)
        && same(&m.worker_id, &filter.worker_id)
        && filter.min_confidence.is_none_or(|c| m.confidence >= c)
        && (filter.types.is_empty() || filter.types.contains(&m.memory_type))
        && (filter.sources.is_empty() || filter.sources.contains(&m.source))
        && (filter.tags_any.is_empty() || filter.tags_any.iter().any(|t| m.tags.contains(t)))
        && filter.tags_all.iter().all(|t| m.tags.contains(t))
        && filter.created_after.is_none_or(|t| m.created_at >= t)
        && filter.created_before.is_none_or(|t| m.created_at < t)
        && filter.metadata.iter().all(|c| c.holds(&m.metadata))
}

fn every_filter_field_selects_what_it_says<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let tag_sets: [&[&str]; 3] = [&["a"], &["a", "b"], &["b", "c"]];
    let new: Vec<NewMemory> = (0..24_i64)
        .map(|i| {
            let n = i as usize;
            let mut m = NewMemory::new(format!("filter note {i}"), MemoryType::ALL[n % 5])
                .tags(tag_sets[n % 3].iter().copied())
                .source(Source::ALL[n % 4])
                .namespace(if i % 2 == 0 { "default" } else { "other" })
                .confidence(0.5 + (i % 5) as f64 * 0.1)
                .created_at(Timestamp(1_000 + i * 10));
            m.status = if i % 5 == 4 {
                Status::Archived
            } else {
                Status::Active
            };
            m.bead_id = (i % 3 != 2).then(|| format!("bead-{}", i % 2));
            m.worker_id = Some(format!("worker-{}", i % 3));
            if i % 6 != 5 {
                let meta = serde_json::json!({
                    "env": {"kind": if i % 3 == 0 { "real" } else { "sim" }},
                    "priority": i % 4,
                    "ok": i % 2 == 0,
                });
                m.metadata = meta.as_object().expect("an object").clone();
            }
            m
        })
        .collect();
    insert(s, new);
    let all = {
        let mut all = s
            .list(&Filter::default(), ListOrder::Oldest, 1_000, 0)
            .expect("list");
        all.extend(
            s.list(
                &Filter {
                    statuses: vec![Status::Archived],
                    ..Filter::default()
                },
                ListOrder::Oldest,
                1_000,
                0,
            )
            .expect("list"),
        );
        all.sort_by_key(|m| (m.created_at, m.id));
        all
    };
    assert_eq!(all.len(), 24, "every memory is listed under one status");
    let meta = |path: &str, op: MetaOp, value: serde_json::Value| {
        vec![MetaCondition::new(path, op, value).expect("a condition")]
    };
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let filters = [
        Filter {
            types: vec![MemoryType::Gotcha, MemoryType::Pattern],
            ..Filter::default()
        },
        Filter {
            tags_any: strings(&["c"]),
            ..Filter::default()
        },
        Filter {
            tags_any: strings(&["a", "c"]),
            ..Filter::default()
        },
        Filter {
            tags_all: strings(&["a", "b"]),
            ..Filter::default()
        },
        Filter {
            tags_all: strings(&["b"]),
            tags_any: strings(&["a"]),
            ..Filter::default()
        },
        Filter {
            sources: vec![Source::Manual, Source::Import],
            ..Filter::default()
        },
        Filter {
            namespace: Some("other".into()),
            ..Filter::default()
        },
        Filter {
            statuses: vec![Status::Archived],
            ..Filter::default()
        },
        Filter {
            statuses: vec![Status::Archived, Status::Active],
            ..Filter::default()
        },
        Filter {
            statuses: Status::ALL.to_vec(),
            namespace: Some("other".into()),
            ..Filter::default()
        },
        Filter {
            statuses: vec![Status::Archived],
            include_superseded: true,
            types: vec![MemoryType::Lesson, MemoryType::Pattern],
            ..Filter::default()
        },
        Filter {
            created_after: Some(Timestamp(1_050)),
            ..Filter::default()
        },
        Filter {
            created_after: Some(Timestamp(1_050)),
            created_before: Some(Timestamp(1_150)),
            ..Filter::default()
        },
        Filter {
            bead_id: Some("bead-1".into()),
            ..Filter::default()
        },
        Filter {
            worker_id: Some("worker-2".into()),
            namespace: Some("default".into()),
            ..Filter::default()
        },
        Filter {
            min_confidence: Some(0.7),
            ..Filter::default()
        },
        Filter {
            metadata: meta("env.kind", MetaOp::Eq, "real".into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("env.kind", MetaOp::Ne, "sim".into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("priority", MetaOp::Gte, 2.into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("priority", MetaOp::Lt, 2.into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("priority", MetaOp::Ne, 3.into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("priority", MetaOp::Eq, 2.0.into()),
            ..Filter::default()
        },
        Filter {
            metadata: meta("ok", MetaOp::Eq, true.into()),
            statuses: vec![Status::Archived],
            ..Filter::default()
        },
        Filter {
            metadata: [
                meta("priority", MetaOp::Gt, 0.into()),
                meta("priority", MetaOp::Lte, 2.into()),
            ]
            .concat(),
            tags_any: strings(&["b"]),
            ..Filter::default()
        },
    ];
    for filter in &filters {
        let expected: Vec<_> = all
            .iter()
            .filter(|m| meets(filter, m))
            .map(|m| m.id)
            .collect();
        let listed: Vec<_> = s
            .list(filter, ListOrder::Oldest, 1_000, 0)
            .expect("list")
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(listed, expected, "list under {filter:?}");
        assert_eq!(
            s.count(filter).expect("count"),
            expected.len() as u64,
            "count under {filter:?}"
        );
        let mut found: Vec<_> = s
            .lexical_candidates("filter note", filter, 1_000)
            .expect("search")
            .into_iter()
            .map(|(m, _)| m.id)
            .collect();
        found.sort_unstable();
        assert_eq!(found, expected, "lexical search under {filter:?}");
    }
}

fn lexical_search_ranks_and_never_fails_on_text<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new(
                "Postgres connection pooling with pgbouncer",
                MemoryType::Pattern,
            ),
            NewMemory::new(
                "The database connections were timing out under load",
                MemoryType::Lesson,
            ),
        ],
    );
    let found = s
        .lexical_candidates("database connection timeouts", &Filter::default(), 10)
        .expect("search");
    assert_eq!(
        found.first().map(|(m, _)| m.id),
        Some(ids[1]),
        "the better match first"
    );
    assert!(
        found.windows(2).all(|w| w[0].1 >= w[1].1),
        "best first, larger scores better"
    );
    assert!(found.iter().all(|(_, score)| score.is_finite()));
    for hostile in [
        "",
        "   ",
        "the of and",
        "\"unbalanced (",
        "NEAR(a b)",
        "a* OR -b",
        "é",
    ] {
        let found = s
            .lexical_candidates(hostile, &Filter::default(), 10)
            .unwrap_or_else(|e| panic!("search for {hostile:?} failed: {e}"));
        assert!(found.len() <= 2);
    }
    assert!(
        s.lexical_candidates("database", &Filter::default(), 0)
            .expect("search")
            .is_empty(),
        "depth 0 finds nothing"
    );
}

fn lexical_scores_are_the_search_s<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new("connection pool exhausted under load", MemoryType::Lesson),
            NewMemory::new("prefer small focused commits", MemoryType::Pattern),
            NewMemory::new(
                "pool the connections; a pool per worker",
                MemoryType::Pattern,
            )
            .tags(["pool".to_string()]),
            NewMemory::new("load tests before a release", MemoryType::Lesson)
                .summary("connection load"),
        ],
    );
    let query = "connection pool load";
    let found: Vec<(crate::MemoryId, f64)> = s
        .lexical_candidates(query, &Filter::default(), 10)
        .expect("search")
        .into_iter()
        .map(|(m, score)| (m.id, score))
        .collect();
    assert_eq!(found.len(), 3, "three memories hold a word of {query:?}");
    // Asked out of order, with a memory holding none of the words and an id never written.
    let asked = [ids[3], 999_999, ids[1], ids[0], ids[2]];
    let expected: Vec<(crate::MemoryId, f64)> = asked
        .iter()
        .filter_map(|id| found.iter().find(|(f, _)| f == id).copied())
        .collect();
    let scored = s.lexical_scores(query, &asked).expect("lexical scores");
    assert_eq!(
        scored.len(),
        expected.len(),
        "scored {scored:?}, found {found:?}"
    );
    for ((id, score), (want, at)) in scored.iter().zip(&expected) {
        assert_eq!(id, want, "in the order asked");
        assert!(
            (score - at).abs() <= 1e-9 * at.abs(),
            "memory {id} scored {score}, found with {at}"
        );
    }
    for (text, asked) in [("", &ids[..]), ("the of and", &ids[..]), (query, &[][..])] {
        assert!(
            s.lexical_scores(text, asked)
                .expect("lexical scores")
                .is_empty(),
            "nothing to score for {text:?} and {asked:?}"
        );
    }
}

fn writes_change_what_they_say<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = insert(
        s,
        vec![
            NewMemory::new("first", MemoryType::Lesson),
            NewMemory::new("second", MemoryType::Lesson),
        ],
    );
    s.set_pinned(ids[0], true).expect("pin");
    assert!(s.get(ids[0]).expect("get").pinned);
    s.record_returned(&ids).expect("record returns");
    s.record_returned(&ids[..1]).expect("record returns");
    let m = s.get(ids[0]).expect("get");
    assert_eq!(
        (m.return_count, m.access_count, m.last_accessed),
        (2, 0, None),
        "returned is not used"
    );
    s.record_used(&ids[..1], Timestamp(5_000))
        .expect("record use");
    let m = s.get(ids[0]).expect("get");
    assert_eq!(
        (m.return_count, m.access_count, m.last_accessed),
        (2, 1, Some(Timestamp(5_000)))
    );
    assert_eq!(s.get(ids[1]).expect("get").return_count, 1);
    s.forget(ids[1]).expect("forget");
    assert_eq!(
        s.get(ids[1]).expect_err("forgotten").kind(),
        ErrorKind::NotFound
    );
    for (what, e) in [
        ("forget", s.forget(ids[1]).expect_err("twice")),
        ("pin", s.set_pinned(ids[1], true).expect_err("gone")),
        (
            "archive",
            s.set_status(ids[1], Status::Archived).expect_err("gone"),
        ),
    ] {
        assert_eq!(e.kind(), ErrorKind::NotFound, "{what} of an unknown id");
    }
}

/// A unit vector of 4 along `(x, y)`.
fn alone(id: crate::MemoryId, text: &str) -> ToEmbed {
    ToEmbed {
        id,
        text: text.to_string(),
        before: None,
    }
}

fn unit(x: f32, y: f32) -> Vec<f32> {
    let n = (x * x + y * y).sqrt();
    vec![x / n, y / n, 0.0, 0.0]
}

fn embedded(text: &str, model: &str, vector: Vec<f32>) -> (NewMemory, Option<Embedding>) {
    let e = Embedding {
        model: model.into(),
        vector,
    };
    (NewMemory::new(text, MemoryType::Lesson), Some(e))
}

fn embeddings_are_kept_searched_and_replaced<S: CandidateSearch + MemoryWrite>(s: &mut S) {
    let ids = write(
        s,
        vec![
            embedded("along x", "m1", unit(1.0, 0.0)),
            embedded("along y", "m1", unit(0.0, 1.0)),
            embedded("between", "m1", unit(1.0, 1.0)),
            (NewMemory::new("no vector", MemoryType::Lesson), None),
        ],
    );
    let near = s
        .vector_candidates("m1", &unit(1.0, 0.2), &Filter::default(), 2)
        .expect("vector search");
    assert_eq!(
        near.iter().map(|h| h.0).collect::<Vec<_>>(),
        [ids[0], ids[2]],
        "nearest first, depth honoured"
    );
    let exact = f64::from(unit(1.0, 0.2)[0]);
    assert!(
        (near[0].1 - exact).abs() < 1e-5,
        "the cosine is exact: {} vs {exact}",
        near[0].1
    );
    assert!(
        s.vector_candidates("other", &unit(1.0, 0.0), &Filter::default(), 5)
            .expect("vector search")
            .is_empty(),
        "another model's query finds nothing"
    );
    let sims = s
        .similarities("m1", &unit(0.0, 1.0), &[ids[3], ids[1], ids[0]])
        .expect("similarities");
    assert_eq!(
        sims.iter().map(|h| h.0).collect::<Vec<_>>(),
        [ids[1], ids[0]],
        "similarities of the ids with an embedding, in the order asked"
    );
    assert!((sims[0].1 - 1.0).abs() < 1e-5 && sims[1].1.abs() < 1e-5);

    assert_eq!(s.count_unembedded("m1").expect("count"), 1);
    let (t0, t1, t2) = (Timestamp(1_000), Timestamp(1_010), Timestamp(1_020));
    let todo = s.claim_unembedded("m1", 0, 10, t0, t1).expect("claim");
    assert_eq!(todo, [alone(ids[3], "no vector")]);
    assert!(
        s.claim_unembedded("m1", 0, 10, t0, t1)
            .expect("claim")
            .is_empty(),
        "a claimed memory is not claimed again while the claim lasts"
    );
    assert_eq!(
        s.claim_unembedded("m1", 0, 10, t1, t2).expect("claim"),
        todo,
        "a claim that ended holds nothing"
    );
    assert_eq!(
        s.claim_unembedded("m2", ids[0], 2, t1, t2).expect("claim"),
        [alone(ids[1], "along y"), alone(ids[2], "between")],
        "after an id, by id, limited"
    );
    assert!(
        s.claim_unembedded("m2", 0, 10, t1, t2)
            .expect("claim")
            .iter()
            .all(|m| m.id == ids[0]),
        "claims hold whatever the model"
    );
    let stored = s
        .set_embeddings(
            "m2",
            &made_now(
                s,
                &[(ids[0], unit(0.0, 1.0)), (ids[3] + 1_000, unit(1.0, 0.0))],
            ),
        )
        .expect("set_embeddings");
    assert_eq!(stored, 1, "an unknown id is skipped");
    assert_eq!(
        s.count_unembedded("m1").expect("count"),
        2,
        "the new model's embedding replaced the old"
    );
    let near = s
        .vector_candidates("m2", &unit(0.0, 1.0), &Filter::default(), 5)
        .expect("vector search");
    assert_eq!(near.iter().map(|h| h.0).collect::<Vec<_>>(), [ids[0]]);
    assert!(
        s.vector_candidates("m1", &unit(1.0, 0.0), &Filter::default(), 5)
            .expect("vector search")
            .iter()
            .all(|h| h.0 != ids[0]),
        "the replaced embedding is no longer searched"
    );

    let bad = s
        .set_embeddings(
            "m1",
            &made_now(s, &[(ids[1], vec![1.0, 0.0]), (ids[2], vec![1.0])]),
        )
        .expect_err("two dimensions");
    assert_eq!(bad.kind(), ErrorKind::InvalidInput);
    assert_eq!(s.count(&Filter::default()).expect("count"), 4);
    assert_eq!(
        s.count_unembedded("m1").expect("count"),
        2,
        "nothing written"
    );

    let (t3, t4) = (Timestamp(2_000), Timestamp(2_010));
    let claimed = s.claim_unembedded("m1", 0, 10, t3, t4).expect("claim");
    assert_eq!(
        claimed.iter().map(|c| c.id).collect::<Vec<_>>(),
        [ids[0], ids[3]]
    );
    s.set_embeddings("m1", &made_now(s, &[(ids[3], unit(1.0, 1.0))]))
        .expect("set_embeddings");
    assert_eq!(
        s.claim_unembedded("m2", 0, 10, t3, t4)
            .expect("claim")
            .iter()
            .map(|c| c.id)
            .collect::<Vec<_>>(),
        [ids[1], ids[2], ids[3]],
        "storing an embedding ends its memory's claim"
    );
}

/// A write transaction finds a near-duplicate and the stale memories, folds one memory into
/// another and archives, as the engine's consolidation asks; nothing of it is kept unless it
/// commits.
fn write_transactions_fold_find_and_archive<S: MemoryStore>(s: &mut S) {
    let day = 86_400;
    let now = Timestamp(1_000 * day);
    let ids = insert(
        s,
        vec![
            NewMemory::new(
                "Vacuum the database every night after the backup",
                MemoryType::Lesson,
            )
            .confidence(0.6)
            .tags(["ops"])
            .created_at(Timestamp(990 * day)),
            NewMemory::new(
                "vacuum the database every night, after the backup!",
                MemoryType::Lesson,
            )
            .confidence(0.9)
            .tags(["db"])
            .created_at(Timestamp(995 * day)),
            NewMemory::new("An old hunch about flaky tests", MemoryType::Lesson)
                .confidence(0.2)
                .created_at(Timestamp(100 * day)),
            NewMemory::new("An old hunch about slow builds, pinned", MemoryType::Lesson)
                .confidence(0.2)
                .created_at(Timestamp(100 * day)),
            NewMemory::new(
                "Unrelated: the office closes at six",
                MemoryType::Preference,
            ),
        ],
    );
    s.set_pinned(ids[3], true).expect("pin");
    s.record_used(&[ids[0]], Timestamp(990 * day)).expect("use");
    let before = s
        .list(&Filter::default(), ListOrder::Oldest, 100, 0)
        .expect("list");
    let unused_since = Timestamp(910 * day);
    let run = |s: &mut S, commit: Commit| {
        let mut found = (Vec::new(), Vec::new());
        s.transact(&mut |tx| {
            let all = tx.active_memories()?;
            let similar =
                tx.similar_lexically(all[0].id, &all[0].content, &all[0].namespace, 0.8, 5)?;
            let stale = tx.stale(0.3, unused_since)?;
            tx.fold_into(ids[1], &all[0])?;
            tx.archive(&stale, now)?;
            found = (similar, stale);
            Ok(commit)
        })
        .expect("transact");
        found
    };
    let (similar, stale) = run(s, Commit::No);
    assert_eq!(
        s.list(&Filter::default(), ListOrder::Oldest, 100, 0)
            .expect("list"),
        before,
        "a transaction not committed changes nothing"
    );
    assert_eq!(
        similar.iter().map(|&(id, _)| id).collect::<Vec<_>>(),
        [ids[1]],
        "the near-duplicate in other words is similar, nothing else: {similar:?}"
    );
    assert!(similar[0].1 >= 0.8, "{similar:?}");
    assert_eq!(stale, [ids[2]], "stale: weak, unused and not pinned");
    run(s, Commit::Yes);
    let kept = s.get(ids[1]).expect("kept");
    assert_eq!(kept.access_count, 1, "the access counts are added up");
    assert_eq!(kept.tags, ["db", "ops"], "the tags are united");
    assert_eq!(kept.confidence, 0.9);
    let merged = s.get(ids[0]).expect("merged, kept");
    assert_eq!(
        (merged.status, merged.merged_into),
        (Status::Merged, Some(ids[1]))
    );
    assert_eq!(s.get(ids[2]).expect("archived").status, Status::Archived);
    assert_eq!(s.get(ids[3]).expect("pinned").status, Status::Active);
    let found: Vec<_> = s
        .lexical_candidates("vacuum database backup", &Filter::default(), 10)
        .expect("search")
        .into_iter()
        .map(|(m, _)| m.id)
        .collect();
    assert_eq!(
        found,
        [ids[1]],
        "the merged memory is searched by its words"
    );
    let tagged = Filter {
        tags_all: vec!["ops".into()],
        ..Filter::default()
    };
    assert_eq!(
        s.lexical_candidates("ops", &tagged, 10)
            .expect("search by a merged tag")
            .len(),
        1,
        "the merged tags are searched"
    );
    s.rebuild_index().expect("rebuild");
    assert_eq!(
        s.lexical_candidates("vacuum database backup", &Filter::default(), 10)
            .expect("search")
            .into_iter()
            .map(|(m, s)| (m.id, s))
            .collect::<Vec<_>>(),
        s.lexical_candidates("vacuum database backup", &Filter::default(), 10)
            .expect("search")
            .into_iter()
            .map(|(m, s)| (m.id, s))
            .collect::<Vec<_>>(),
    );
}

fn everything_is_exported<S: MemoryStore>(s: &mut S) {
    let mut a = NewMemory::new("Exported lesson with everything set", MemoryType::Gotcha)
        .tags(["x", "y"])
        .confidence(0.7)
        .namespace("team")
        .session("s-1")
        .created_at(Timestamp(5_000));
    a.bead_id = Some("bead".into());
    a.worker_id = Some("worker".into());
    a.summary = Some("what an export keeps".into());
    a.files = vec!["src/export.rs".into()];
    a.entities = vec!["Store::for_each".into(), "OtherMemory".into()];
    a.access_count = 3;
    a.return_count = 7;
    a.last_accessed = Some(Timestamp(6_000));
    a.pinned = true;
    a.metadata = serde_json::json!({"env": {"kind": "real"}})
        .as_object()
        .expect("an object")
        .clone();
    let mut archived = NewMemory::new("An archived decision about queues", MemoryType::Decision)
        .created_at(Timestamp(5_100));
    archived.status = Status::Archived;
    let embedded = embedded("Embedded pattern for retries", "test-model", unit(1.0, 0.5));
    let ids = write(
        s,
        vec![
            (a.clone(), None),
            (archived.clone(), None),
            embedded.clone(),
        ],
    );

    let mut listed = Vec::new();
    let n = s
        .for_each(&Filter::default(), &mut |m| {
            listed.push(m.id);
            Ok(())
        })
        .expect("for_each");
    assert_eq!(
        (n, listed),
        (2, vec![ids[0], ids[2]]),
        "for_each honours the filter"
    );

    let mut exported: Vec<OtherMemory> = Vec::new();
    let n = s
        .for_each_embedded(&mut |m| {
            exported.push(m);
            Ok(())
        })
        .expect("for_each_embedded");
    assert_eq!(n, 3, "every memory, of any status, is exported");
    let mut expected_a = a.clone();
    expected_a.validate().expect("valid");
    assert_eq!(exported[0].memory.content, expected_a.content);
    let got = &exported[0].memory;
    assert_eq!(
        (
            &got.tags,
            got.confidence,
            &got.namespace,
            &got.session,
            &got.bead_id,
            &got.worker_id,
            got.access_count,
            got.last_accessed,
            got.pinned,
            &got.metadata,
            got.created_at,
        ),
        (
            &expected_a.tags,
            0.7,
            &expected_a.namespace,
            &expected_a.session,
            &expected_a.bead_id,
            &expected_a.worker_id,
            3,
            Some(Timestamp(6_000)),
            true,
            &expected_a.metadata,
            Some(Timestamp(5_000)),
        ),
        "an export keeps every field"
    );
    assert_eq!(exported[1].memory.status, Status::Archived);
    assert_eq!(
        exported[2].embedding, embedded.1,
        "the embedding is exported as it is"
    );
}

fn stats_count_what_is_there<S: MemoryStore>(s: &mut S) {
    let empty = s.stats().expect("stats");
    assert_eq!((empty.total, empty.created_range), (0, None));
    let ids = write(
        s,
        vec![
            embedded("one embedded lesson", "m", unit(1.0, 0.0)),
            (
                NewMemory::new("a decision", MemoryType::Decision).created_at(Timestamp(10)),
                None,
            ),
            (
                NewMemory::new("another decision", MemoryType::Decision).namespace("b"),
                None,
            ),
        ],
    );
    s.set_status(ids[2], Status::Archived).expect("archive");
    s.set_pinned(ids[0], true).expect("pin");
    let st = s.stats().expect("stats");
    assert_eq!(
        (st.total, st.active, st.archived, st.pinned, st.embedded),
        (3, 2, 1, 1, 1)
    );
    assert_eq!(st.embedded_by_model, [("m".to_string(), 1)]);
    assert_eq!(
        st.by_type,
        [("decision".to_string(), 1), ("lesson".to_string(), 1)],
        "active memories by type"
    );
    assert_eq!(
        st.by_namespace,
        [("default".to_string(), 2), ("b".to_string(), 1)]
    );
    assert_eq!(st.created_range.map(|r| r.0), Some(Timestamp(10)));
    assert!(st.schema_version > 0 && st.size_bytes > 0);
    assert!(!s.location().is_empty());
}

/// A provisional write is seen by the lookups that follow it (by its words and by its
/// embedding) and taken back without a trace; one kept is compared with the writes after it
/// in the same transaction, and stays when the transaction commits.
fn provisional_writes_are_seen_and_taken_back<S: MemoryStore>(s: &mut S) {
    let ids = write(
        s,
        vec![
            embedded("run cargo fmt before every commit", "m1", unit(1.0, 0.0)),
            embedded("an unrelated note on queues", "m1", unit(0.0, 1.0)),
        ],
    );
    let now = Timestamp(1_000);
    let (m, e) = embedded("Run cargo fmt before every commit!", "m1", unit(1.0, 0.01));
    let e = e.expect("an embedding");
    let (other, other_e) = embedded("something else", "m1", unit(1.0, 0.02));
    let other_e = other_e.expect("an embedding");
    s.set_status(ids[1], Status::Archived).expect("archive");
    s.transact(&mut |tx| {
        assert_eq!(
            tx.memories_up_to(10)?,
            2,
            "an archived memory is counted too"
        );
        assert_eq!(tx.memories_up_to(1)?, 1, "counted up to the limit");
        let id = tx.insert_provisionally(&m, Some(&e), now)?;
        assert_eq!(tx.memories_up_to(10)?, 3, "a provisional write is counted");
        let lexical = tx.similar_lexically(id, &m.content, &m.namespace, 0.5, 5)?;
        assert_eq!(
            lexical.iter().map(|h| h.0).collect::<Vec<_>>(),
            [ids[0]],
            "the same words, and not the unrelated note: {lexical:?}"
        );
        assert!(lexical[0].1 > 0.7, "{lexical:?}");
        let near = tx.similar_by_vector(id, &m.namespace, &e)?;
        assert_eq!(near.first().map(|h| h.0), Some(ids[0]), "{near:?}");
        assert!(near[0].1 > 0.99, "{near:?}");
        assert_eq!(tx.memory(id)?.content, m.content);
        tx.withdraw(id)?;
        assert_eq!(
            tx.memory(id).map(|m| m.id).unwrap_err().kind(),
            ErrorKind::NotFound,
            "a withdrawn write is gone"
        );
        assert_eq!(tx.memories_up_to(10)?, 2, "and no longer counted");
        let kept = tx.insert_provisionally(&m, Some(&e), now)?;
        let later = tx.insert_provisionally(&other, Some(&other_e), now)?;
        assert!(
            tx.withdraw(kept).is_err(),
            "only the last write can be taken back"
        );
        let near = tx.similar_by_vector(later, &other.namespace, &other_e)?;
        assert!(
            near.iter().any(|h| h.0 == kept),
            "a kept write of this transaction is compared: {near:?}"
        );
        tx.set_confidence(ids[1], 0.95, now)?;
        Ok(Commit::Yes)
    })
    .expect("transact");
    assert_eq!(
        s.count(&Filter::default()).expect("count"),
        3,
        "the first memory and the two kept; the second is archived"
    );
    assert_eq!(s.get(ids[1]).expect("get").confidence, 0.95);
    let before = s.count(&Filter::default()).expect("count");
    s.transact(&mut |tx| {
        tx.insert(&[(&other, None)], now)?;
        Ok(Commit::No)
    })
    .expect("transact");
    assert_eq!(
        s.count(&Filter::default()).expect("count"),
        before,
        "a transaction not committed writes nothing"
    );
}
