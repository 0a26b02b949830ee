//! What two statements keep: the same passage, entry or subject, or the same words but for
//! the subject.

use super::extract::values;
use super::kinds::{is_verb, DETERMINERS};
use super::relations::{complements, is_typo_word, opposites, reverses};
use super::said::says_also;
use super::stated::{as_stated, two_statements, ADMONITIONS};
use super::tokens::{alphanumeric_keys, core, is_content, keys, listed, tokens};
use crate::Stemmer;

/// The fewest content words of a statement [`same_passage`] reads as a passage.
pub(super) const PASSAGE_WORDS: usize = 12;

/// True when `old` and `new` are one passage of a project's notes rewritten in part: each
/// names code (a code span, a path, an identifier with `_`, `.`, `::` or `(`), each has
/// twelve content words or more (not counting function words), and at least three in five of
/// the shorter one's content words are the other's, in order, but not all, and no word is
/// turned into its complement ("non-Rust" for "Rust": two rules for two cases). A passage
/// about code keeps that much of its words only when it is the same passage: in the real
/// edits of `updates-dev` and the PyPI archives (`fixtures/`), no pair that long and that
/// alike is about something else, and those that are not duplicates are updates ("Direct
/// `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with
/// `EngineCommandStarter` and …" → "… with `propose_submitting=False` because …"). Chat
/// turns are no such passages: two pleasantries keep as much of each other's words. What a
/// duplicate is the write path decides first.
///
/// ```
/// use oro_mem_text::same_passage;
///
/// let old = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
///            `EngineCommandStarter` because `BaseWorker` already proposed Submitting. The \
///            ad hoc bundle path still uses the deprecated `Runner.execute_bundle()`.";
/// let new = "Direct `ProcessWorker.run()` execution uses `FlowRunExecutorContext` with \
///            `EngineCommandStarter` because `BaseWorker` already proposed Submitting. Ad \
///            hoc bundle submissions use `BundleExecutionStarter`.";
/// assert!(same_passage(old, new));
/// assert!(!same_passage("Run the tests before you push", "Run the linter before you push"));
/// ```
pub fn same_passage(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    match kept_in_order(old, new) {
        Some(Kept { kept, shorter }) => {
            shorter >= PASSAGE_WORDS
                && names_code(old)
                && names_code(new)
                && kept * 5 >= shorter * 3
        }
        None => false,
    }
}

/// True when `text` names code: a code span, a path, an identifier with `_`, `.`, `::` or
/// `(`, a link's target.
pub(super) fn names_code(text: &str) -> bool {
    values(text)
        .iter()
        .any(|v| v.contains([' ', '/', '_', '(']) || v.contains("::") || core(v).contains('.'))
        || text.contains('`')
}

/// The fewest content words of the older statement that a rewritten statement keeps in
/// order for [`rewritten`].
pub(super) const REWRITTEN_WORDS: usize = 6;

/// True when `new`, which names code, rewrites `old` in part and keeps most of it: six of its
/// content words or more, in order, and at least half of the shorter one's, but not all, and no
/// word turned into its complement. [`extends`](super::extends) reads such a pair as an update
/// when what `new` says anew names a value ("Open your terminal and navigate to the root
/// directory of the project" → "… to the `docs` subdirectory of the project"); without one, it
/// is the same statement reworded. Chat turns are no such statements: two replies keep as many
/// of each other's words and name other people and numbers.
pub(super) fn rewritten(old: &str, new: &str) -> bool {
    names_code(new) && kept_most(old, new)
}

/// The most words before a verb that [`opening_subject`] and [`narrower_subject`] read as
/// a subject (after its determiner, for the second).
pub(super) const SUBJECT_WORDS: usize = 4;

/// The subject a clause opens with: its content words before a verb ([`is_verb`]) among its
/// first few words, lower case, a code span's each (`uv --project <FOLDER> sync` and `uv
/// --project-all <FOLDER> sync` open with one subject, a flag changed); `None` when no verb
/// comes that early (an imperative: "build one string").
pub(super) fn opening_subject(clause: &[&str]) -> Option<Vec<String>> {
    let verb = (1..clause.len().min(SUBJECT_WORDS + 1)).find(|&i| is_verb(clause[i]))?;
    let subject = &clause[..verb];
    subject
        .iter()
        .all(|t| t.chars().any(char::is_alphanumeric))
        .then(|| {
            keys(subject)
                .into_iter()
                .zip(subject)
                .filter(|(_, t)| is_content(t))
                .flat_map(|(k, _)| k.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect()
        })
}

/// True when `old` and `new` open with the same leading clause, word for word up to the
/// same comma, and go on with two subjects that share no word: two rules for one occasion
/// ("After a class rename in pydantic-ai, documentation should reference only the new
/// class"; "…, the test suite must use the new class"), not one rule rewritten. An entry of
/// a list ([`same_entry`]) is one, whatever it goes on with.
pub(super) fn another_subject_after_a_lead_in(old: &str, new: &str) -> bool {
    let (Some((lead_a, rest_a)), Some((lead_b, rest_b))) =
        (old.split_once(", "), new.split_once(", "))
    else {
        return false;
    };
    let (a, b) = (tokens(lead_a), tokens(lead_b));
    if keys(&a) != keys(&b) || a.iter().filter(|t| is_content(t)).count() < 2 {
        return false;
    }
    match (
        opening_subject(&tokens(rest_a)),
        opening_subject(&tokens(rest_b)),
    ) {
        (Some(x), Some(y)) => {
            !x.is_empty()
                && !y.is_empty()
                && !x.iter().any(|w| y.contains(w))
                && !same_entry(old, new)
        }
        _ => false,
    }
}

/// True when `new` keeps six or more of `old`'s content words in order, and half of the
/// shorter one's, but not all, and turns none into its complement ([`rewritten`]).
pub(super) fn kept_most(old: &str, new: &str) -> bool {
    kept_in_order(old, new)
        .is_some_and(|Kept { kept, shorter }| kept >= REWRITTEN_WORDS && kept * 2 >= shorter)
}

/// How much of two statements' content words one keeps of the other, in order
/// ([`kept_in_order`]).
pub(super) struct Kept {
    /// The content words kept, in order.
    kept: usize,
    /// The content words of the shorter statement.
    shorter: usize,
}

/// The content words (not function words) that `old` and `new` share in order, and how
/// many the shorter has; `None` when they have the same content words, or when a word of
/// one is turned into its complement in the other ("non-Rust" for "Rust": two rules for two
/// cases).
pub(super) fn kept_in_order(old: &str, new: &str) -> Option<Kept> {
    let content = |text: &str| -> Vec<String> {
        let tokens = tokens(text);
        let keys = keys(&tokens);
        tokens
            .iter()
            .zip(keys)
            .filter(|(t, _)| is_content(t))
            .map(|(_, k)| k)
            .collect()
    };
    let (a, b) = (content(old), content(new));
    if a == b {
        return None;
    }
    let mut kept = 0;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            kept += old_range.len();
        }
        if a[old_range]
            .iter()
            .any(|x| b[new_range.clone()].iter().any(|y| complements(x, y)))
        {
            return None;
        }
    }
    Some(Kept {
        kept,
        shorter: a.len().min(b.len()),
    })
}

/// True when `old` and `new` are one entry of a list, a key and what it says of it, with
/// the key the same and what it says changed: "`evaluation/`: Benchmarking framework" and
/// "`evaluation/`: Submodule → the benchmarks repository"; "crewai flow kickoff  # Legacy
/// flow execution" and "crewai flow kickoff  # Deprecated alias for crewai run". A list
/// names each key once, so its entry changed is the newer state of it. The key is what comes
/// before the first `: `, ` # ` or ` — ` (after the same leading `[context]`, if any), of at
/// most six words, and names a value ([`values`]: a path, a command, a code span), so that
/// "Note: …" is no key, nor is "Run `cargo test` before you push to a shared branch: …";
/// or it is a label in bold, of at most six words, before a colon, a dash or a hyphen
/// ("**Failure modes:** …", "**Changelog** — …", "**debugger** - …"), not a sentence nor a
/// note's or a warning's label.
///
/// ```
/// use oro_mem_text::same_entry;
///
/// assert!(same_entry(
///     "`vouch-check-pr.yml`: Comments on PRs from authors absent from `VOUCHED.td`.",
///     "`vouch-check-pr.yml`: Closes PRs from authors denounced in `VOUCHED.td`.",
/// ));
/// assert!(same_entry(
///     "**Changelog** — Add a new entry in `docs/versionhistory.rst`.",
///     "**Changelog** — Add a news fragment in `changelog.d/`.",
/// ));
/// assert!(!same_entry("Note: run the tests first", "Note: the docs build on push"));
/// assert!(!same_entry("**Note:** run the tests first", "**Note:** the docs build on push"));
/// assert!(!same_entry("`src/`: the code", "`docs/`: the manual"));
/// ```
pub fn same_entry(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    const ENTRY_KEY_WORDS: usize = 6;
    fn entry(text: &str) -> Option<(&str, &str, &str, bool)> {
        let text = text.trim();
        let (context, rest) = match text.strip_prefix('[').and_then(|t| t.split_once(']')) {
            Some((context, rest)) => (context, rest.trim_start()),
            None => ("", text),
        };
        if let Some((label, said)) = bold_label(rest) {
            return Some((context, label, said, true));
        }
        let at = [": ", " # ", " — "]
            .iter()
            .filter_map(|sep| rest.find(sep).map(|i| (i, sep.len())))
            .min()?;
        let (key, said) = (rest[..at.0].trim(), rest[at.0 + at.1..].trim());
        // A key names a thing; a sentence before a colon is no key.
        let words = key.split_whitespace().count();
        ((1..=ENTRY_KEY_WORDS).contains(&words) && !said.is_empty())
            .then_some((context, key, said, false))
    }
    // A list's entry led by a label in bold ("**Failure modes:** If the child …",
    // "**Changelog** — Add …"): the label, and what follows it. Not a sentence in bold, nor
    // a note's or a warning's label, which lead entries about anything.
    fn bold_label(text: &str) -> Option<(&str, &str)> {
        let inner = text.strip_prefix("**")?;
        let close = inner.find("**")?;
        let (label, after) = (inner[..close].trim(), &inner[close + 2..]);
        let said = after.trim_start_matches([':', ' ', '—', '–', '-']);
        let separated = label.ends_with(':')
            || after.starts_with(':')
            || after.starts_with(" — ")
            || after.starts_with(" – ")
            || after.starts_with(" - ");
        let label = label.trim_end_matches(':').trim();
        let words = label.split_whitespace().count();
        let admonition = ADMONITIONS.contains(&label.to_lowercase().as_str());
        (separated
            && (1..=ENTRY_KEY_WORDS).contains(&words)
            && !label.ends_with(['.', '!', '?'])
            && !admonition
            && !said.is_empty())
        .then_some((label, said))
    }
    let (Some((context, key, said, bold)), Some((new_context, new_key, new_said, new_bold))) =
        (entry(old), entry(new))
    else {
        return false;
    };
    let keyed = if context.is_empty() {
        key.to_string()
    } else {
        format!("[{context}] {key}")
    };
    context == new_context
        && key == new_key
        && !said.eq_ignore_ascii_case(new_said)
        && ((bold && new_bold) || !values(&keyed).is_empty())
}

/// True when one of `a` and `b` says all the other says, word for word and in order, and
/// more: a clause added or dropped ("Make sure to read the instructions. If something isn't
/// clear, ask" and "Make sure to read the instructions. Not all issues have them, so if
/// something isn't clear, ask"). The shorter has eight words or more: a short one is held by
/// too many statements about other things.
///
/// ```
/// use oro_mem_text::holds_the_other;
///
/// assert!(holds_the_other(
///     "You can install CMake from the installers or with `pipx install cmake`.",
///     "You can install CMake from the installers or with `pipx install cmake` (make sure \
///      that the pipx install path is in `PATH`).",
/// ));
/// assert!(!holds_the_other("Run the tests", "Run the tests on every push"));
/// ```
pub fn holds_the_other(a: &str, b: &str) -> bool {
    let (a, b) = (&*as_stated(a), &*as_stated(b));
    let (a, b) = (alphanumeric_keys(a), alphanumeric_keys(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 8 && holds_in_order(&short, &long)
}

/// True when every word of `short` is in `long`, in order.
pub(super) fn holds_in_order(short: &[String], long: &[String]) -> bool {
    let mut rest = long.iter();
    short.iter().all(|w| rest.any(|l| l == w))
}

/// True when `b` is `a` said of another subject: its first word, its subject, replaced by
/// another and nothing else changed ("Sentry is used for error tracking" and "Rollbar is
/// used for error tracking", "Alice owns the billing service" and "Bob owns …"), or one word
/// of a subject that starts with a determiner replaced and what is said of it changed too
/// ("The API server listens on port 4000" and "The metrics server listens on port 9100"),
/// or, after a leading clause both open with word for word, a subject that shares no word
/// with the other's ("After a release, the changelog must …" and "After a release, docs
/// should …"). A capitalized word that starts a statement may be a name or a verb, so it is
/// read as a subject only when a verb follows it: an auxiliary (`is`, `has`, `can`, …) or a
/// word ending in `s` ("owns", "updates"). Such a pair is no duplicate, however similar (one word of a
/// few), and no update either: the same words say as often that two things are alike
/// ("Linux is supported", "Windows is supported"), and two subjects each have their value
/// (the API's port, the metrics server's). A typo fixed, another form of the word, a negation
/// or an opposite are not a subject replaced.
///
/// ```
/// use oro_mem_text::subject_replaced;
///
/// assert!(subject_replaced("Sentry is used for error tracking", "Rollbar is used for error tracking"));
/// assert!(subject_replaced("Dependabot updates dependencies weekly", "Renovate updates dependencies weekly"));
/// assert!(subject_replaced(
///     "The API server listens on port 4000",
///     "The metrics server listens on port 9100",
/// ));
/// // An imperative's verb: a rewording.
/// assert!(!subject_replaced("Use single quotes in Python", "Prefer single quotes in Python"));
/// assert!(!subject_replaced("Sentry is used for error tracking", "Sentry is used for tracing"));
/// // One subject, its value changed: an update.
/// assert!(!subject_replaced("The API server listens on port 4000", "The API server listens on port 9100"));
/// // One occasion, two subjects; one occasion, one imperative rewritten.
/// assert!(subject_replaced(
///     "After a class rename, documentation should reference only the new class.",
///     "After a class rename, the test suite must use the new class and test the old one's warning.",
/// ));
/// assert!(!subject_replaced(
///     "When an agent needs multiple fields, build one single-line CEL string.",
///     "When an agent needs multiple fields, write one text value with labels.",
/// ));
/// ```
pub fn subject_replaced(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    let (a, b) = (tokens(old), tokens(new));
    let (Some((first_a, rest_a)), Some((first_b, rest_b))) = (a.split_first(), b.split_first())
    else {
        return false;
    };
    let capitalized = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase) && w.chars().all(char::is_alphabetic)
    };
    // The rest the same, but for another form of a word ("Tests run" and "Linting runs") and
    // a word that says the subject is one more ("too", "also").
    let stemmer = Stemmer::english();
    let rest = |t: &[&str]| -> Vec<String> {
        keys(t)
            .iter()
            .filter(|k| !says_also(k))
            .map(|k| stemmer.stem(k).into_owned())
            .collect()
    };
    let first_word = capitalized(first_a)
        && capitalized(first_b)
        && rest(rest_a) == rest(rest_b)
        && [rest_a, rest_b]
            .iter()
            .any(|r| r.first().is_some_and(|w| is_verb(w)))
        && another_word(first_a, first_b);
    first_word
        || another_subject(&a, &b)
        || narrower_subject(&a, &b)
        || another_subject_after_a_lead_in(old, new)
}

/// `b` is another word than `a`, not the same one with a typo fixed or in another form, not
/// its opposite, and neither a negation: what names another subject.
pub(super) fn another_word(a: &str, b: &str) -> bool {
    !core(a).eq_ignore_ascii_case(core(b))
        && ![a, b].iter().any(|w| reverses(w))
        && !opposites(a, b)
        && !is_typo_word(core(a), core(b), false, &Stemmer::english())
}

/// True when `a` and `b` state something of two subjects: each starts with a subject (a
/// determiner, then words up to a verb, [`is_verb`]), the two subjects differ by one word
/// replaced by another and the same verb follows, and what comes after it differs too. "The
/// API server listens on port 4000" and "The metrics server listens on port 9100", "The dev
/// branch deploys to the staging cluster" and "The main branch deploys to the production
/// cluster" are two facts, both true, not one fact with its value changed.
pub(super) fn another_subject(a: &[&str], b: &[&str]) -> bool {
    let starts = |t: &[&str]| t.first().is_some_and(|w| listed(DETERMINERS, w));
    if !starts(a) || !starts(b) {
        return false;
    }
    let (ka, kb) = (keys(a), keys(b));
    // The first verb the two share at one place: a plural in the subject ends in `s` too.
    let Some(verb) = (1..ka.len().min(kb.len())).find(|&i| is_verb(a[i]) && ka[i] == kb[i]) else {
        return false;
    };
    let replaced: Vec<usize> = (0..verb).filter(|&i| ka[i] != kb[i]).collect();
    replaced.len() == 1
        && another_word(a[replaced[0]], b[replaced[0]])
        && ka[verb + 1..] != kb[verb + 1..]
}

/// True when one of `a` and `b` states something of a narrower subject: a subject (a
/// determiner, then words up to a verb, [`is_verb`]) with a word put before its last one,
/// the same verb after it, and what comes after the verb changed ("The API is versioned
/// under `/v1`" and "The admin API is versioned under `/admin/v1`"). [`another_subject`]
/// for a word added rather than replaced.
pub(super) fn narrower_subject(a: &[&str], b: &[&str]) -> bool {
    let subject = |t: &[&str]| -> Option<usize> {
        if !t.first().is_some_and(|w| listed(DETERMINERS, w)) {
            return None;
        }
        (1..t.len().min(SUBJECT_WORDS + 2)).find(|&i| is_verb(t[i]))
    };
    let (Some(va), Some(vb)) = (subject(a), subject(b)) else {
        return false;
    };
    let (ka, kb) = (keys(a), keys(b));
    let (short, long, vs, vl) = if va < vb {
        (&ka, &kb, va, vb)
    } else {
        (&kb, &ka, vb, va)
    };
    if vl != vs + 1 || short[vs] != long[vl] || short[vs + 1..] == long[vl + 1..] {
        return false;
    }
    // The word put in: after the determiner, before the subject's last word.
    (1..vs).any(|i| {
        short[..i] == long[..i]
            && short[i..vs] == long[i + 1..vl]
            && is_content(&long[i])
            && !reverses(&long[i])
    })
}
