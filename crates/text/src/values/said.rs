//! A change said in words ("instead of", "from … to", "no longer"), and two facts said to hold
//! together.

use std::collections::BTreeSet;

use super::kinds::{kind, Kind, RETIRING, TOOL_PLACES};
use super::relations::is_typo_word;
use super::same::kept_most;
use super::stated::two_statements;
use super::tokens::{core, is_content, is_value_token, keys, listed, tokens};
use crate::Stemmer;

/// `key` says that what a statement states holds beside something else: `also`, `too`.
pub(super) fn says_also(key: &str) -> bool {
    matches!(key, "also" | "too")
}

/// True when one of `a` and `b` says with `also` or `too` that what it states holds beside
/// what the other states, and names a value or a name the other does not: "Deploys happen
/// on Tuesdays" and "Deploys now also happen on Fridays", "Logs go to stdout" and "Logs now
/// also go to Sentry". Both hold: no update, and no duplicate either. With nothing else
/// named ("Tests also run in Docker") it repeats the other.
///
/// ```
/// use oro_mem_text::says_beside;
///
/// assert!(says_beside("Deploys happen on Tuesdays", "Deploys now also happen on Fridays"));
/// assert!(!says_beside("Tests run in Docker", "Tests also run in Docker"));
/// assert!(!says_beside("Deploys happen on Tuesdays", "Deploys happen on Fridays"));
/// // Chat: nothing named.
/// assert!(!says_beside("Thanks! Talk to you later!", "Me too. Talk to you later!"));
/// ```
pub fn says_beside(a: &str, b: &str) -> bool {
    let Some((a, b)) = two_statements(a, b) else {
        return false;
    };
    let (a, b) = (&*a, &*b);
    let beside = |k: &[String]| k.iter().any(|k| says_also(k));
    let (ta, tb) = (tokens(a), tokens(b));
    let (ka, kb) = (keys(&ta), keys(&tb));
    // A value or a name of one that the other does not name: what holds beside.
    let names_another = |t: &[&str], k: &[String], other: &[String]| {
        (0..t.len())
            .any(|i| is_content(t[i]) && kind(t, i) != Kind::Plain && !other.contains(&k[i]))
    };
    beside(&ka) != beside(&kb) && (names_another(&ta, &ka, &kb) || names_another(&tb, &kb, &ka))
}

/// Words with which a statement says that a value changed: "The docs **moved** to `site/`",
/// "Max upload size was **raised** to 25 MB", "Auth tokens **now** expire after 15 minutes".
/// Sorted.
pub(super) const CHANGE_WORDS: &[&str] = &[
    "actually",
    "bumped",
    "changed",
    "correction",
    "decreased",
    "downgraded",
    "increased",
    "lowered",
    "migrated",
    "moved",
    "now",
    "raised",
    "reduced",
    "renamed",
    "replace",
    "replaced",
    "switch",
    "switched",
    "upgraded",
];

/// The most words [`replacing_words`] reads as what replaces another.
pub(super) const REPLACING_WORDS: usize = 3;

/// The positions in `tokens` (their keys `keys`) of the words said in place of another: the
/// content words, up to three, right before `instead of`, `rather than` or `, not` ("use
/// **ruff format** instead of black", "**vite**, not webpack"), or right after the `to` of
/// `from … to` ("from yarn to **pnpm**"). A function word, a word that leads to a tool
/// (`use`, `with`: [`TOOL_PLACES`]) or punctuation ends them.
pub(super) fn replacing_words(tokens: &[&str], keys: &[String]) -> BTreeSet<usize> {
    let key = |i: usize| keys.get(i).map(String::as_str);
    let word = |i: usize| {
        is_content(tokens[i]) && core(tokens[i]) == tokens[i] && !listed(TOOL_PLACES, tokens[i])
    };
    let mut out = BTreeSet::new();
    for i in 0..keys.len() {
        let ends_before = match (key(i), key(i + 1)) {
            (Some("instead"), Some("of")) | (Some("rather"), Some("than")) => Some(i),
            (Some(","), Some("not")) => Some(i),
            _ => None,
        };
        if let Some(end) = ends_before {
            out.extend(
                (0..end)
                    .rev()
                    .take_while(|&j| word(j))
                    .take(REPLACING_WORDS),
            );
        }
        if key(i) == Some("from") {
            // "from Y to X": Y of a few words, then what replaces it.
            if let Some(to) =
                (i + 2..(i + 2 + REPLACING_WORDS).min(keys.len())).find(|&j| key(j) == Some("to"))
            {
                out.extend(
                    (to + 1..keys.len())
                        .take_while(|&j| word(j))
                        .take(REPLACING_WORDS),
                );
            }
        }
    }
    out
}

/// The positions in `keys` of the words a statement names as what was replaced:
///
/// - the content words, up to three, past an article or an opening quote, after `not` said
///   of a thing (after a content word or punctuation), `instead of`, `rather than`, `no
///   longer`, `stop using`, `(was`, `(formerly` or `(previously`, between `from` and `to`, or
///   between `replace` and `with` ("Deploys use pnpm 9, not **pnpm 8**", "Unit tests run on
///   Vitest (was **Jest**)", "moved from **pnpm 8** to pnpm 9", "Replace **Jest** with
///   Vitest");
/// - the content words, up to three, before `anymore` ("Don't **use npm** anymore");
/// - the word before `is no longer`, `isn't … anymore` or `was replaced by` ("**`npm test`**
///   is no longer used", "**Jest** was replaced by Vitest");
/// - unless `said_of_a_thing`, also the word right after a lone `from` or after `not` said
///   of an action ("from **now** on", "do not **use** it").
pub(super) fn replaced_words(keys: &[String], said_of_a_thing: bool) -> BTreeSet<usize> {
    let key = |i: Option<usize>| i.and_then(|i| keys.get(i)).map(String::as_str);
    // Past an article and the quote that opens a quoted value ("not the staging one",
    // "(formerly \"Contribution Proposal\")").
    let run = |from: usize| {
        let from = (from..keys.len())
            .find(|&j| !matches!(keys[j].as_str(), "\"" | "\u{201c}" | "the" | "a" | "an"))
            .unwrap_or(keys.len());
        (from..keys.len())
            .take_while(|&j| is_content(&keys[j]))
            .take(REPLACING_WORDS)
    };
    let mut out = BTreeSet::new();
    for i in 0..keys.len() {
        let (before, at) = (key(i.checked_sub(1)), key(Some(i)));
        // A value's trailing comma is no token ("pnpm 9, not pnpm 8"): `not` after a
        // content word says what was replaced, after a function word ("do not") what not to do.
        let after_a_thing =
            before.is_some_and(|w| !w.chars().any(char::is_alphanumeric) || is_content(w));
        match (before, at) {
            (_, Some("not")) if after_a_thing => out.extend(run(i + 1)),
            (Some("instead"), Some("of"))
            | (Some("rather"), Some("than"))
            | (Some("("), Some("was" | "formerly" | "previously")) => out.extend(run(i + 1)),
            (Some("no"), Some("longer")) => {
                out.extend(run(i + 1));
                if let (Some("is" | "are"), Some(named)) = (key(i.checked_sub(2)), i.checked_sub(3))
                {
                    if is_content(&keys[named]) {
                        out.insert(named);
                    }
                }
            }
            (_, Some("from")) => {
                let words: Vec<usize> = run(i + 1).collect();
                match words.last() {
                    Some(&last) if key(Some(last + 1)) == Some("to") => out.extend(words),
                    _ if said_of_a_thing => {}
                    _ => out.extend(words.first()),
                }
            }
            // "Replace **Jest** with Vitest", "**Jest** was replaced by Vitest".
            (_, Some("replace" | "replaces" | "replaced")) => {
                let words: Vec<usize> = run(i + 1).collect();
                if let Some(&last) = words.last() {
                    if matches!(key(Some(last + 1)), Some("with" | "by")) {
                        out.extend(words);
                    }
                }
                if matches!(before, Some("was" | "were" | "is" | "are" | "been"))
                    && matches!(key(Some(i + 1)), Some("with" | "by"))
                {
                    out.extend(i.checked_sub(2).filter(|&j| is_content(&keys[j])));
                }
            }
            // "Stop using **`black`**".
            (Some("stop"), Some("using" | "use")) => out.extend(run(i + 1)),
            // "Don't **use `black`** anymore", "**`black`** isn't **used** anymore".
            (_, Some("anymore")) => {
                let words: Vec<usize> = (0..i)
                    .rev()
                    .take_while(|&j| is_content(&keys[j]) && !keys[j].ends_with("n't"))
                    .take(REPLACING_WORDS)
                    .collect();
                let before = words.last().map_or(i, |&j| j);
                if let (Some("isn't" | "aren't"), Some(named)) =
                    (key(before.checked_sub(1)), before.checked_sub(2))
                {
                    if is_content(&keys[named]) {
                        out.insert(named);
                    }
                }
                out.extend(words);
            }
            (_, Some("not")) if !said_of_a_thing => out.extend(run(i + 1).take(1)),
            _ => {}
        }
    }
    out
}

/// The word `keys[i]` says that a value changed: a word of [`CHANGE_WORDS`], `formerly`,
/// `previously`, `no longer`, `anymore`, or the `stop` of `stop using`.
pub(super) fn marks_a_change(keys: &[String], i: usize) -> bool {
    listed(CHANGE_WORDS, &keys[i])
        || matches!(keys[i].as_str(), "formerly" | "previously")
        || (keys[i] == "longer" && i > 0 && keys[i - 1] == "no")
        || (keys[i] == "no" && keys.get(i + 1).is_some_and(|k| k == "longer"))
        || (keys[i] == "stop" && keys.get(i + 1).is_some_and(|k| k == "using" || k == "use"))
        || keys[i] == "anymore"
}

/// `word` says that a value changed ([`CHANGE_WORDS`]), or names the one replaced
/// ("instead of", "rather than").
pub(super) fn says_a_change(word: &str) -> bool {
    listed(CHANGE_WORDS, word)
        || ["instead", "rather"]
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w))
}

/// How near a value a word that retires it stands ([`retires`]): "`crush.json` is still
/// supported but is deprecated".
pub(super) const RETIRED_WITHIN: usize = 6;

/// True when the new statement (`b`, its keys `kb`) says of a value that the old one (its
/// keys `ka`) named that it is on its way out ([`RETIRING`]: deprecated, removed, …), a word
/// the old one did not say, within a few words of it. [`says_changed`] reads it of a
/// statement that keeps most of the old one ([`kept_most`]): a project's name beside
/// "deprecated" in another of its rules says nothing of the first.
pub(super) fn retires(ka: &[String], b: &[&str], kb: &[String]) -> bool {
    (0..b.len()).any(|i| {
        RETIRING.contains(&kb[i].as_str())
            && !ka.contains(&kb[i])
            && (i.saturating_sub(RETIRED_WITHIN)..(i + RETIRED_WITHIN + 1).min(b.len()))
                .any(|j| is_value_token(b[j]) && ka.contains(&kb[j]))
    })
}

/// True when `new` says in so many words that a value of `old` changed: with a word that says
/// so and `old` does not ("moved", "switched", "raised", "upgraded", "now", "formerly", "no
/// longer", …), or naming a value or a name of `old`'s as what it replaces ("from Jest to
/// Vitest", "`httpx` instead of `requests`", "rather than", "pnpm 9, not pnpm 8", "(was Jest)",
/// "`black` is no longer used", "Replace Jest with Vitest", "Stop using `black`", "Don't use
/// npm anymore"), and nothing else as replaced ("E2E tests run on Playwright (formerly
/// Cypress)" says nothing of Jest). And `new` says what `old` says but its value: a word of
/// `old` is not in `new` (or only as the one replaced), at most two are not in it at all, they
/// share a word (or the value replaced), and what `new` adds is values and names (a word that
/// leads to a tool, `use` or `with`, aside), or one word for one ("staging" → "production", not
/// a typo fixed), and not the subject it starts with replaced with another word ("Unit tests
/// use Jest" → "E2E tests now use Playwright"). "also" or "too" add a fact beside. Such a
/// statement shares too few words with the old one for [`changed_value`](super::changed_value),
/// or still names the old value. Or `new`, keeping most of `old`'s words, says of a value `old`
/// named that it is deprecated, removed, obsolete or unsupported, within a few words of it,
/// which `old` did not say ("`crush.json` is still supported but is deprecated").
///
/// ```
/// use oro_mem_text::says_changed;
///
/// assert!(says_changed("We use Jest for tests", "We switched from Jest to Vitest for tests"));
/// assert!(says_changed("We use Jest", "We switched from Jest to Vitest"));
/// assert!(says_changed("The docs live in `docs/`", "The docs moved to `site/`"));
/// assert!(says_changed("Max upload size is 10 MB", "Max upload size was raised to 25 MB"));
/// assert!(says_changed(
///     "Run `make test` before pushing",
///     "Run `just test` before pushing instead of `make test`",
/// ));
/// assert!(says_changed("Deploys use pnpm 8", "Deploys now use pnpm 9, not pnpm 8"));
/// assert!(says_changed("Unit tests run on Jest", "Unit tests run on Vitest (was Jest)"));
/// // Nothing of the old statement changed, or nothing said of it.
/// assert!(!says_changed("Deploys use pnpm 8", "Deploys now use pnpm 8"));
/// assert!(!says_changed("The docs live in `docs/`", "The API moved to `v2/`"));
/// assert!(!says_changed("Tests run with pytest", "Tests now also run on Windows"));
/// ```
pub fn says_changed(old: &str, new: &str) -> bool {
    let Some((old, new)) = two_statements(old, new) else {
        return false;
    };
    let (old, new) = (&*old, &*new);
    let (a, b) = (tokens(old), tokens(new));
    let (ka, kb) = (keys(&a), keys(&b));
    if retires(&ka, &b, &kb) && kept_most(old, new) {
        return true;
    }
    // The words `new` says in place of the one it replaces ("**vite** instead of webpack",
    // "from yarn to **pnpm**") name what they say, as that one does, in lower case too.
    let replacing = replacing_words(&b, &kb);
    let (replaced_a, replaced_b) = (replaced_words(&ka, false), replaced_words(&kb, false));
    let named = |t: &[&str], i: usize| kind(t, i) != Kind::Plain;
    // A value or a name of `old`'s (not named as replaced there too) that `new` names as
    // replaced; any word of `old`'s, when `new` says what replaces it.
    let named_replaced = replaced_b.iter().any(|&i| {
        is_content(b[i])
            && (named(&b, i) || !replacing.is_empty())
            && (0..a.len()).any(|j| ka[j] == kb[i] && !replaced_a.contains(&j))
    });
    // What `new` names as replaced is no word of `old`'s: another thing changed ("E2E tests
    // run on Playwright (formerly Cypress)" says nothing of "Unit tests run on Jest").
    let said_replaced = replaced_words(&kb, true);
    if !said_replaced.is_empty()
        && !said_replaced
            .iter()
            .any(|&i| (0..a.len()).any(|j| ka[j] == kb[i]))
    {
        return false;
    }
    // A word that says a change, which `old` did not say ("instead of" and "rather than"
    // say it only of what `old` named: "snapshot tests rather than unit tests" is a rule).
    let marked = (0..b.len()).any(|i| marks_a_change(&kb, i) && !ka.contains(&kb[i]));
    // "Tests now also run on Windows" adds a fact beside the old one.
    let beside = kb.iter().any(|k| says_also(k));
    if !(marked || named_replaced) || beside {
        return false;
    }
    let stemmer = Stemmer::english();
    let stem = |k: &str| stemmer.stem(k).into_owned();
    let words = |t: &[&str], k: &[String], replaced: &BTreeSet<usize>| -> Vec<(usize, String)> {
        (0..t.len())
            .filter(|&i| {
                // A negation ("don't", "isn't") says how, not what.
                is_content(t[i])
                    && !k[i].ends_with("n't")
                    && !says_a_change(t[i])
                    && !marks_a_change(k, i)
                    && !replaced.contains(&i)
            })
            .map(|i| (i, stem(&k[i])))
            .collect()
    };
    let (old_words, new_words) = (words(&a, &ka, &replaced_a), words(&b, &kb, &replaced_b));
    let in_old: BTreeSet<&str> = old_words.iter().map(|(_, w)| w.as_str()).collect();
    let in_new: BTreeSet<&str> = new_words.iter().map(|(_, w)| w.as_str()).collect();
    let old_only: Vec<usize> = old_words
        .iter()
        .filter(|(_, w)| !in_new.contains(w.as_str()))
        .map(|&(i, _)| i)
        .collect();
    let new_only: Vec<usize> = new_words
        .iter()
        .filter(|(_, w)| !in_old.contains(w.as_str()))
        .map(|&(i, _)| i)
        .collect();
    // `new` says all `old` said but its value: at most two words of it are not in `new` at
    // all ("live in `docs/`" for "moved to `site/`"; "uses … for chat" for "moved from Slack").
    let mentioned: BTreeSet<String> = (0..b.len())
        .filter(|&i| is_content(b[i]))
        .map(|i| stem(&kb[i]))
        .collect();
    let left_out = old_words
        .iter()
        .filter(|(_, w)| !mentioned.contains(w))
        .count();
    let gone = (!old_only.is_empty() || named_replaced) && left_out <= 2;
    // A word in common, or the old value named as replaced ("We use Jest" → "We switched
    // from Jest to Vitest").
    let shared = new_words.len() > new_only.len() || named_replaced;
    // Values and names for it alone, or one word for another ("staging" for "production"),
    // not the same word with a typo fixed.
    // Words said in place of another count as values when `new` keeps all of `old` but one
    // word ("The build uses vite instead of webpack"; not "The API returns JSON" → "The CLI
    // prints tables instead of JSON", another subject).
    // A word that leads to a tool ("Use `pnpm test` rather than `npm test` to run tests" for
    // "Run tests with `npm test`") says nothing of its own.
    let new_only: Vec<usize> = new_only
        .into_iter()
        .filter(|&i| !listed(TOOL_PLACES, b[i]))
        .collect();
    let only_values = !new_only.is_empty()
        && new_only
            .iter()
            .all(|&i| named(&b, i) || (replacing.contains(&i) && left_out <= 1));
    let one_for_one = match (&old_only[..], &new_only[..]) {
        (&[o], &[n]) => !is_typo_word(core(a[o]), core(b[n]), false, &stemmer),
        _ => false,
    };
    // The first word of each replaced, and another of `old`'s gone with it: a fact of
    // another subject ("Unit tests use Jest" → "E2E tests now use Playwright"), not one
    // word of a fact ("Alice owns the billing service" → "Bob now owns …").
    let subject_too =
        old_only.len() >= 2 && old_only.first() == Some(&0) && new_only.first() == Some(&0);
    gone && shared && (only_values || one_for_one) && !subject_too
}
