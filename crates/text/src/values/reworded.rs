//! The same rule in other words: a phrasing, an abbreviation, a word written another way.

use super::kinds::{kind, words, Kind, Word};
use super::relations::{hyphenated_word, is_opposite, is_typo, reverses};
use super::said::{replaced_words, says_a_change};
use super::stated::two_statements;
use super::tokens::{core, is_content, keys, tokens};
use crate::Stemmer;

/// True when `b` is `a` with nothing changed but typos fixed, words written short or long (a
/// short list of common ones: "Install deps with pnpm" → "Install dependencies with pnpm",
/// "Review the PR" → "Review the pull request") and a rule worded another way ("Do not" for
/// "Never", "Avoid" for "Don't use", "Favor" for "Prefer", "Always" or "Make sure to" added
/// or dropped), and something so changed; or with only its formatting or a letter's case
/// changed (white space, emphasis around it, a note's label, its full stop: "Note: the app
/// listens on 0.0.0.0."). A duplicate however low the two texts' similarity, which such
/// changes lower most in a short statement.
///
/// ```
/// use oro_mem_text::rewords;
///
/// assert!(rewords("Install deps with pnpm", "Install dependencies with pnpm"));
/// assert!(rewords("Synchronize with the offical repository", "Synchronize with the official repository"));
/// assert!(!rewords("Install deps with pnpm", "Install deps with pnpm"));
/// assert!(!rewords("Install deps with pnpm", "Install deps with yarn"));
/// assert!(rewords("The app listens on 0.0.0.0", "**Note:** the app listens on  0.0.0.0."));
/// // A rule worded another way.
/// assert!(rewords("Do not commit secrets", "Never commit secrets"));
/// assert!(rewords("Don't use global state", "Avoid global state"));
/// assert!(!rewords("Never commit lockfiles", "Always commit lockfiles"));
/// ```
pub fn rewords(a: &str, b: &str) -> bool {
    let Some((stated_a, stated_b)) = two_statements(a, b) else {
        return a != b;
    };
    let (a, b) = (&*stated_a, &*stated_b);
    let (a, b) = (tokens(a), tokens(b));
    let (ka, kb) = (keys(&a), keys(&b));
    let stemmer = Stemmer::english();
    let mut changed = false;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let (gone, came) = (words(&a, old_range.clone()), words(&b, new_range.clone()));
        if gone.is_empty() && came.is_empty() {
            // Punctuation or a function word: "the" for "a" rewords too, but it is no
            // sign of a rewording of its own.
            continue;
        }
        // A word with a hyphen is a value (`app-server`), but in prose it is a word written
        // one way: "hard-code" is "hardcode" ([`phrasing`] drops the hyphen).
        let plain = |w: &[Word]| {
            w.iter().all(|w| {
                w.kind == Kind::Plain || (w.kind == Kind::Value && hyphenated_word(w.text))
            })
        };
        let phrased = plain(&gone)
            && plain(&came)
            && phrasing(&ka[old_range], &stemmer) == phrasing(&kb[new_range], &stemmer);
        if !phrased && !same_words(&gone, &came, &stemmer) {
            return false;
        }
        changed = true;
    }
    changed
}

/// Ways of wording a rule that say the same, each with the word it is read as, or none when
/// it only stresses the rule (an imperative says as much): "Do not commit secrets" and
/// "Never commit secrets", "Don't use global state" and "Avoid global state", "Make sure to
/// run `cargo fmt`", "Always run `cargo fmt`" and "Run `cargo fmt`", "Prefer" and "Favor",
/// "instead of" and "rather than". Sorted. A negation not listed here is read as `never`
/// too.
pub(super) const PHRASINGS: &[(&[&str], Option<&str>)] = &[
    (&["always"], None),
    (&["anymore"], None),
    (&["avoid"], Some("never")),
    (&["be", "sure", "to"], None),
    (&["considered"], None),
    (&["ensure"], None),
    (&["ensure", "that"], None),
    (&["favor"], Some("prefer")),
    (&["favour"], Some("prefer")),
    (&["instead", "of"], Some("instead")),
    (&["make", "sure"], None),
    (&["make", "sure", "that"], None),
    (&["make", "sure", "to"], None),
    (&["no", "longer"], Some("never")),
    (&["now"], None),
    (&["officially"], None),
    (&["rather", "than"], Some("instead")),
    (&["remember", "to"], None),
    (&["still"], None),
];

/// How a changed part of a rule (its words, [`keys`]) reads once worded one way
/// ([`PHRASINGS`]): its content words, negations as `never` (one for a run of them), `use`
/// after one dropped ("never use X" is "avoid X"), a word's hyphens dropped (`hard-code`,
/// `hardcode`), each word stemmed.
pub(super) fn phrasing(keys: &[String], stemmer: &Stemmer) -> Vec<String> {
    let keys: Vec<String> = keys.iter().map(|k| k.replace('-', "")).collect();
    let mut out: Vec<String> = Vec::new();
    let mut rest = &keys[..];
    while let Some(first) = rest.first() {
        let phrase = PHRASINGS
            .iter()
            .filter(|(words, _)| {
                rest.len() >= words.len() && rest.iter().zip(*words).all(|(k, w)| k == w)
            })
            .max_by_key(|(words, _)| words.len());
        let (word, len) = match phrase {
            Some((words, word)) => (word.map(str::to_string), words.len()),
            None if crate::words::is_negation(first) => (Some("never".to_string()), 1),
            None if is_content(first) => (Some(first.clone()), 1),
            None => (None, 1),
        };
        rest = &rest[len..];
        let Some(word) = word else { continue };
        let after_never = out.last().is_some_and(|w| w == "never");
        if after_never && (word == "never" || word == "use" || word == "using") {
            continue;
        }
        out.push(stemmer.stem(&word).into_owned());
    }
    out
}

/// Common words written short, each with what it stands for, sorted: in prose (not in a
/// value or a name) one says what the other does.
pub(super) const ABBREVIATIONS: &[(&str, &str)] = &[
    ("app", "application"),
    ("apps", "applications"),
    ("arg", "argument"),
    ("args", "arguments"),
    ("auth", "authentication"),
    ("config", "configuration"),
    ("configs", "configurations"),
    ("db", "database"),
    ("dbs", "databases"),
    ("dep", "dependency"),
    ("deps", "dependencies"),
    ("dir", "directory"),
    ("dirs", "directories"),
    ("doc", "documentation"),
    ("docs", "documentation"),
    ("env", "environment"),
    ("envs", "environments"),
    ("func", "function"),
    ("impl", "implementation"),
    ("info", "information"),
    ("lib", "library"),
    ("libs", "libraries"),
    ("msg", "message"),
    ("msgs", "messages"),
    ("param", "parameter"),
    ("params", "parameters"),
    ("pkg", "package"),
    ("pkgs", "packages"),
    ("pr", "pull request"),
    ("prs", "pull requests"),
    ("repo", "repository"),
    ("repos", "repositories"),
    ("spec", "specification"),
    ("specs", "specifications"),
    ("var", "variable"),
    ("vars", "variables"),
];

/// The words of a changed part, `gone` and then `came`, say the same: each a typo fixed
/// ([`is_typo`], as in a value when one is), or plain words written short for long or the
/// other way round ([`ABBREVIATIONS`]).
pub(super) fn same_words(gone: &[Word], came: &[Word], stemmer: &Stemmer) -> bool {
    if gone.is_empty() && came.is_empty() {
        return true;
    }
    let typos = gone.len() == came.len()
        && gone.iter().zip(came).all(|(x, y)| {
            let value = x.kind == Kind::Value || y.kind == Kind::Value;
            is_typo(x.text, y.text, value, stemmer)
        });
    let plain = |words: &[Word]| {
        let all = words.iter().all(|w| w.kind == Kind::Plain);
        all.then(|| {
            words
                .iter()
                .map(|w| core(w.text).to_lowercase())
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    let written_short = match (plain(gone), plain(came)) {
        (Some(x), Some(y)) if !x.is_empty() && !y.is_empty() => {
            let pair = |s: &str, l: &str| ABBREVIATIONS.binary_search(&(s, l)).is_ok();
            pair(&x, &y) || pair(&y, &x)
        }
        _ => false,
    };
    typos || written_short
}

/// The words of `text` other than its values and names
/// ([`changed_value`](super::changed_value)'s reading) but for one it names as replaced
/// ("switched from **Jest** to Vitest"), and other than its negations, `always` and the words
/// that have an opposite (what a rule reversed changes) unless nothing else is left: what an
/// older state of the same fact shares with it, whatever changed. As a query it finds that
/// state where the whole text cannot: a changed name or path is a rare word that outweighs
/// every word the two share, and in a store of a few memories, where the words they share are
/// in half of them, so is the word that reverses a rule.
///
/// ```
/// use oro_mem_text::plain_words;
///
/// assert_eq!(plain_words("Unit tests run on Vitest"), "Unit tests run on");
/// assert_eq!(plain_words("Config lives in `src/settings.rs`"), "Config lives in");
/// assert_eq!(plain_words("Always lint, never skip the hooks"), "lint skip the hooks");
/// assert_eq!(plain_words("Always squash merge"), "merge");
/// assert_eq!(plain_words("Always squash"), "squash");
/// assert_eq!(plain_words("Lint the code with ruff"), "Lint the code with");
/// assert_eq!(plain_words("Disable strict mode"), "strict mode");
/// assert_eq!(plain_words("Use Node 20"), "Use");
/// assert_eq!(plain_words("We switched from Jest to Vitest"), "We from Jest to");
/// ```
pub fn plain_words(text: &str) -> String {
    let tokens = tokens(text);
    let keys = keys(&tokens);
    let replaced = replaced_words(&keys, false);
    let plain: Vec<&str> = (0..tokens.len())
        .filter(|&i| {
            let t = tokens[i];
            t.chars().any(char::is_alphanumeric)
                && (kind(&tokens, i) == Kind::Plain || replaced.contains(&i))
        })
        .map(|i| tokens[i])
        .collect();
    // Without the words that reverse a rule, the opposites ("Always squash merge": "merge")
    // and the words that say a value changed ("The docs moved to `site/`": "The docs to"),
    // which the older state does not hold; unless they are all it says of its subject, with
    // the opposites ("Always squash": "squash"); else all of them (a statement of negations
    // alone).
    let without = |leave_out: &dyn Fn(&str) -> bool| -> Option<String> {
        let kept: Vec<&str> = plain
            .iter()
            .copied()
            .filter(|t| !leave_out(core(t)))
            .collect();
        kept.iter().any(|t| is_content(t)).then(|| kept.join(" "))
    };
    without(&|t| reverses(t) || is_opposite(t) || says_a_change(t))
        .or_else(|| without(&|t| reverses(t) || says_a_change(t)))
        .or_else(|| without(&reverses))
        .unwrap_or_else(|| plain.join(" "))
}
