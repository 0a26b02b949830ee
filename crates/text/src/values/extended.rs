//! A statement extended: a value, a clause or a sentence added to it.

use std::collections::BTreeSet;

use super::changed::changed_value;
use super::extract::{values, values_in};
use super::relations::{hyphenated, is_typo};
use super::same::{holds_in_order, rewritten, same_passage};
use super::stated::two_statements;
use super::tokens::{
    alphanumeric_keys, content_words, core, keys, link_target, listed, page_as_written, sentences,
    tokens,
};
use crate::Stemmer;

/// True when each of `old` and `new` names a value the other does not (links' targets
/// counted) and the new one is no typo fixed: one value replaced by another, whatever else
/// was reworded.
pub(super) fn replaces_a_value(old: &str, new: &str) -> bool {
    let stemmer = Stemmer::english();
    let (a, b) = (values(old), values(new));
    let dropped: Vec<&String> = a.difference(&b).collect();
    !dropped.is_empty()
        && b.difference(&a)
            .any(|v| !dropped.iter().any(|w| is_typo(w, v, true, &stemmer)))
}

/// The fewest words of a statement that [`extends`] reads as held by a longer one. Fewer than
/// [`holds_the_other`](super::holds_the_other)'s eight: what is added must name a new value
/// too, and a short rule with a flag or a version added is its newer state ("Tests run with
/// pytest -x" → "… -x -n auto"). Four would read a pointer as one ("Node 18 is required (see
/// `.nvmrc`)", a duplicate in the written pairs).
pub(super) const EXTENDED_WORDS: usize = 5;

/// True when `new` says all `old` says, word for word and in order (`old` of five words or
/// more), and more, and what it adds names a value `old` does not (a command, a flag, a
/// path, an identifier; not a link, nor a word of `old` put in a code span), or makes an
/// exception to it (`except`, `unless`, `excluding`, `other than`, `only if`, `only when`):
/// the rule broadened by a fact or narrowed, which supersedes it, as it loses nothing of it ("… the
/// expected value" → "… the expected value when running `pytest
/// --inline-snapshot=create`"; "always add `from __future__ import annotations` first" →
/// "… first (except in documentation snippets)"); or a passage about code rewritten in part
/// ([`same_passage`]) that names a value it did not (`WorkspaceResolvingEngineCommandStarter`
/// added to prefect's notes on `ProcessWorker`); or a shorter statement that names code,
/// rewritten keeping most of its words (six content words or more, in order, and half of
/// the shorter one's), that names a new value or replaces one ("… navigate to the root
/// directory of the project" → "… to the `docs` subdirectory of the project"). A clause
/// added that names no new value and makes no exception (a reason, a hedge) repeats
/// the statement; one dropped, whatever it said, condenses it.
///
/// ```
/// use oro_mem_text::extends;
///
/// let old = "On first run with an empty snapshot, pytest fills in the expected value.";
/// let new = "On first run with an empty snapshot, pytest fills in the expected value when \
///            running `pytest --inline-snapshot=create`.";
/// assert!(extends(old, new));
/// assert!(!extends(new, old));
/// assert!(extends(old, "On first run with an empty snapshot, pytest fills in the \
///     expected value, unless it runs in CI."));
/// assert!(!extends(old, "On first run with an empty snapshot, pytest fills in the \
///     expected value, which saves a lot of typing."));
/// ```
pub fn extends(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    if joins_a_clause(old, new) || adds_a_sentence(old, new) {
        return true;
    }
    let (a, b) = (alphanumeric_keys(old), alphanumeric_keys(new));
    let holds = a.len() >= EXTENDED_WORDS && b.len() > a.len() && holds_in_order(&a, &b);
    // A passage rewritten in part that names new code: new facts, whatever else it rewords;
    // but not code named where the old one pointed at it ("this directory" → "the `macos/`
    // directory": the same thing, said).
    if !holds {
        let new_value = || names_a_new_value(old, &unpointed(old, new));
        return (same_passage(old, new) && new_value())
            || (rewritten(old, new) && (new_value() || replaces_a_value(old, new)));
    }
    let excepted = |keys: &[String]| {
        keys.iter().enumerate().any(|(i, k)| {
            let next = keys.get(i + 1).map(String::as_str);
            matches!(k.as_str(), "except" | "excluding" | "unless")
                || (k == "other" && next == Some("than"))
                || (k == "only" && matches!(next, Some("if" | "when")))
        })
    };
    (excepted(&b) && !excepted(&a)) || names_a_new_value(old, new)
}

/// The fewest content words of a clause [`joins_a_clause`] reads as a fact added.
pub(super) const JOINED_WORDS: usize = 2;

/// True when `new` is all of `old`, as written, with a clause joined to it by `, and` or
/// `;` that says something more (two content words or more): a fact added to the statement,
/// which loses nothing of it ("Use pnpm" → "Use pnpm, and commit the lockfile"; "Write your
/// asserts as `expected == actual` to line them up nicely" → "…, and leave an empty line
/// before them"), or by `and` alone when it names a new value ("Integration tests need
/// Docker" → "… and a Postgres container on port 5433"). A clause that gives a reason or a
/// place ("…, so CI stays green", "… before starting the server") restates it
/// ([`extends`]).
pub(super) fn joins_a_clause(old: &str, new: &str) -> bool {
    let ends = |c: char| c.is_whitespace() || matches!(c, '.' | ':' | ';' | ',');
    let (old, new) = (old.trim_end_matches(ends), new.trim());
    let Some(rest) = new.strip_prefix(old) else {
        return false;
    };
    match rest
        .strip_prefix(", and ")
        .or_else(|| rest.strip_prefix("; "))
    {
        Some(clause) => content_words(clause) >= JOINED_WORDS,
        // Joined by `and` alone, what it adds names a value: "Integration tests need Docker
        // and a Postgres container on port 5433", not "Keep it short and simple".
        None => rest.strip_prefix(" and ").is_some_and(|clause| {
            content_words(clause) >= JOINED_WORDS && names_a_new_value(old, new)
        }),
    }
}

/// True when `new` is all of `old`, as written, with a sentence of two content words or more
/// added before, between or after its sentences: a fact added, as a clause joined is
/// ([`joins_a_clause`]). "Then open a PR for the release and get it approved. Once merged,
/// the release workflow publishes it." → "… approved. Even with bypass permissions, always
/// use a PR so CI runs before the release publishes. Once merged, …". Or each of `old`'s
/// sentences kept in order, as written or with a value changed ([`changed_value`]), and a
/// sentence added: "Current: v0.8.2 -- 1467 tests passing. Major features:" → "Current:
/// v1.0.0 -- 1490 tests passing. v1.0.0 is the first release under the stability promise.
/// Major features:".
pub(super) fn adds_a_sentence(old: &str, new: &str) -> bool {
    // As stated, a statement's full stop is dropped ([`as_stated`]).
    let words = |text: &str| {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        text.trim_end_matches('.').to_string()
    };
    let (said, parts) = (sentences(old), sentences(new));
    let old = words(old);
    parts.len() >= 2
        && (0..parts.len()).any(|i| {
            let rest = [&parts[..i], &parts[i + 1..]].concat();
            content_words(parts[i]) >= JOINED_WORDS
                && (words(&rest.join(" ")) == old
                    || (rest.len() == said.len()
                        && said
                            .iter()
                            .zip(&rest)
                            .all(|(o, n)| words(o) == words(n) || changed_value(o, n))))
        })
}

/// `new` without the words that stand where `old` has only a word that points at something
/// ("this", "that", "these", "those", "it", "here", "there").
pub(super) fn unpointed(old: &str, new: &str) -> String {
    const POINTERS: &[&str] = &["here", "it", "that", "there", "these", "this", "those"];
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    let mut kept: Vec<&str> = Vec::with_capacity(b.len());
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let pointed =
            tag == similar::DiffTag::Replace && ka[old_range].iter().all(|k| listed(POINTERS, k));
        if !pointed {
            kept.extend(&b[new_range]);
        }
    }
    kept.join(" ")
}

/// True when `new` names a value that `old` does not: not a link, a word of `old` put in a
/// code span, nor one of its values with a typo fixed ([`extends`]).
pub(super) fn names_a_new_value(old: &str, new: &str) -> bool {
    let stemmer = Stemmer::english();
    // Links and URLs as written: a URL (with its scheme) is a reference, not a fact.
    let old_values = values_in(old, page_as_written);
    let old_words: BTreeSet<String> = old
        .split_whitespace()
        .map(|w| core(w).to_lowercase())
        .collect();
    // A link's target: a reference, not a fact.
    let targets: BTreeSet<&str> = new
        .split_whitespace()
        .filter_map(|w| link_target(w, page_as_written))
        .collect();
    values_in(new, page_as_written).iter().any(|v| {
        !old_values.contains(v)
            && !v.contains("://")
            && !targets.contains(v.as_str())
            && !old_words.contains(&v.to_lowercase())
            && !old_words.iter().any(|w| hyphenated(w, v))
            && !old_values.iter().any(|w| is_typo(w, v, true, &stemmer))
    })
}
