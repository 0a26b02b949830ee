//! What a statement names: its values, identifiers and commands, and whether two statements
//! name the same ones.

use std::collections::BTreeSet;

use super::relations::{is_typo, reverses};
use super::reworded::PHRASINGS;
use super::stated::two_statements;
use super::tokens::{
    code_span, core, is_content, is_flag, is_value, link_target, page, page_as_written, same_page,
    tokens, FUNCTION_WORDS, WRAPPING,
};
use crate::Stemmer;

/// The values `text` names, each as written: every code span (between backticks, its
/// spaces collapsed) whole, every Markdown link's target (the page, without a `#fragment`),
/// and every other word that holds a digit, a path or assignment character (`/ = @ # \`),
/// `::`, an inner `.`, `_` or `-` (versions, file names, identifiers, packages), a
/// lower-case letter followed by a capital (camelCase), or that starts with `-` or `+` (a
/// flag, a toolchain). Plain words are no values: rewording changes them.
///
/// ```
/// use oro_mem_text::values;
///
/// let v = values("Run `cargo test --all` before v2.1; see docs/testing.md");
/// assert!(v.contains("cargo test --all") && v.contains("v2.1") && v.contains("docs/testing.md"));
/// assert!(values("Always run the tests first").is_empty());
/// ```
pub fn values(text: &str) -> BTreeSet<String> {
    values_in(text, page)
}

/// [`values`], each link's target and each URL read as `as_page` reads it: as the page it
/// names ([`page`]) to compare two statements, or as written ([`page_as_written`]) for the
/// identifiers a task names, which leave out what has a scheme.
pub(super) fn values_in(text: &str, as_page: fn(&str) -> &str) -> BTreeSet<String> {
    let quoted = with_bare_command(text);
    let text = quoted.as_deref().unwrap_or(text);
    let mut out = BTreeSet::new();
    let mut prose = String::with_capacity(text.len());
    // Code spans whole: a command is one value, whatever its words.
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some((fence, len)) = code_span(&rest[open..]) else {
            break;
        };
        prose.push_str(&rest[..open]);
        prose.push(' ');
        let inner = open + fence;
        let span = rest[inner..inner + len].split_whitespace();
        let span = span.collect::<Vec<_>>().join(" ");
        if !span.is_empty() {
            out.insert(span);
        }
        rest = &rest[inner + len + fence..];
    }
    prose.push_str(rest);
    for word in prose.split_whitespace() {
        // A Markdown link's target is a value; its text is prose.
        if let Some(target) = link_target(word, as_page) {
            out.insert(target.to_string());
        }
        let word = word.split_once("](").map_or(word, |(text, _)| text);
        let word = word
            .trim_matches(WRAPPING)
            .trim_end_matches(['.', ':'])
            .trim_matches(WRAPPING);
        if word.contains("://") {
            out.insert(as_page(word).to_string());
        } else if is_value(word) {
            out.insert(word.to_string());
        }
    }
    out
}

/// The identifiers `text` names: its [`values`] of four characters or more that hold a letter
/// (a path, a command, a code identifier, a package, a flag; not a number, a short version or
/// a link). What a memory that names one of them exactly is about ([`names`]).
///
/// ```
/// use oro_mem_text::identifiers;
///
/// let ids = identifiers("Fix `cfg.DefaultHost()` in api/client.go for v2 (see https://x.io/1)");
/// assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["api/client.go", "cfg.DefaultHost()"]);
/// ```
pub fn identifiers(text: &str) -> BTreeSet<String> {
    let mut out = values_in(text, page_as_written);
    out.retain(|v| {
        v.chars().count() >= 4 && v.chars().any(|c| c.is_ascii_alphabetic()) && !v.contains("://")
    });
    out
}

/// True when `text` holds `identifier` exactly, not inside a longer word or name: `names("see
/// api/client.go.", "client.go")` (a path's last part, at the end of a sentence), but not
/// `names("use clients", "client")` nor `names("client.go.orig", "client.go")`.
///
/// ```
/// use oro_mem_text::names;
///
/// assert!(names("Run `just bazel-lock-update` after", "just bazel-lock-update"));
/// assert!(!names("MODULE.bazel.lock.bak", "MODULE.bazel.lock"));
/// ```
pub fn names(text: &str, identifier: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !identifier.is_empty()
        && text.match_indices(identifier).any(|(i, _)| {
            let mut after = text[i + identifier.len()..].chars();
            let next = after.next();
            // A name goes on past `.`, `-`, `/` or `:` when a word follows.
            let goes_on =
                word(next) || (matches!(next, Some('.' | '-' | '/' | ':')) && word(after.next()));
            !word(text[..i].chars().next_back()) && !goes_on
        })
}

/// `text` with a command written without backticks put between them, so that it is read as
/// one value, as a code span is: the rest of the text after a leading `[context]` or a
/// colon, when all of it looks like a command line ([`command_line`]). `None` when there is
/// none. Not a whole text that looks like one ([`whole_command`]): a task's title in lower
/// case ("clean up src/store/schema.rs") names its path.
pub(super) fn with_bare_command(text: &str) -> Option<String> {
    if text.contains('`') {
        return None;
    }
    let trimmed = text.trim();
    let start = if trimmed.starts_with('[') {
        trimmed.find(']')? + 1
    } else {
        trimmed.rfind(": ").map(|i| i + 2)?
    };
    let command = command_line(&trimmed[start..])?;
    let at = text.find(command)?;
    Some(format!(
        "{}`{command}`{}",
        &text[..at],
        &text[at + command.len()..]
    ))
}

/// The command `text` is, all of it, without a `$ ` prompt or a shell comment: a line of a
/// shell session ("$ git switch -c my-fix"), or a command line ([`command_line`]) with a
/// flag, a path or an assignment among its arguments ("prek run --last-commit", "tox run -e
/// py310"), not a rule written in lower case ("never use --no-verify", "always pass
/// --locked"), nor a sentence with a number in it ("tests take 10 minutes"). `None` when it
/// is something else.
pub(super) fn whole_command(text: &str) -> Option<&str> {
    let text = text.trim();
    // A statement that is one code span and no more is what the span holds: code, as a
    // prompt says.
    let span = code_span(text).filter(|(fence, len)| 2 * fence + len == text.len());
    let text = span.map_or(text, |(fence, len)| text[fence..fence + len].trim());
    if text.contains('`') || text.starts_with('[') {
        return None;
    }
    let prompted = text.starts_with("$ ") || span.is_some();
    let command = command_line(text)?;
    let words = || command.split_whitespace();
    let ruled = words().any(|w| reverses(w) || PHRASINGS.iter().any(|(phrase, _)| phrase[0] == w));
    let argued = words()
        .skip(1)
        .any(|w| is_flag(w) || core(w).contains(['/', '=']));
    (prompted || (argued && !ruled)).then_some(command)
}

/// The command line `text` is, after a `$ ` prompt if any and without a shell comment
/// (after ` #`): a lower-case program name, after the environment variables set for it if
/// any, then arguments, flags, paths; no function words, no capitals but in flags and
/// variables, at most twelve words. `None` when it does not look like one.
pub(super) fn command_line(text: &str) -> Option<&str> {
    let tail = text.trim_start();
    let tail = tail.strip_prefix("$ ").unwrap_or(tail);
    let command = tail.split(" #").next().unwrap_or(tail).trim_end();
    let words: Vec<&str> = command.split_whitespace().collect();
    // The program, after any environment variables set for it (`RUST_LOG=debug cargo run`).
    let is_assignment = |w: &&str| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
    };
    let at = words.iter().position(|w| !is_assignment(w))?;
    let program = words[at];
    // A script run by its path from here (`./gradlew`, `./x.py`, `../cargo.sh`) is a program,
    // and so is one that opens a subshell (`(cd .. && cargo run) > out`).
    let name = program
        .trim_start_matches('(')
        .trim_start_matches("../")
        .trim_start_matches("./");
    let looks_like_a_command = (1..=12).contains(&words.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        // The program may be a word ("just").
        && words.iter().enumerate().all(|(i, w)| {
            let argument = i == at
                || !FUNCTION_WORDS.contains(&w.to_lowercase().as_str())
                && !w.starts_with(|c: char| c.is_uppercase())
                && !w.ends_with(['.', ',', ';', '?', '!']);
            let operator = matches!(*w, "." | ".." | "&&" | "|" | "--");
            is_flag(w) || is_value(core(w)) || argument || operator
        });
    (looks_like_a_command && (words.len() >= 2 || is_value(core(program)))).then_some(command)
}

/// True when `old` and `new` are each a command and no more ([`whole_command`]), another
/// one, that shares half the words of the shorter or more: the same command with its
/// program, a subcommand, a flag or an argument changed ("git checkout -b my-fix" → "git
/// switch -c my-fix", "prek run --last-commit" → "just hooks run --last-commit", "pip
/// install -U blue" → "pip install -U ruff"). Two commands with little in common may be
/// two steps ("cargo build" and "cargo test --all").
pub(super) fn command_changed(old: &str, new: &str) -> Option<bool> {
    let (a, b) = match (whole_command(old), whole_command(new)) {
        (Some(a), Some(b)) => (a, b),
        // One a command for sure, the other a command line: the same task run another way
        // ("hatch --env docs run serve" → "just docs-serve").
        (Some(a), None) => return same_target(a, command_line(new)?).then_some(true),
        (None, Some(b)) => return same_target(command_line(old)?, b).then_some(true),
        (None, None) => return None,
    };
    let same_task = same_target(a, b);
    let (a, b): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    let shared = a.iter().filter(|w| b.contains(w)).count();
    Some(a != b && (shared * 2 >= a.len().min(b.len()) || same_task))
}

/// True when two command lines are one task run by another program or another way: the
/// words of the shorter one's arguments, cut at `-`, `_`, `.`, `/` and `:` (parts of two
/// letters or more), are the other's, but for one in three at most, and at least one is
/// ("hatch --env docs run serve" and "just docs-serve", "pdm run pytest
/// tests.test_unstructure" and "just test tests/test_unstructure.py"). Two steps share less
/// ("just docs-build --watch" and "just docs-serve": `build` is not `serve`).
pub(super) fn same_target(a: &str, b: &str) -> bool {
    // After the variables set for it (`RUST_LOG=debug cargo run`) and the program.
    let parts = |command: &str| -> BTreeSet<String> {
        command
            .split_whitespace()
            .skip_while(|w| w.contains('='))
            .skip(1)
            .flat_map(|w| w.split(|c: char| !c.is_alphanumeric()))
            .filter(|p| p.chars().count() >= 2)
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    let shared = short.intersection(long).count();
    a != b && shared >= 1 && shared * 3 >= short.len() * 2
}

/// True unless each of `a` and `b` names a value the other does not ([`values`]): a value
/// changed from one to the other (a port, a version, a command, a path), so they are two
/// states of one fact rather than one statement reworded. A value only added or only dropped
/// (a version mentioned in passing, a link) changes nothing, nor does a typo fixed in one (a
/// word of five letters or more with one letter dropped, added, or two swapped); but a code
/// span only one names, whose first word the other does not hold, where that one does not
/// hold every word of the other, is what that one is about: no same values.
///
/// ```
/// use oro_mem_text::same_values;
///
/// assert!(!same_values("The staging API runs on port 8080", "The staging API runs on port 9090"));
/// assert!(same_values("Run `just fmt` before committing", "Always run `just fmt` before a commit"));
/// assert!(same_values("ruff is written in Rust (1.63.0).", "ruff is written in Rust."));
/// // A typo fixed in a value changes no value; a letter for another may (`eslint`, `tslint`).
/// assert!(same_values("First, try `goftumpt -w .`", "First, try `gofumpt -w .`"));
/// assert!(!same_values("Lint with `eslint`", "Lint with `tslint`"));
/// // A command only one names is a mention in passing where that one says all the other
/// // says; where it does not, and the other does not name it, it is what that one is about.
/// assert!(same_values("Run the tests with `pytest`", "Run the tests"));
/// assert!(!same_values("`just test` runs all Biome tests", "Biome runs Prettier comparison tests"));
/// ```
pub fn same_values(a: &str, b: &str) -> bool {
    let Some((a, b)) = two_statements(a, b) else {
        return true;
    };
    let (a, b) = (&*a, &*b);
    let (a_text, b_text) = (a, b);
    let (a, b) = (values(a), values(b));
    let stemmer = Stemmer::english();
    // Each of `x` is one of `y`, or one of `y` with a typo fixed (`goftumpt`, `gofumpt`), or
    // the page one of `y` names, named relative to it.
    let within = |x: &BTreeSet<String>, y: &BTreeSet<String>| {
        x.iter().all(|v| {
            y.contains(v)
                || y.iter()
                    .any(|w| is_typo(v, w, true, &stemmer) || same_page(v, w))
        })
    };
    // A value only one of them names is a mention in passing when that one says all the
    // other says besides ("ruff is written in Rust (1.63.0) today"); where it does not, the
    // value is what it is about ("`just test` runs all Biome tests" against "Biome runs
    // Prettier compatibility tests": the same common words, another statement).
    match (within(&a, &b), within(&b, &a)) {
        (true, true) => true,
        (true, false) => in_passing(b_text, &b, &a, a_text, &stemmer),
        (false, true) => in_passing(a_text, &a, &b, b_text, &stemmer),
        (false, false) => false,
    }
}

/// True when the values `text` names beside those of `other` (`values`, `other_values`) are
/// mentions in passing: `text` says all `other` says besides, or each is no code span, or
/// the other names what it is of (a command's first word: `just` of `just test`).
pub(super) fn in_passing(
    text: &str,
    values: &BTreeSet<String>,
    other_values: &BTreeSet<String>,
    other: &str,
    stemmer: &Stemmer,
) -> bool {
    let theirs = word_stems(other, |_| true, stemmer);
    // Code spans only: a number, a link or a hyphenated word has rules of its own (`10` for
    // "ten", "hard-code" for "hardcode").
    let head_named = values.difference(other_values).all(|v| {
        !text.contains(&format!("`{v}"))
            || v.split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .is_none_or(|w| theirs.contains(stemmer.stem(&w.to_lowercase()).as_ref()))
    });
    head_named || says_besides(text, other, stemmer)
}

/// True when every content word of `other` is one of `text`'s, in some form ([`same_values`]).
pub(super) fn says_besides(text: &str, other: &str, stemmer: &Stemmer) -> bool {
    word_stems(other, is_content, stemmer).is_subset(&word_stems(text, is_content, stemmer))
}

/// The stems of the words of `text`'s tokens that `keep` keeps, a token's alphanumeric parts
/// each (`just`, `test` of `` `just test` ``).
pub(super) fn word_stems(
    text: &str,
    keep: impl Fn(&str) -> bool,
    stemmer: &Stemmer,
) -> BTreeSet<String> {
    tokens(text)
        .into_iter()
        .filter(|t| keep(t))
        .flat_map(|t| {
            core(t)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| stemmer.stem(&w.to_lowercase()).into_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}
