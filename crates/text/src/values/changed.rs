//! A changed value, and the one answer of the write path: whether a new statement updates an
//! old one.

use std::collections::BTreeSet;
use std::ops::Range;

use super::extended::extends;
use super::extract::{command_changed, with_bare_command};
use super::kinds::{named, words, Kind, Word, KIND_WORDS, RETIRING};
use super::relations::{complements, opposites, reverses, same_setting, swapped_around};
use super::reworded::same_words;
use super::said::{says_beside, says_changed};
use super::same::{
    another_subject, another_subject_after_a_lead_in, narrower_subject, same_entry, same_passage,
};
use super::stated::two_statements;
use super::tokens::{
    cancel_common, core, function_words, is_content, is_flag, is_value_token, keys, link_target,
    page, same_linked_word, same_page, tokens,
};
use crate::Stemmer;

/// True when `new` is `old` with a value changed and little else: the same statement of a
/// fact that moved on, which supersedes it. Read word by word (a code span, a URL, a path or
/// another value whole), with a diff: at least 70% of the shorter statement's words are the
/// other's, in order (where only values and names changed, as many words in common as
/// changed on either side will do: "Use Node 18" → "Use Node 20"), and of the words that
/// differ (other than short function words,
/// punctuation, and typo fixes: a plain word of four letters or more replaced by one within
/// a fifth of its letters, or by another form of itself; a value's word only by itself with a
/// letter dropped, added or two swapped; and a word only moved), some do and at most six
/// of them are plain words (any number of values may change), and one of these holds:
///
/// - **values replaced**: a value is dropped and one added (a port, a version, a path, a
///   command, a flag, an identifier, a number, a name), with at most two plain words changed
///   beside them, not counting the words that say what kind of value one is ("the
///   `ANTHROPIC_LIVE=1` environment variable enabled" → "the `--http-record` flag");
/// - **one word for another**, one of them a value or a name, in its place: the function
///   words around it the same (`Jest` → `Vitest`; not "run with `cargo t`" → "run quickly");
/// - **flags** only added or only dropped;
/// - **a list item** only added or only dropped: each change is values and names, or one
///   with `and`, `or` or a comma beside them (`` `a/` and `b/` `` → `` `b/` ``), or at most
///   three plain words with `and` or `or` at one end ("warnings" → "warnings or test
///   failures");
/// - **condensed around a value replaced**, or expanded: all one of them adds is values and
///   names standing for one the other named, and at least four content words are kept,
///   whatever else the longer one said ("When you're ready, send your pull request to the
///   **dev** branch" → "Send your pull request to the main branch").
///
/// A **rule reversed** is an update however short it is, when at least one word of what the
/// rule says is in both: one is negated and the other not
/// ([`same_polarity`](crate::same_polarity)) and no word changed but negations and `always`
/// ("Always squash" → "Never squash", where the share of words in common is a half); or each
/// word changed is the opposite of the word it replaced, and nothing else changed
/// ("Enable strict mode" → "Disable strict mode": a short list of words that reverse what a
/// rule prescribes, not those that pick another subject, such as `dev` and `prod`); or the
/// same words, with the two next to a word that orders them swapped ("Use pnpm instead of
/// npm" → "Use npm instead of pnpm"; `before`, `after`, `over`, `than`, `into`, …).
///
/// A value is what [`values`](super::values) reads as one, a number word, or a word of a quoted
/// string ("the \"ops alerts\" channel"); a name is a capitalized word inside a sentence. A
/// rewording changes plain words; a statement about something else shares too few.
///
/// ```
/// use oro_mem_text::changed_value;
///
/// assert!(changed_value("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(changed_value(
///     "Format the code with `cargo +nightly fmt` before a commit",
///     "Format the code with `cargo fmt --all` before a commit",
/// ));
/// assert!(changed_value("The unit tests run on Jest", "The unit tests run on Vitest"));
/// assert!(changed_value(
///     "Logs go to the \"ops alerts\" channel",
///     "Logs go to the \"ops pages\" channel",
/// ));
/// assert!(changed_value("Lint `src/` and `tests/` in CI", "Lint `src/` in CI"));
/// assert!(changed_value("Do not commit the lockfile", "Commit the lockfile"));
/// assert!(!changed_value("Run the tests before you commit", "Always run the tests before committing"));
/// assert!(!changed_value("Use `gofumpt -w .` to format", "Use `goftumpt -w .` to format"));
/// ```
pub fn changed_value(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    if let Some(changed) = command_changed(old, new) {
        return changed;
    }
    if chooses_the_rejected(old, new) || chooses_the_rejected(new, old) || links_replaced(old, new)
    {
        return true;
    }
    let (quoted_old, quoted_new) = (with_bare_command(old), with_bare_command(new));
    let old = quoted_old.as_deref().unwrap_or(old);
    let new = quoted_new.as_deref().unwrap_or(new);
    let (a, b) = (tokens(old), tokens(new));
    if another_subject(&a, &b) || narrower_subject(&a, &b) {
        return false;
    }
    let (ka, mut kb): (Vec<String>, Vec<String>) = (keys(&a), keys(&b));
    // A link added, dropped or written another way to the same page is no change.
    for k in kb.iter_mut().filter(|k| !ka.contains(k)) {
        if let Some(same) = ka.iter().find(|o| same_linked_word(o, k)) {
            k.clone_from(same);
        }
    }
    let stemmer = Stemmer::english();
    let (mut same, mut same_content) = (0, 0);
    let (mut dropped, mut added) = (Vec::new(), Vec::new());
    let (mut function_dropped, mut function_added) = (Vec::<String>::new(), Vec::<String>::new());
    // Every change is values and names, or a list's conjunction with one; and one is that.
    let (mut as_list, mut listed) = (true, false);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            same += old_range.len();
            same_content += a[old_range].iter().filter(|t| is_content(t)).count();
            continue;
        }
        // In the change or next to it: "3.12 or 3.13" → "3.12, 3.13, or 3.14"; or a bound of
        // a range: "Python ≥3.10, <3.14" → "Python ≥3.10".
        fn around<'t, 'a>(t: &'t [&'a str], r: &Range<usize>) -> &'t [&'a str] {
            &t[r.start.saturating_sub(1)..(r.end + 1).min(t.len())]
        }
        // A comma written onto a value is no token of its own ("CodeRabbit, Qodo"); read
        // from the text, it joins items, but not what is said not to be chosen ("pnpm 8, not
        // npm").
        let rejected = a[old_range.clone()]
            .iter()
            .chain(&b[new_range.clone()])
            .any(|t| matches!(t.to_lowercase().as_str(), "not" | "never" | "no"));
        let conjunction = around(&a, &old_range)
            .iter()
            .chain(around(&b, &new_range))
            .any(|t| is_conjunction(t) || *t == "," || is_bound(t))
            || (!rejected
                && (commas_around(old, &a, &old_range) || commas_around(new, &b, &new_range)));
        let gone: Vec<Word> = words(&a, old_range.clone());
        let came: Vec<Word> = words(&b, new_range.clone());
        // The function words changed with them ("with `cargo t`" → "quickly").
        function_dropped.extend(function_words(&a[old_range.clone()]));
        function_added.extend(function_words(&b[new_range.clone()]));
        if same_words(&gone, &came, &stemmer) {
            continue;
        }
        let named = named(&gone) + named(&came);
        // A plain item added to or dropped from a list ("warnings" → "warnings or test
        // failures"; "the changelog and the docs" → "the docs"): a conjunction at one end of
        // it, wherever the diff could have put it, at most three words.
        let (side, keys, range) = if old_range.is_empty() {
            (&b, &kb, new_range.clone())
        } else {
            (&a, &ka, old_range.clone())
        };
        let joined = |t: Option<&&str>| t.is_some_and(|t| is_conjunction(t));
        let item = (old_range.is_empty() || new_range.is_empty())
            && slides(keys, range).any(|r| {
                let hunk = &side[r];
                joined(hunk.first()) || joined(hunk.last())
            })
            && gone.len() + came.len() <= 3;
        // Items beside a conjunction: values and names only, not a clause (", as reviewers
        // are few").
        let items = conjunction && named > 0 && gone.len() + came.len() == named;
        as_list &= named == gone.len() + came.len() || items || item;
        listed |= items || item;
        dropped.extend(gone);
        added.extend(came);
    }
    // A word moved is no word changed ("read `a.md` before starting" → "before starting,
    // read `a.md`"), nor a plain word in another form ("1 approval" → "2 approvals").
    let key = |w: &Word| {
        let word = core(w.text).to_lowercase();
        match w.kind {
            Kind::Plain => stemmer.stem(&word).into_owned(),
            _ => word,
        }
    };
    cancel_common(&mut dropped, &mut added, |d, a| key(d) == key(a));
    let changed = dropped.len() + added.len();
    // A rule reversed: only negations and `always` changed, and with them what the rule says.
    // Decided before the share of words the two have in common, which a short rule cannot
    // keep with its one word changed ("Never squash merge" → "Always squash merge").
    let same_polarity = crate::same_polarity(old, new);
    let reversed = !same_polarity
        && same_content > 0
        && dropped.iter().chain(&added).all(|w| reverses(core(w.text)));
    // Or each word changed for its opposite, nothing else ("Enable strict mode" → "Disable
    // strict mode"; "Run the linter before the tests" → "after the tests").
    let opposed = same_polarity
        && same_content > 0
        && !dropped.is_empty()
        && dropped.len() == added.len()
        && dropped
            .iter()
            .all(|d| added.iter().any(|a| opposites(d.text, a.text)));
    // Or the same words with the two around an order's word swapped ("Use pnpm instead of
    // npm" → "Use npm instead of pnpm"; "Run lint before tests" → "Run tests before lint").
    let swapped = changed == 0 && swapped_around(&a, &b);
    if reversed || opposed || swapped {
        return true;
    }
    let shorter = a.len().min(b.len()).max(1);
    let plain = changed - named(&dropped) - named(&added);
    // A setting given another value keeps its name: `NODE_VERSION=18` → `NODE_VERSION=20`.
    let renamed = dropped
        .iter()
        .filter(|d| added.iter().any(|a| same_setting(d.text, a.text)))
        .count();
    // A short statement with only its values changed keeps every other word, but not 70% of
    // its words ("Use Node 18" → "Use Node 20"): as many words of it in common (a setting's
    // name among them) as values changed on either side will do there.
    let values = |words: &[Word]| words.iter().filter(|w| w.kind != Kind::Unit).count();
    let only_values = plain == 0 && same_content + renamed >= values(&dropped).max(values(&added));
    // Or condensed around a value replaced (or expanded): every word one of them adds is a
    // value or a name that stands for one the other named, whatever else the other said
    // ("When you're ready, send your pull request to the **dev** branch" → "Send your pull
    // request to the main branch").
    let only_named = |these: &[Word], those: &[Word]| {
        !these.is_empty() && named(these) == these.len() && named(those) > 0
    };
    let condensed = (only_named(&added, &dropped) || only_named(&dropped, &added))
        && same_content >= CONDENSED_WORDS;
    if (same * 10 < shorter * 7 && !only_values && !condensed) || plain > 6 || changed == 0 {
        return false;
    }
    // A name changed both on its own and inside a changed value: the same rule for another
    // subject ("Run `cargo test -p core` for the core crate"; "Run `cargo test -p cli` for
    // the cli crate"), both true. Not a tool: "Lint with ruff: `ruff check .`" → "Lint with
    // biome: `biome check .`" is the tool and its command changed.
    let subject = |words: &[Word]| {
        words.iter().any(|n| {
            n.kind == Kind::Name
                && words.iter().any(|v| {
                    v.kind == Kind::Value
                        && v.text
                            .to_lowercase()
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|part| part == core(n.text).to_lowercase())
                })
        })
    };
    if subject(&dropped) && subject(&added) {
        return false;
    }
    // A qualifier turned into its complement ("non-Rust" for "Rust") beside other changes:
    // two rules for two cases ("if only non-Rust code changed, run A"; "if Rust code
    // changed, run B"), both true.
    if dropped
        .iter()
        .any(|d| added.iter().any(|a| complements(d.text, a.text)))
    {
        return false;
    }
    let one_side = dropped.is_empty() || added.is_empty();
    // The words that say what kind of value one is ("the `X` variable", "the `--y` flag")
    // change with it when a value is replaced by one of another kind.
    let kinds = dropped
        .iter()
        .chain(&added)
        .filter(|w| {
            w.kind == Kind::Plain && KIND_WORDS.contains(&core(w.text).to_lowercase().as_str())
        })
        .count();
    let replaced = named(&dropped) > 0 && named(&added) > 0 && plain - kinds <= 2;
    // One word for another in the same place: the words around it the same, function words
    // too ("build Puffin" → "build uv"; not "run with `cargo t`" → "run quickly", a value
    // dropped and the statement saying something else of its subject).
    cancel_common(&mut function_dropped, &mut function_added, |d, a| d == a);
    let in_place = function_dropped.is_empty() && function_added.is_empty();
    let one_for_one =
        dropped.len() == 1 && added.len() == 1 && named(&dropped) + named(&added) > 0 && in_place;
    // Flags only added or only dropped, with their arguments ("git commit" → "git commit -a
    // -m \"Update README\"").
    let flags = one_side
        && dropped.iter().chain(&added).any(|w| is_flag(w.text))
        && dropped
            .iter()
            .chain(&added)
            .all(|w| is_flag(w.text) || w.kind == Kind::Value);
    let list = one_side && as_list && listed;
    // What one statement named, said by the other to be on its way out ("Use the `v1` API" →
    // "The `v1` API is deprecated; use `v2`"), or back.
    let retired = one_side
        && dropped
            .iter()
            .chain(&added)
            .any(|w| RETIRING.contains(&core(w.text)));
    replaced || one_for_one || flags || list || retired || condensed
}

/// Whether a comma stands at either end of `tokens[range]` in `text`, the text they were cut
/// from: a comma written onto a value is no token ("(human, CodeRabbit, Qodo)").
fn commas_around(text: &str, tokens: &[&str], range: &Range<usize>) -> bool {
    let offset = |token: &str| {
        let at = (token.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        (at + token.len() <= text.len()).then_some(at)
    };
    // The text between `tokens[i - 1]` and `tokens[i]` (from the start, or to the end).
    let gap = |i: usize| -> Option<&str> {
        let start = match i.checked_sub(1) {
            Some(j) => offset(tokens[j])? + tokens[j].len(),
            None => 0,
        };
        let end = match tokens.get(i) {
            Some(t) => offset(t)?,
            None => text.len(),
        };
        text.get(start..end)
    };
    [range.start, range.end]
        .into_iter()
        .any(|i| gap(i).is_some_and(|g| g.contains(',')))
}

/// A word that joins the items of a list: `and`, `or`, and as terse notes write them, `plus`,
/// `+`, `&` and a dot between ("direct answer + structured output", "resume · export").
fn is_conjunction(token: &str) -> bool {
    matches!(
        token.to_lowercase().as_str(),
        "and" | "or" | "plus" | "+" | "&" | "·" | "•"
    )
}

/// A comparison's sign, which bounds a range of versions ("≥3.10, <3.14").
fn is_bound(token: &str) -> bool {
    matches!(token, "<" | ">" | "<=" | ">=" | "≤" | "≥")
}

/// Where a run of `keys` dropped or added can sit in a diff with the same result: `range`,
/// and each place it slides to while the key leaving it is the key entering it. Dropping
/// "linter and the" from "run the linter and the tests" is dropping "the linter and".
fn slides(keys: &[String], range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = range.clone();
    while start.start > 0 && !start.is_empty() && keys[start.start - 1] == keys[start.end - 1] {
        start = start.start - 1..start.end - 1;
    }
    std::iter::successors(Some(start), move |r| {
        (!r.is_empty() && r.end < keys.len() && keys[r.start] == keys[r.end])
            .then(|| r.start + 1..r.end + 1)
    })
}

/// The fewest content words a statement condensed around a value replaced keeps of the old
/// one ([`changed_value`]).
pub(super) const CONDENSED_WORDS: usize = 4;

/// True when `new` states a newer state of the fact `old` states: the same statement with a
/// value changed ([`changed_value`]), or the same entry of a list with what it says of its
/// key changed ([`same_entry`]). What the write path and `consolidate` supersede.
///
/// ```
/// use oro_mem_text::updates;
///
/// assert!(updates("Deploys use pnpm 8", "Deploys use pnpm 9"));
/// assert!(updates("`lint.yml`: runs ruff", "`lint.yml`: runs ruff and mypy on every push"));
/// assert!(!updates("Run the tests before you commit", "Always run the tests before committing"));
/// ```
pub fn updates(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    (changed_value(old, new)
        || same_entry(old, new)
        || says_changed(old, new)
        || extends(old, new)
        || same_passage(old, new))
        && !says_beside(old, new)
        && !another_subject_after_a_lead_in(old, new)
        && !replaces_another(old, new)
}

/// True when `new` names what it is said instead of (`not X`, `instead of X`, `rather than
/// X`), and each such value shares no part with a value or word of `old`: `new` replaces
/// something else, and what `old` says holds beside it ("Use `lru_cache` from `_utils`" and
/// "Use `signature_without_evaluating_annotations` from `_utils` for it, not
/// `inspect.signature`"). A value of `old` in another form is `old`'s ("Use `npm install`"
/// and "Use `pnpm install`, not `npm i`"), and so is a value of one character ("Deploys use
/// pnpm 10, not 9" for "Deploys use pnpm 9").
pub(super) fn replaces_another(old: &str, new: &str) -> bool {
    // The parts of a text two characters long or more; a value with none (`9`, `-v`) is
    // its parts of one character.
    let parts = |text: &str, shortest: usize| -> BTreeSet<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|p| p.chars().count() >= shortest)
            .map(str::to_lowercase)
            .collect()
    };
    let value_parts = |value: &str| {
        let long = parts(value, 2);
        if long.is_empty() {
            parts(value, 1)
        } else {
            long
        }
    };
    let b = tokens(new);
    let kb = keys(&b);
    let instead_of = |i: usize| i > 0 && rejecting(&kb, i - 1).is_some();
    let replaced: Vec<usize> = (0..b.len())
        .filter(|&i| is_value_token(b[i]) && instead_of(i))
        .collect();
    if replaced.is_empty() {
        return false;
    }
    let said = parts(old, 1);
    replaced
        .iter()
        .all(|&i| value_parts(b[i]).is_disjoint(&said))
}

/// The keys of `tokens` ([`keys`]) with each Markdown link, from its `[` to the word that
/// holds `](`, as one key, and the pages the links name, in order.
pub(super) fn links_apart(tokens: &[&str]) -> (Vec<String>, Vec<String>) {
    let all = keys(tokens);
    let (mut out, mut pages) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < tokens.len() {
        let link = (tokens[i] == "[")
            .then(|| (i + 1..tokens.len()).find(|&j| tokens[j] == "[" || tokens[j].contains("](")))
            .flatten()
            .filter(|&j| tokens[j] != "[");
        match link.and_then(|j| Some((j, link_target(tokens[j], page)?))) {
            Some((j, target)) => {
                out.push("[link]".to_string());
                pages.push(target.to_string());
                i = j + 1;
            }
            None => {
                out.push(all[i].clone());
                i += 1;
            }
        }
    }
    (out, pages)
}

/// The fewest content words outside their links two statements [`links_replaced`] reads
/// share.
pub(super) const LINKED_WORDS: usize = 3;

/// True when `old` and `new` are word for word the same outside their links, three content
/// words or more, and a link names another page, whatever its text: "try checking the [good
/// first issue label](…/issues?q=…good+first+issue…)" → "the [Beginner
/// label](…/issues?q=…Beginner)". Where one is read, moved (same page, [`same_page`]) or
/// not, is what a statement that points at it says.
pub(super) fn links_replaced(old: &str, new: &str) -> bool {
    let ((ka, pa), (kb, pb)) = (links_apart(&tokens(old)), links_apart(&tokens(new)));
    ka == kb
        && pa.len() == pb.len()
        && ka
            .iter()
            .filter(|k| is_content(k) && *k != "[link]")
            .count()
            >= LINKED_WORDS
        && pa.iter().zip(&pb).any(|(x, y)| !same_page(x, y))
}

/// Where the words that say what follows them is not chosen (`not`, `instead of`, `rather
/// than`) start, when they end at `keys[i]`.
pub(super) fn rejecting(keys: &[String], i: usize) -> Option<usize> {
    match (i.checked_sub(1).map(|j| keys[j].as_str()), keys[i].as_str()) {
        (_, "not") => Some(i),
        (Some("instead"), "of") | (Some("rather"), "than") => Some(i - 1),
        _ => None,
    }
}

/// Where `keys` name something a statement says not to choose: where the words that say so
/// start ([`rejecting`]) and the content word after them ("… the dev branch, not master").
pub(super) fn rejection(keys: &[String]) -> Option<(usize, usize)> {
    (0..keys.len()).find_map(|i| {
        let start = rejecting(keys, i)?;
        (i + 1..keys.len())
            .find(|&j| is_content(&keys[j]))
            .filter(|&j| j == i + 1 || !keys[i + 1..j].iter().any(|k| is_content(k)))
            .map(|j| (start, j))
    })
}

/// True when `new` chooses what `old` said not to: `old` without its "not X" (to the end of
/// its clause) and `new` differ in one place, where `new` names X for what `old` chose, and
/// `new` rejects nothing ("Changes should be based on the dev branch, not master as master
/// is released code" → "Changes should be based on the master branch"; "Use pnpm, not npm" →
/// "Use npm"). A choice reversed, whatever kind of word names it.
pub(super) fn chooses_the_rejected(old: &str, new: &str) -> bool {
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    let Some((start, x)) = rejection(&ka) else {
        return false;
    };
    if rejection(&kb).is_some() {
        return false;
    }
    // The clause ends where a sentence does, or at `;`.
    let end = (x..a.len())
        .find(|&j| a[j] == ";" || a[j].ends_with(['.', ';', '!', '?']))
        .map_or(a.len(), |j| j + 1);
    let start = if start > 0 && a[start - 1] == "," {
        start - 1
    } else {
        start
    };
    let rejected = &ka[x];
    let kept: Vec<&String> = ka[..start].iter().chain(&ka[end..]).collect();
    let kb: Vec<&String> = kb.iter().collect();
    let mut hunks = similar::capture_diff_slices(similar::Algorithm::Myers, &kept, &kb)
        .into_iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal);
    let (Some(op), None) = (hunks.next(), hunks.next()) else {
        return false;
    };
    let content = |keys: &[&String]| -> Vec<String> {
        keys.iter()
            .filter(|k| is_content(k))
            .map(|k| (*k).clone())
            .collect()
    };
    let (chose, chooses) = (content(&kept[op.old_range()]), content(&kb[op.new_range()]));
    !chose.is_empty() && !chose.contains(rejected) && chooses == [rejected.clone()]
}
